/**
 * The action's side of a cage's exit (docs/sandbox.md, "The exit"): a task's work arrives as a git
 * bundle file the cage wrote, never as a repository to fetch from. The file is read as bytes (no
 * symlink followed, size capped) into a directory of the action's, and checked in the fleet's own
 * clone, which no cage can write: its one branch, its ancestry from the task's start commit, no
 * new gitlink or `.gitmodules` change, within caps. Only then may the task's branch move.
 * checkSealed takes a file, a start commit and a branch, so a separate landing step can run it too.
 * A merge turn's result (`merge`: the base commit merged in) has one shape alone: a single merge
 * commit whose parents are exactly [start, merge], adding no gitlink that neither parent holds.
 */
import { serialIn } from './lock.js'
import { constants } from 'node:fs'
import { mkdir, open, rm } from 'node:fs/promises'
import path from 'node:path'
import type { Git } from './git.js'

export interface SealCaps {
  /** The largest bundle file accepted, in bytes. */
  maxBytes: number
  /** The most commits a task may add. */
  maxCommits: number
}

export const DEFAULT_CAPS: SealCaps = { maxBytes: 512 * 1024 * 1024, maxCommits: 1000 }

export type Checked =
  { kind: 'accepted'; head: string; commits: number } | { kind: 'refused'; reason: string }

/**
 * Copies the cage's bundle file into `to` (a path of the action's): opened without following a
 * symlink, only a regular file, at most `maxBytes`. undefined when the cage left no file (nothing
 * new to seal); throws with a sentence when the file is not one the action will read.
 */
