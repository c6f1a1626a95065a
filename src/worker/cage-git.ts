/**
 * The worker's own git, shared by the sandbox and the container (docs/sandbox.md, "Git"): a
 * credential-free shared clone (objects borrowed read-only) of the fleet's repository on the task's branch, which the
 * worker may write as it likes, and the action's way back from it. The fleet's clone (its config,
 * hooks and every other task's refs) is never visible to a worker; its objects are, read-only.
 */
import { copyFile, mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { Git } from '../git/git.js'
import { runOk } from '../process.js'

/** The per-worktree exclude file setup writes into the worktree's git dir (fleet/setup.ts). */
export const SETUP_EXCLUDE = 'fleet-setup-exclude'

export interface CageGit {
  /** The clone: a work tree that stays empty (`--no-checkout`) and its gitdir. */
  cloneDir: string
  gitDir: string
  /** The fleet clone's objects dir, which the clone's alternates name: mounted read-only. */
  objectsDir: string
  /** The worktree's `.git` file as git wrote it: put back after the worker, whatever it did. */
  gitFile: string
  head: string
}

/**
 * The worker's clone under `cageDir`, on the task's branch at the worktree's commit, plus origin's
 * branches for orientation. Made by hand rather than by `git clone --shared` (four git processes
 * fewer per worker start, docs/performance.md): `git init`, the fleet's objects borrowed through
 * `objects/info/alternates`, the refs written as packed-refs, and the worktree's own index copied
 * (so staged changes and the stat cache carry over). The worker's new objects go into its clone.
 */
export async function prepareGit(worktree: string, cageDir: string): Promise<CageGit> {
  const tree = Git.create(worktree)
  const [common, gitDir, head, branch] = (
    await tree.out([
      'rev-parse',
      '--path-format=absolute',
      '--git-common-dir',
      '--git-dir',
      'HEAD',
      '--symbolic-full-name',
      'HEAD'
    ])
  ).split('\n')
  if (!common || !gitDir || !head || !branch?.startsWith('refs/heads/'))
    throw new Error(`the worktree ${worktree} is not on a branch`)
  const gitFile = await readFile(path.join(worktree, '.git'), 'utf8')
  const cloneDir = path.join(cageDir, 'git')
  const cloneGit = path.join(cloneDir, '.git')
  await rm(cloneDir, { recursive: true, force: true })
  await mkdir(cloneDir, { recursive: true })
  const [, refs] = await Promise.all([
    Git.create(cloneDir).exec(['init', '--quiet', `--initial-branch=${branch.slice(11)}`]),
    tree.out(['for-each-ref', '--format=%(objectname) %(refname)', 'refs/remotes/origin/'])
  ])
  const objectsDir = path.join(common, 'objects')
  await writeFile(path.join(cloneGit, 'objects', 'info', 'alternates'), `${objectsDir}\n`)
  const packed = refs
    .split('\n')
    .filter(line => /^[0-9a-f]{40,64} refs\/remotes\/origin\//.test(line))
  packed.push(`${head} ${branch}`)
  await writeFile(
    path.join(cloneGit, 'packed-refs'),
    `# pack-refs with: peeled\n${packed.join('\n')}\n`
  )
  await copyFile(path.join(gitDir, 'index'), path.join(cloneGit, 'index')).catch(() => undefined)
  // What the task's setup left (fleet/setup.ts) stays out of the worker's own commits here too.
  await copyFile(path.join(gitDir, SETUP_EXCLUDE), path.join(cloneGit, 'info', 'exclude')).catch(
    (error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error
    }
  )
  return { cloneDir, gitDir: cloneGit, objectsDir, gitFile, head }
}

/** `chown -R -h`: a symlink the worker planted is re-owned itself, never what it points at. */
export async function chownTree(owner: string, dirs: string[]): Promise<void> {
  await runOk('chown', ['-R', '-h', owner, '--', ...dirs], { env: { PATH: '/usr/bin:/bin' } })
}

/**
 * The worker's commits back onto the task's branch. Only upload-pack runs in the worker-written
 * clone (git keeps it safe in untrusted repositories), with hooks off; the objects are checked on
 * the way in. The reset is --mixed: the working tree, which the worker wrote in place, stays.
 */
async function collectCommits(
  worktree: string,
  state: CageGit,
  log: (m: string) => void
): Promise<void> {
  const tree = Git.create(worktree)
  // ls-remote first: most workers leave their work uncommitted, and then there is nothing to fetch.
  const listed = await tree.exec(['ls-remote', state.gitDir, 'HEAD'], { allowFailure: true })
  const sha = /^([0-9a-f]{40,64})\tHEAD$/m.exec(listed.stdout)?.[1]
  if (sha === state.head) return
  const fetched = sha
    ? await tree.exec(
        ['-c', 'fetch.fsckObjects=true', 'fetch', '--quiet', '--no-tags', state.gitDir, 'HEAD'],
        { allowFailure: true }
      )
    : listed
  if (!sha || fetched.exitCode !== 0) {
    log(`could not read the worker's commits from its own clone: ${fetched.stderr.trim()}`)
    return
  }
  await tree.exec(['reset', '--quiet', '--mixed', sha])
}

/**
 * After the worker: the worktree's `.git` put back (it decides which repository the action's own
 * git opens next, and a worker could have pointed it at a gitdir it wrote, with hooks or fsmonitor
 * config), ownership restored when `owner` is given, the commits collected, the clone removed.
 */
export async function finishGit(
  worktree: string,
  state: CageGit,
  log: (m: string) => void,
  owner?: { user: string; dirs: string[] }
): Promise<void> {
  await rm(path.join(worktree, '.git'), { recursive: true, force: true })
  await writeFile(path.join(worktree, '.git'), state.gitFile)
  if (owner) await chownTree(owner.user, owner.dirs)
  await collectCommits(worktree, state, log)
  await rm(state.cloneDir, { recursive: true, force: true })
}
