import { rm, stat } from 'node:fs/promises'
import path from 'node:path'
import type { Git } from '../git/git.js'
import type { Worktree } from '../git/repo.js'

/** A worker killed mid-commit leaves `index.lock`; everything it started is gone, so it is stale. */
async function clearStaleLock(tree: Worktree): Promise<void> {
  const lock = path.join(tree.gitDir, 'index.lock')
  if (
    await stat(lock).then(
      () => true,
      () => false
    )
  )
    await rm(lock, { force: true })
}

/**
 * The git steps of bringing a fleet branch up to date with its base, in the branch's worktree of
 * the fleet's clone: whose commits the branch holds, the rebase or the merge, the conflict's
 * files and sides, and the markers left in a worker's sealed resolution.
 */

export type Author = { name: string; email: string }

const identityEnv = (a: Author): Record<string, string> => ({
  GIT_AUTHOR_NAME: a.name,
  GIT_AUTHOR_EMAIL: a.email,
  GIT_COMMITTER_NAME: a.name,
  GIT_COMMITTER_EMAIL: a.email
})

/** The action's own settings for its git steps: no signing, no hooks, no editor. */
const QUIET = [
  '-c',
  'commit.gpgsign=false',
  '-c',
  'core.hooksPath=/dev/null',
  '-c',
  'core.editor=true'
]

export async function isAncestor(tree: Worktree, older: string, newer: string): Promise<boolean> {
  const r = await tree.git.exec(['merge-base', '--is-ancestor', older, newer], {
    allowFailure: true
  })
  return r.exitCode === 0
}

/** Whether every commit on the branch since the base was made by the action (so it may rebase). */
export async function onlyOurs(tree: Worktree, base: string, author: Author): Promise<boolean> {
  const log = await tree.git.exec(['log', '--format=%an%x00%ae', `${base}..HEAD`])
  return log.stdout
    .split('\n')
    .filter(Boolean)
    .every(line => line === `${author.name}\0${author.email}`)
}

/** Rebases the branch onto the base (the action as committer); false, and nothing left, on a conflict. */
export async function tryRebase(tree: Worktree, base: string, author: Author): Promise<boolean> {
  const env = {
    GIT_COMMITTER_NAME: author.name,
    GIT_COMMITTER_EMAIL: author.email
  }
  const r = await tree.git.exec([...QUIET, 'rebase', '--quiet', base], { env, allowFailure: true })
  if (r.exitCode === 0) return true
  await tree.git.exec(['rebase', '--abort'], { allowFailure: true })
  return false
}

export const mergeSubject = (base: string, branch: string) =>
  `Merge ${base} into ${branch} (Fleet Worker)`

/**
 * Merges the base into the branch as the action. True when it merged cleanly; false leaves the
 * merge in progress (the conflicting files hold their markers) for a worker to resolve.
 */
export async function tryMerge(
  tree: Worktree,
  base: { ref: string; name: string },
  author: Author
): Promise<boolean> {
  const r = await tree.git.exec(
    [
      ...QUIET,
      'merge',
      '--no-ff',
      '--no-edit',
      '-m',
      mergeSubject(base.name, tree.branch),
      base.ref
    ],
    { env: identityEnv(author), allowFailure: true }
  )
  return r.exitCode === 0
}

/** The files a merge in progress left unmerged. */
export async function unmergedFiles(tree: Worktree): Promise<string[]> {
  const r = await tree.git.exec(['diff', '--name-only', '-z', '--diff-filter=U'])
  return [...new Set(r.stdout.split('\0').filter(Boolean))]
}

/** What each side did since they parted: commit subjects, and the base's diff of these files. */
export async function sides(tree: Worktree, base: string, files: string[]) {
  const subjects = async (range: string) =>
    (await tree.git.exec(['log', '--format=%s', '-n', '50', range])).stdout
      .split('\n')
      .filter(Boolean)
  const mergeBase = (await tree.git.exec(['merge-base', 'HEAD', base])).stdout.trim()
  const diff = await tree.git.exec(['diff', mergeBase, base, '--', ...files])
  return {
    ours: await subjects(`${base}..HEAD`),
    theirs: await subjects(`HEAD..${base}`),
    theirDiff: diff.stdout
  }
}

/** A line git writes for a conflict: `<<<<<<< ours`, `=======`, `>>>>>>> theirs`. */
const CONFLICT_LINES = ['-e', '^(<{7}|>{7})( |$)', '-e', '^={7}$']

/**
 * The files among `files` whose content in `commit` still holds a conflict marker, read in the
 * fleet's clone (a sealed, checked commit: never the tree a worker wrote). A deleted file holds none.
 */
export async function markersIn(repo: Git, commit: string, files: string[]): Promise<string[]> {
  if (files.length === 0) return []
  const r = await repo.exec(
    [
      'grep',
      '-l',
      '-I',
      '-E',
      ...CONFLICT_LINES,
      commit,
      '--',
      ...files.map(f => `:(literal)${f}`)
    ],
    { allowFailure: true }
  )
  if (r.exitCode > 1) throw new Error(`git grep failed: ${r.stderr.trim()}`)
  return r.stdout
    .split('\n')
    .filter(Boolean)
    .map(line => line.slice(commit.length + 1))
}

/** Ends a merge in progress and puts the worktree back at `sha` (the branch's old head). */
export async function abandonMerge(tree: Worktree, sha: string): Promise<void> {
  await clearStaleLock(tree)
  await tree.git.exec(['merge', '--abort'], { allowFailure: true })
  await tree.git.exec(['reset', '--quiet', '--hard', sha])
}
