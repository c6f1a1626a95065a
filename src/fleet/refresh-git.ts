import { lstat, readdir, readFile, rm, stat } from 'node:fs/promises'
import path from 'node:path'
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
 * Nested repositories a worker left in the tree (any `.git` below its root). The action's own
 * `git add` would step into one and run its config (a clean filter), so a resolution that holds
 * one is refused before the action runs git there.
 */
export async function nestedRepositories(tree: Worktree): Promise<string[]> {
  const entries = await readdir(tree.dir, { recursive: true, withFileTypes: true })
  return entries
    .filter(e => e.name === '.git' && e.parentPath !== tree.dir)
    .map(e => path.relative(tree.dir, e.parentPath))
}

/**
 * The git steps of bringing a fleet branch up to date with its base, in the branch's worktree of
 * the fleet's clone: whose commits the branch holds, the rebase or the merge, the conflict's
 * files and sides, and the merge commit the action makes after a worker resolved it.
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

const CONFLICT_LINE = /^(?:<{7}|>{7})(?: |$)|^={7}$/m

const MAX_READ = 20 * 1024 * 1024

/**
 * The files among `files` that still hold a conflict marker (a deleted file holds none). Only
 * regular files are read: the worker wrote this tree, and a FIFO or a symlink planted in a
 * file's place must not hang the action or make it read outside the tree.
 */
export async function markersLeft(tree: Worktree, files: string[]): Promise<string[]> {
  const left: string[] = []
  for (const file of files) {
    const full = path.join(tree.dir, file)
    const stat = await lstat(full).catch(() => undefined)
    if (!stat) continue
    if (!stat.isFile() || stat.size > MAX_READ) {
      if (!stat.isSymbolicLink()) left.push(file)
      continue
    }
    if (CONFLICT_LINE.test(await readFile(full, 'utf8'))) left.push(file)
  }
  return left
}

/** Ends a merge in progress and puts the worktree back at `sha` (the branch's old head). */
export async function abandonMerge(tree: Worktree, sha: string): Promise<void> {
  await clearStaleLock(tree)
  await tree.git.exec(['merge', '--abort'], { allowFailure: true })
  await tree.git.exec(['reset', '--quiet', '--hard', sha])
}

/**
 * Commits the working tree as the merge of the base into the branch: the worker's resolution (and
 * any commit it made on top of the branch) with the base as second parent. Returns the commit.
 */
export async function commitMerge(
  tree: Worktree,
  base: { sha: string; name: string },
  author: Author
): Promise<string> {
  await clearStaleLock(tree)
  await tree.git.exec(['add', '--all'])
  const written = (await tree.git.exec(['write-tree'])).stdout.trim()
  const made = await tree.git.exec(
    [
      'commit-tree',
      written,
      '-p',
      'HEAD',
      '-p',
      base.sha,
      '-m',
      mergeSubject(base.name, tree.branch)
    ],
    { env: identityEnv(author) }
  )
  const sha = made.stdout.trim()
  // --mixed moves the branch and ends the merge in progress (MERGE_HEAD); the files stay.
  await tree.git.exec(['reset', '--quiet', '--mixed', sha])
  return sha
}