export async function readSealed(
  from: string,
  to: string,
  maxBytes: number
): Promise<string | undefined> {
  let handle
  try {
    handle = await open(from, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT') return undefined
    if (code === 'ELOOP')
      throw new Error(`the sealed result ${from} is a symlink, not a file`, { cause: error })
    throw error
  }
  try {
    const info = await handle.stat()
    if (!info.isFile()) throw new Error(`the sealed result ${from} is not a regular file`)
    if (info.size > maxBytes)
      throw new Error(`the sealed result is ${info.size} bytes, over the cap of ${maxBytes}`)
    const bytes = await handle.readFile()
    if (bytes.length > maxBytes)
      throw new Error(`the sealed result grew past the cap of ${maxBytes} bytes while read`)
    await mkdir(path.dirname(to), { recursive: true })
    const out = await open(to, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600)
    try {
      await out.writeFile(bytes)
    } finally {
      await out.close()
    }
    return to
  } finally {
    await handle.close()
  }
}

/** Lines of `git log --raw` that add a gitlink or touch `.gitmodules`, as the paths they name. */
export function submodulePaths(raw: string): string[] {
  const found = new Set<string>()
  for (const line of raw.split('\n')) {
    // :<old mode> <new mode> <old sha> <new sha> <status>\t<path>[\t<path>]
    const m = /^:+(\d{6}) (\d{6}) [0-9a-f]+ [0-9a-f]+ [A-Z]\d*\t(.*)$/.exec(line)
    if (!m) continue
    const [, oldMode, newMode, paths = ''] = m
    const names = paths.split('\t')
    const target = names[names.length - 1] ?? ''
    if (newMode === '160000' && oldMode !== '160000') found.add(target)
    if (names.some(n => n === '.gitmodules' || n.endsWith('/.gitmodules'))) found.add('.gitmodules')
  }
  return [...found]
}

/** `refs/fleet-sealed/<branch>`: where a bundle is fetched before it is accepted. */
const sealedRef = (branch: string) => `refs/fleet-sealed/${branch}`

/** The bundle's heads: exactly one, the task's branch. */
async function headOf(repo: Git, file: string, branch: string): Promise<Checked> {
  const verified = await repo.exec(['bundle', 'verify', '--quiet', file], { allowFailure: true })
  if (verified.exitCode !== 0)
    return {
      kind: 'refused',
      reason: `the sealed result is not a valid bundle of this repository (${verified.stderr.trim().split('\n').pop() ?? ''})`
    }
  const heads = (await repo.out(['bundle', 'list-heads', file])).split('\n').filter(Boolean)
  const refs = heads.map(line => line.split(' ')[1] ?? '')
  const want = `refs/heads/${branch}`
  if (refs.length !== 1 || refs[0] !== want)
    return {
      kind: 'refused',
      reason: `the sealed result holds ${refs.join(', ') || 'no ref'} instead of the task's branch ${want} alone`
    }
  return { kind: 'accepted', head: heads[0]?.split(' ')[0] ?? '', commits: 0 }
}

/**
 * Checks a bundle in the fleet's clone and, when it passes, leaves its head at
 * refs/fleet-sealed/<branch> (objects checked by fsck on the way in). Never moves the branch.
 */
export async function checkSealed(
  repo: Git,
  file: string,
  want: { branch: string; start: string; merge?: string; caps?: SealCaps }
): Promise<Checked> {
  const caps = want.caps ?? DEFAULT_CAPS
  // Never beside a `worktree add` (git/lock.ts): git would read that worktree's half-made HEAD.
  const listed = await serialIn(repo.dir, () => headOf(repo, file, want.branch))
  if (listed.kind === 'refused') return listed
  const ref = sealedRef(want.branch)
  const fetched = await serialIn(repo.dir, () =>
    repo.exec(
      [
        '-c',
        'fetch.fsckObjects=true',
        'fetch',
        '--quiet',
        '--no-tags',
        '--no-write-fetch-head',
        file,
        `+refs/heads/${want.branch}:${ref}`
      ],
      { allowFailure: true }
    )
  )
  if (fetched.exitCode !== 0)
    return {
      kind: 'refused',
      reason: `the sealed result failed git's object checks (${fetched.stderr.trim().split('\n').pop() ?? ''})`
    }
  if (want.merge) return mergeOf(repo, { start: want.start, merge: want.merge }, listed.head)
  return historyOf(repo, want.start, listed.head, caps)
}

const short = (sha: string) => sha.slice(0, 12)

/**
 * A merge turn's result: the head is one merge commit whose parents are exactly the start commit
 * and the merged base, in that order (so it is the only new commit), and its tree adds no gitlink
 * or `.gitmodules` change against both parents (one the base brought is the base's, not the worker's).
 */
async function mergeOf(
  repo: Git,
  want: { start: string; merge: string },
  head: string
): Promise<Checked> {
  const parents = (await repo.out(['rev-list', '--parents', '-n', '1', head])).split(' ').slice(1)
  if (parents.length !== 2 || parents[0] !== want.start || parents[1] !== want.merge)
    return {
      kind: 'refused',
      reason: `the sealed merge ${short(head)} has parents [${parents.map(short).join(', ')}], not exactly [${short(want.start)}, ${short(want.merge)}] (the branch's head, then the base)`
    }
  const [againstStart, againstMerge] = await Promise.all(
    [want.start, want.merge].map(async parent =>
      submodulePaths(
        await repo.out([
          'diff-tree',
          '-r',
          '--raw',
          '--no-abbrev',
          '--ignore-submodules=none',
          parent,
          head
        ])
      )
    )
  )
  const added = (againstStart ?? []).filter(p => (againstMerge ?? []).includes(p))
  if (added.length > 0)
    return {
      kind: 'refused',
      reason: `the merge adds a submodule (a gitlink or a .gitmodules change: ${added.join(', ')}), which the fleet does not push`
    }
  return { kind: 'accepted', head, commits: 1 }
}

/** The sealed commits: descending from the start commit, within the cap, adding no submodule. */
async function historyOf(repo: Git, start: string, head: string, caps: SealCaps): Promise<Checked> {
  const descends = await repo.exec(['merge-base', '--is-ancestor', start, head], {
    allowFailure: true
  })
  if (descends.exitCode !== 0)
    return {
      kind: 'refused',
      reason: `the sealed commits do not descend from the task's start commit ${start.slice(0, 12)}`
    }
  const commits = Number(await repo.out(['rev-list', '--count', `${start}..${head}`]))
  if (commits > caps.maxCommits)
    return {
      kind: 'refused',
      reason: `the task added ${commits} commits, over the cap of ${caps.maxCommits}`
    }
  const raw = await repo.out([
    'log',
    '--raw',
    // Over the wrapper's diff.ignoreSubmodules=all: here gitlinks are exactly what is looked for.
    '--ignore-submodules=none',
    '--no-abbrev',
    '-m',
    '--format=',
    `${start}..${head}`
  ])
  const submodules = submodulePaths(raw)
  if (submodules.length > 0)
    return {
      kind: 'refused',
      reason: `the work adds a submodule (a gitlink or a .gitmodules change: ${submodules.join(', ')}), which the fleet does not push`
    }
  return { kind: 'accepted', head, commits }
}

/** Drops the private ref checkSealed left. */
export async function dropSealedRef(repo: Git, branch: string): Promise<void> {
  await repo.exec(['update-ref', '-d', sealedRef(branch)], { allowFailure: true })
}

/** Removes a copied bundle once its commits are on the branch. */
export async function discardSealed(file: string): Promise<void> {
  await rm(file, { force: true })
}
