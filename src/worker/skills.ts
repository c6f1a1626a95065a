import { stat } from 'node:fs/promises'
import path from 'node:path'
import { InputError } from '../errors.js'
import { realInsideWorkspace } from '../workspace.js'

/**
 * The `skills` input as absolute folders of the checkout, each checked to hold a SKILL.md. The
 * checkout is the workflow's own ref: the trusted copy, not what a worker may have changed.
 */
export async function resolveSkills(names: string[], workspace: string): Promise<string[]> {
  const dirs: string[] = []
  for (const name of names) {
    const dir = await realInsideWorkspace(workspace, name)
    if (!dir) {
      throw new InputError(
        'skills',
        `'${name}' is not a folder inside the repository (symbolic links are followed); give a path such as .claude/skills/release`
      )
    }
    const skill = await stat(path.join(dir, 'SKILL.md')).catch(() => undefined)
    if (!skill?.isFile()) {
      throw new InputError(
        'skills',
        `'${name}' has no SKILL.md; each skills entry is a folder holding one`
      )
    }
    dirs.push(dir)
  }
  return dirs
}
