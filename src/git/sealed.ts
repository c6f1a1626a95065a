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
import {
  closeSync,
  constants,
  fstatSync,
  mkdirSync,
  openSync,
  readFile,
  readFileSync,
  rmSync,
  writeFileSync
} from 'node:fs'
import { writeFile } from 'node:fs/promises'
import { promisify } from 'node:util'
import path from 'node:path'
import type { Git } from './git.js'
import { type Commit, commitOf, FIELDS } from './messages.js'

export interface SealCaps {
  /** The largest bundle file accepted, in bytes. */
  maxBytes: number
  /** The most commits a task may add. */
  maxCommits: number
}

export const DEFAULT_CAPS: SealCaps = { maxBytes: 512 * 1024 * 1024, maxCommits: 1000 }

export type Checked =
  | {
      kind: 'accepted'
      head: string
      commits: number
      /** The commits start..head, oldest first, as the check's `log` read them (not for a merge). */
      history?: Commit[]
    }
  | { kind: 'refused'; reason: string }

/** A sealed file of at most this size is read and copied at once, not through the thread pool. */
const AT_ONCE = 4 * 1024 * 1024

/**
 * Copies the cage's bundle file into `to` (a path of the action's): opened without following a
 * symlink, only a regular file, at most `maxBytes`. undefined when the cage left no file (nothing
 * new to seal); throws with a sentence when the file is not one the action will read. A task's
 * usual bundle (a few KB) is read and written at once: each promise call is a trip through the
 * thread pool, which a batch keeps busy; a large one goes through the pool, not to hold the
 * action's other work.
 */
export async function readSealed(
  from: string,
  to: string,
  maxBytes: number
): Promise<string | undefined> {
  let fd: number
  try {
    fd = openSync(from, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT') return undefined
    if (code === 'ELOOP')
      throw new Error(`the sealed result ${from} is a symlink, not a file`, { cause: error })
    throw error
  }
  try {
    const info = fstatSync(fd)
    if (!info.isFile()) throw new Error(`the sealed result ${from} is not a regular file`)
    if (info.size > maxBytes)
      throw new Error(`the sealed result is ${info.size} bytes, over the cap of ${maxBytes}`)
    const small = info.size <= AT_ONCE
    const bytes = await readAll(fd, info.size)
    if (bytes.length > maxBytes)
      throw new Error(`the sealed result grew past the cap of ${maxBytes} bytes while read`)
    mkdirSync(path.dirname(to), { recursive: true })
    const fresh = { flag: 'wx', mode: 0o600 } as const
    if (small) writeFileSync(to, bytes, fresh)
    else await writeFile(to, bytes, fresh)
    return to
  } finally {
    closeSync(fd)
  }
}

const readFd = promisify((fd: number, done: (e: Error | null, b: Buffer) => void) =>
  readFile(fd, done)
)

/** All of an open file of `size` bytes: at once when small, else through the thread pool. */
const readAll = (fd: number, size: number): Buffer | Promise<Buffer> =>
  size <= AT_ONCE ? readFileSync(fd) : readFd(fd)

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

/** The most a bundle's header (its refs and prerequisites, before the pack) may take. */
const MAX_HEADER = 1 << 20

/** A bundle as the check reads it: its header's refs, and the pack that follows the header. */
interface Bundle {
  heads: { sha: string; ref: string }[]
  pack: Buffer
}

/**
 * A bundle file's bytes, read by the action itself (no git process): its refs, as `<sha> <ref>`,
 * and its pack. Stricter than git's own reading (bundle.c): a line git would read differently (a
 * capability other than the object format, a ref name with a space, a CR) is refused here.
 * Prerequisite lines are passed over: what they claim is checked where it matters, by the pack's
 * own check (every delta base and every object a new object names must be in the fleet's clone).
 */
function parseBundle(bytes: Buffer): Bundle | string {
  const end = bytes.subarray(0, MAX_HEADER).indexOf('\n\n')
  if (end === -1) return 'no bundle header'
  const [signature, ...lines] = bytes.subarray(0, end).toString('latin1').split('\n')
  if (signature !== '# v2 git bundle' && signature !== '# v3 git bundle')
    return 'no bundle signature'
  const heads: { sha: string; ref: string }[] = []
  for (const line of lines) {
    if (/^-[0-9a-f]{40}(?:[0-9a-f]{24})?(?: [^\r]*)?$/.test(line)) continue
    if (signature.startsWith('# v3') && /^@object-format=sha(?:1|256)$/.test(line)) continue
    const ref = /^([0-9a-f]{40}(?:[0-9a-f]{24})?) (refs\/[^\s]+)$/.exec(line)
    if (!ref) return `an unrecognised header line '${line.slice(0, 80)}'`
    heads.push({ sha: ref[1] ?? '', ref: ref[2] ?? '' })
  }
  return { heads, pack: bytes.subarray(end + 2) }
}

/** The bundle's heads: exactly one, the task's branch. */
function headOf(bundle: Bundle, branch: string): Checked {
  const refs = bundle.heads.map(h => h.ref)
  const want = `refs/heads/${branch}`
  if (refs.length !== 1 || refs[0] !== want)
    return {
      kind: 'refused',
      reason: `the sealed result holds ${refs.join(', ') || 'no ref'} instead of the task's branch ${want} alone`
    }
  return { kind: 'accepted', head: bundle.heads[0]?.sha ?? '', commits: 0 }
}

/** A file of the action's, read whole. */
async function readWhole(file: string): Promise<Buffer> {
  const fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW)
  try {
    return await readAll(fd, fstatSync(fd).size)
  } finally {
    closeSync(fd)
  }
}

