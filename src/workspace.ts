import path from 'node:path'

/**
 * `given` resolved against the workspace, or undefined when it points outside it (or is the
 * workspace itself). Inputs naming files must never reach beyond the checkout.
 */
export function insideWorkspace(workspace: string, given: string): string | undefined {
  const full = path.resolve(workspace, given)
  const rel = path.relative(workspace, full)
  const outside =
    rel === '' || rel === '..' || rel.startsWith(`..${path.sep}`) || path.isAbsolute(rel)
  return outside ? undefined : full
}
