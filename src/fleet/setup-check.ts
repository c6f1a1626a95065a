/**
 * What setup left in a task's files, listed inside its cage when those files are a copy-on-write
 * view (cage/views.ts) that the host cannot see: the user's setup command, then two fixed git
 * commands writing their output into a directory of setup's own. The action reads the two files
 * as bytes (no symlink followed, size capped) and decides as it does for a worktree (setup.ts).
 */
import { constants } from 'node:fs'
import { open } from 'node:fs/promises'
import path from 'node:path'

/**
 * The setup cage's command with a view: `FLEET_SETUP` (the `setup` input) in its own shell, then,
 * when it passed, the listing into `FLEET_SETUP_OUT`. Constant text: both come in the environment.
 * Exit 6 when git cannot list them: the setup fails rather than let its files ride into a commit.
 */
export const SETUP_CHECK = [
  'sh -c "$FLEET_SETUP" fleet-setup || exit $?',
  'g() { git -c core.hooksPath=/dev/null -c core.fsmonitor=false -c submodule.recurse=false "$@"; }',
  'g status --porcelain --untracked-files=no --ignore-submodules=all > "$FLEET_SETUP_OUT/tracked" || exit 6',
  'g ls-files -z --others --exclude-standard --directory > "$FLEET_SETUP_OUT/untracked" || exit 6'
].join('\n')

/** More than this is no listing of leftovers a commit should exclude: refused. */
const MAX_BYTES = 4 * 1024 * 1024

async function readCapped(file: string): Promise<string> {
  // O_NONBLOCK: a FIFO planted in place of a listing must not hold the action at open().
  const handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK)
  try {
    const stat = await handle.stat()
    if (!stat.isFile() || stat.size > MAX_BYTES)
      throw new Error(`${path.basename(file)} is not a file of at most ${MAX_BYTES} bytes`)
    return (await handle.readFile()).toString('utf8')
  } finally {
    await handle.close()
  }
}

/** The cage's two listings: tracked files setup changed, and the untracked paths it left. */
export async function readLeftovers(dir: string): Promise<{ tracked: string; untracked: string }> {
  const [tracked, untracked] = await Promise.all([
    readCapped(path.join(dir, 'tracked')),
    readCapped(path.join(dir, 'untracked'))
  ])
  return { tracked, untracked }
}