/**
 * Why `index-pack --strict` refused a pack, as the refusal's sentence: a delta base or a named
 * object the clone lacks (the bundle was made against history the fleet does not have), or the
 * object checks themselves (fsck's first complaint, else git's last line).
 */
function packRefused(stderr: string): string {
  const lines = stderr.trim().split('\n')
  const said = lines.find(line => line.startsWith('error: object ')) ?? lines.pop() ?? ''
  return /unresolved delta|did not receive expected object/.test(stderr)
    ? `the sealed result is not a valid bundle of this repository: it needs objects the fleet's clone lacks (${said})`
    : `the sealed result failed git's object checks (${said})`
}

/**
 * Checks a bundle in the fleet's clone. When it passes, its objects are in the clone and its
 * commits are returned for the message rewrite; no ref is written (the branch is moved by the
 * caller). The file is read once, and the checks take two git processes (docs/performance.md):
 * - the header, read here: exactly one ref, the task's branch;
 * - the pack, given to `index-pack --stdin --fix-thin --strict`: every object fscked (a malformed
 *   commit, a tree naming `.git`), every delta base and every object a new object names present
 *   (a `git fetch` of a bundle ran `index-pack` without `--strict`, whatever `fetch.fsckObjects`
 *   said, on the git 2.39 measured here); it reads no ref, so it waits on no other git command;
 * - one `log` of start..head: the commits (at most the cap), their descent from the start commit,
 *   any gitlink or `.gitmodules` change, and the messages the rewrite needs.
 */
export async function checkSealed(
  repo: Git,
  file: string,
  want: { branch: string; start: string; merge?: string; caps?: SealCaps }
): Promise<Checked> {
  const caps = want.caps ?? DEFAULT_CAPS
  const bundle = parseBundle(await readWhole(file))
  if (typeof bundle === 'string')
    return {
      kind: 'refused',
      reason: `the sealed result is not a valid bundle of this repository (${bundle})`
    }
  const listed = headOf(bundle, want.branch)
  if (listed.kind === 'refused') return listed
  const indexed = await repo.exec(['index-pack', '--stdin', '--fix-thin', '--strict'], {
    stdin: bundle.pack,
    allowFailure: true
  })
  if (indexed.exitCode !== 0) return { kind: 'refused', reason: packRefused(indexed.stderr) }
  if (want.merge) return mergeOf(repo, { start: want.start, merge: want.merge }, listed.head)
  return historyOf(repo, want.start, listed.head, caps)
}

