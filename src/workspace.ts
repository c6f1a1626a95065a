import { realpath } from 'node:fs/promises'
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

/**
 * `insideWorkspace`, and then the same check on the real path: a symlink in the checkout (which
 * anyone who can open a PR can add) must not lead an input outside it. A path that does not exist
 * yet passes here; reading it then fails with its own error.
 */
export async function realInsideWorkspace(
  workspace: string,
  given: string
): Promise<string | undefined> {
  const full = insideWorkspace(workspace, given)
  if (!full) return undefined
  const real = await realpath(full).catch(() => undefined)
  if (real === undefined) return full
  return insideWorkspace(await realpath(workspace), real) ? real : undefined
}
