import { existsSync } from 'node:fs'
/**
 * The worker's own git, shared by the sandbox and the container (docs/sandbox.md, "Git"): a
 * credential-free shared clone (objects borrowed read-only) of the fleet's repository on the task's branch, which the
 * worker may write as it likes, and the action's way back from it. The fleet's clone (its config,
 * hooks and every other task's refs) is never visible to a worker; its objects are, read-only.
 */
import { copyFile, mkdir, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { Git } from '../git/git.js'
import { layerConfig } from '../git/fsmonitor.js'
import { runOk } from '../process.js'
import { removeTree } from '../process/remove-tree.js'
import { acceptedHead, readyIndex, type TaskGit } from '../worker/exit.js'

/** The per-worktree exclude file setup writes into the worktree's git dir (fleet/setup.ts). */
export const SETUP_EXCLUDE = 'fleet-setup-exclude'

export interface CageGit {
  /** The clone: a work tree that stays empty (`--no-checkout`) and its gitdir. */
  cloneDir: string
  gitDir: string
  /** The fleet clone's objects dir, which the clone's alternates name: mounted read-only. */
  objectsDir: string
  head: string
}

/** Where the clone's HEAD and index come from: the task's git as the action holds it. */
async function sourceOf(t: TaskGit | string, named?: string) {
  if (typeof t !== 'string') {
    const git = t.repo
    const [head, refs] = await Promise.all([
      acceptedHead(t),
      git.out(['for-each-ref', '--format=%(objectname) %(refname)', 'refs/remotes/origin/']),
      readyIndex(t)
    ])
    return {
      head,
      branch: `refs/heads/${t.branch}`,
      common: path.join(git.dir, '.git'),
      gitDir: t.adminDir,
      refs
    }
  }
  // No task to seal: read from the worktree itself, through its git dir when the caller names it
  // (keep-fresh's setup and verify); else found through its `.git`, which every cage shows
  // read-only (the planner's worktree, made by the action a moment ago).
  const tree = named ? Git.create(t).tree(t, named) : Git.create(t)
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
    throw new Error(`the worktree ${t} is not on a branch`)
  const refs = await tree.out([
    'for-each-ref',
    '--format=%(objectname) %(refname)',
    'refs/remotes/origin/'
  ])
  return { head, branch, common, gitDir, refs }
}

/** The config `git init` writes on Linux (its global and system configs are never read: git.ts). */
const INIT_CONFIG = [
  '[core]',
  '\trepositoryformatversion = 0',
  '\tfilemode = true',
  '\tbare = false',
  '\tlogallrefupdates = true',
  ''
].join('\n')

/**
 * What `git init` makes, without its templates (sample hooks, a description) and without a git
 * process: one fewer per cage, each a fork that blocks the action's event loop. HEAD on `branch`.
 */
async function initRepo(gitDir: string, branch: string, config: string): Promise<void> {
  const dirs = ['objects/info', 'objects/pack', 'refs/heads', 'refs/tags', 'info']
  await Promise.all(dirs.map(d => mkdir(path.join(gitDir, d), { recursive: true })))
  await Promise.all([
    writeFile(path.join(gitDir, 'HEAD'), `ref: ${branch}\n`),
    writeFile(path.join(gitDir, 'config'), INIT_CONFIG + config)
  ])
}

/**
 * The worker's clone under `cageDir`, on the task's branch at its accepted commit, plus origin's
 * branches for orientation. Made by hand rather than by `git clone --shared` (five git processes
 * fewer per worker start, docs/performance.md): what `git init` makes, the fleet's objects
 * borrowed through `objects/info/alternates`, the refs written as packed-refs, and the worktree's
 * own index copied from the fleet's clone. Everything is read from the fleet's clone (never from
 * the task's files, which a cage wrote); the worker's new objects go into its clone.
 */
export async function prepareGit(
  source: TaskGit | string,
  cageDir: string,
  named?: string,
  /** The cage shows the task's view's layer at LAYER_DIR: its git asks it what changed. */
  layer = false
): Promise<CageGit> {
  const { head, branch, common, gitDir, refs } = await sourceOf(source, named)
  const cloneDir = path.join(cageDir, 'git')
  const cloneGit = path.join(cloneDir, '.git')
  await removeTree(cloneDir)
  await initRepo(cloneGit, branch, layer ? layerConfig() : '')
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
  // A shallow fleet clone's boundary (git/repo.ts borrow): without it the worker's `git log` would
  // walk into parents the borrowed objects lack.
  await copyFile(path.join(common, 'shallow'), path.join(cloneGit, 'shallow')).catch(
    (error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error
    }
  )
  // What the task's setup left (fleet/setup.ts) stays out of the worker's own commits here too.
  await copyFile(path.join(gitDir, SETUP_EXCLUDE), path.join(cloneGit, 'info', 'exclude')).catch(
    (error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error
    }
  )
  return { cloneDir, gitDir: cloneGit, objectsDir, head }
}

/**
 * `chown -R -h`: a symlink the worker planted is re-owned itself, never what it points at. A dir
 * already gone (a seal's clone, removed by its own finish) has nothing left to re-own.
 */
export async function chownTree(owner: string, dirs: string[]): Promise<void> {
  const present = dirs.filter(dir => existsSync(dir))
  if (!present.length) return
  await runOk('chown', ['-R', '-h', owner, '--', ...present], { env: { PATH: '/usr/bin:/bin' } })
}

/**
 * After a caged run (and its seal, worker/exit.ts): ownership restored when `owner` is given, the
 * clone removed. Nothing is read from the clone: what the task made left the cage as a file.
 */
export async function finishGit(
  state: CageGit,
  owner?: { user: string; dirs: string[] }
): Promise<void> {
  if (owner) await chownTree(owner.user, owner.dirs)
  await removeTree(state.cloneDir)
}