const short = (sha: string) => sha.slice(0, 12)

/** The bundle's head names no commit the clone now has (not in its pack, nor already here). */
function notACommit(head: string, stderr: string): Checked {
  const said = stderr.trim().split('\n').pop()
  return {
    kind: 'refused',
    reason: `the sealed result's head ${short(head)} is not a commit of this repository${said ? ` (${said})` : ''}`
  }
}

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
  const listed = await repo.exec(['rev-list', '--parents', '-n', '1', head], { allowFailure: true })
  const [commit, ...parents] = listed.stdout.trim().split(' ')
  if (listed.exitCode !== 0 || commit !== head) return notACommit(head, listed.stderr)
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

/**
 * start..head as one `log -z --raw -m` (at most the cap plus one commit): each commit's FIELDS
 * (git/messages.ts), then its raw diff against each parent, as `:<modes> <shas> <status>` and its
 * path (two for a rename or copy). A message holds no NUL, so no message can pose as a diff line.
 */
export function parseHistory(out: string): { commits: Commit[]; raw: string } {
  const tokens = out.split('\0')
  const seen = new Map<string, Commit>()
  const raw: string[] = []
  let i = 0
  while (i + 10 <= tokens.length && /^[0-9a-f]{40,64}$/.test(tokens[i] ?? '')) {
    const commit = commitOf(tokens.slice(i, i + 10))
    if (!seen.has(commit.sha)) seen.set(commit.sha, commit)
    i += 10
    for (;;) {
      const status = (tokens[i] ?? '').replace(/^\n/, '')
      if (!status.startsWith(':')) break
      const paths = /[RC]\d*$/.test(status) ? 2 : 1
      raw.push(`${status}\t${tokens.slice(i + 1, i + 1 + paths).join('\t')}`)
      i += 1 + paths
    }
  }
  return { commits: [...seen.values()], raw: raw.join('\n') }
}

/**
 * The sealed commits, from one `log`: within the cap, descending from the start commit (the head
 * is the start, or some commit of start..head has the start as a parent: the path from the head
 * down to the start passes through such a commit, and such a commit makes the start an ancestor),
 * adding no submodule. Their messages come back for the rewrite, oldest first.
 */
async function historyOf(repo: Git, start: string, head: string, caps: SealCaps): Promise<Checked> {
  const out = await repo.exec(
    [
      'log',
      '-z',
      '--raw',
      // Over the wrapper's diff.ignoreSubmodules=all: here gitlinks are exactly what is looked for.
      '--ignore-submodules=none',
      '--no-abbrev',
      '-m',
      '--topo-order',
      '--date=raw',
      `--max-count=${caps.maxCommits + 1}`,
      `--format=${FIELDS}`,
      `${start}..${head}`
    ],
    { allowFailure: true }
  )
  const { commits, raw } = parseHistory(out.stdout)
  // The first commit of a topo-ordered log is its one tip: not the head itself, a tag was named.
  if (out.exitCode !== 0 || (head !== start && commits[0]?.sha !== head))
    return notACommit(head, out.stderr)
  if (commits.length > caps.maxCommits)
    return {
      kind: 'refused',
      reason: `the task added at least ${commits.length} commits, over the cap of ${caps.maxCommits}`
    }
  if (head !== start && !commits.some(c => c.parents.includes(start)))
    return {
      kind: 'refused',
      reason: `the sealed commits do not descend from the task's start commit ${start.slice(0, 12)}`
    }
  const submodules = submodulePaths(raw)
  if (submodules.length > 0)
    return {
      kind: 'refused',
      reason: `the work adds a submodule (a gitlink or a .gitmodules change: ${submodules.join(', ')}), which the fleet does not push`
    }
  return { kind: 'accepted', head, commits: commits.length, history: commits.reverse() }
}

/** Removes a copied bundle once its commits are on the branch (the action's own file: at once). */
export function discardSealed(file: string): void {
  rmSync(file, { force: true })
}
