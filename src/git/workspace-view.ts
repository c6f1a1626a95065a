/**
 * The workspace's own checkout as the lower layer of the tasks' views (issue #40 item 2): where
 * actions/checkout left exactly the task's start commit and nothing else, the run skips its own
 * checkout of every file (on 20,000 files, seconds that every task waited for at its start).
 *
 * Taken only when every check below holds, else the run makes its own checkout as before:
 * - its HEAD is the start commit (read as data by borrow.ts);
 * - its `.git` names no sparse checkout, no attributes file, no submodules, no LFS store, no
 *   per-worktree config (plain files looked up, nothing read);
 * - its index, copied (the copy's mtime kept, so git's racy-entry check holds), read by the
 *   fleet's own git (the fleet clone's git dir, its hardened config; the workspace's config is
 *   never read, no git command runs in the workspace's `.git`): the index is the start commit's
 *   tree, every file matches its entry's stat data, and no entry is assume-unchanged or
 *   skip-worktree;
 * - every non-directory in the workspace but its `.git` (one `find` of names and types, which
 *   reads directories and stats no file) is a regular file or symlink of that tree: nothing
 *   untracked, nothing ignored (a build's output, a `.env`, a key a step wrote: ignored files may
 *   hold secrets and must never reach a worker), no FIFO or socket, no submodule's files;
 * - each entry's size as checked out (in the index, read as data; the files match it, above) is
 *   its blob's: no content converted on checkout (line endings, a smudge filter change a size).
 *   The sizes were a `find` that stat'ed every file, a second walk beside git's (0.3-0.4 s of
 *   0.8 s at 100,000 files, docs/performance.md).
 *
 * The view stacks a hiding layer above it: an empty, unreadable `.git` file, which hides the
 * workspace's `.git` directory (its config holds the checkout's token) from every cage, whole.
 */
import { chmod, copyFile, lstat, mkdir, readFile, utimes, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { run } from '../process.js'
import type { Git } from './git.js'
import { HOST_FSMONITOR } from './fsmonitor.js'

/** The workspace as a view's lower layer: its files, the index to copy, the layer over its `.git`. */
export interface WorkspaceLayer {
  dir: string
  index: string
  hide: string
  /** The index copy marks every entry unchanged (fsmonitor.ts). */
  fsmonitor: true
}

/** What in the workspace's `.git` makes its files other than the fleet's checkout would be. */
const UNUSUAL = [
  ['info/sparse-checkout', 'it is a sparse checkout'],
  ['info/attributes', 'its .git/info/attributes may convert files'],
  ['modules', 'it has submodules'],
  ['lfs', 'it has an LFS store'],
  ['config.worktree', 'it has per-worktree config']
] as const

const exists = (p: string) =>
  lstat(p).then(
    () => true,
    () => false
  )

/**
 * Every non-directory under `dir` but its top `.git`, as path -> its type as find's `%y` gives it
 * (`f` a regular file, `l` a symlink, `p` a FIFO, `s` a socket...): GNU find, one process, which
 * takes the types from the directories' entries and stats no file.
 */
async function filesOf(dir: string): Promise<Map<string, string> | undefined> {
  const args = [dir, '-path', path.join(dir, '.git'), '-prune', '-o', '!', '-type', 'd']
  const r = await run('find', [...args, '-printf', '%y %P\\0'], {
    env: { PATH: '/usr/bin:/bin', LC_ALL: 'C' }
  })
  if (r.exitCode !== 0) return undefined
  const files = new Map<string, string>()
  for (const entry of r.stdout.split('\0').filter(Boolean))
    files.set(entry.slice(entry.indexOf(' ') + 1), entry.slice(0, entry.indexOf(' ')))
  return files
}

/** git's offset varint (index v4's prefix lengths): 7 bits a byte, each continuation adds one. */
function varint(data: Buffer, at: number): [number, number] | undefined {
  let byte = data[at++]
  if (byte === undefined) return undefined
  let value = byte & 127
  while (byte & 128) {
    byte = data[at++]
    if (byte === undefined || value > 0xffffff) return undefined
    value = (value + 1) * 128 + (byte & 127)
  }
  return [value, at]
}

/**
 * Each entry's path and size as checked out (the stat data's 32 bits), read from an index file
 * (versions 2 to 4; `oidBytes` 20 or 32); undefined when it is not one read here: a split index
 * (its entries are elsewhere), a sparse one, or anything malformed.
 */
export function indexSizes(data: Buffer, oidBytes: number): Map<string, number> | undefined {
  if (data.length < 12 || data.toString('latin1', 0, 4) !== 'DIRC') return undefined
  const version = data.readUInt32BE(4)
  const count = data.readUInt32BE(8)
  if (version < 2 || version > 4) return undefined
  const sizes = new Map<string, number>()
  let at = 12
  let previous: Buffer = Buffer.alloc(0)
  for (let i = 0; i < count; i++) {
    const start = at
    const flagsAt = start + 40 + oidBytes
    if (flagsAt + 2 > data.length) return undefined
    const size = data.readUInt32BE(start + 36)
    const flags = data.readUInt16BE(flagsAt)
    at = flagsAt + 2 + (flags & 0x4000 && version >= 3 ? 2 : 0)
    let name: Buffer
    if (version === 4) {
      const strip = varint(data, at)
      if (!strip || strip[0] > previous.length) return undefined
      const end = data.indexOf(0, strip[1])
      if (end < 0) return undefined
      name = Buffer.concat([
        previous.subarray(0, previous.length - strip[0]),
        data.subarray(strip[1], end)
      ])
      at = end + 1
    } else {
      const end = data.indexOf(0, at)
      if (end < 0) return undefined
      name = data.subarray(at, end)
      // NUL-padded to a multiple of 8 bytes from the entry's start (1 to 8 NULs).
      at = start + ((end - start + 8) & ~7)
      if (at > data.length) return undefined
    }
    previous = name
    sizes.set(name.toString('utf8'), size)
  }
  // The extensions: a split index's `link` and a sparse index's `sdir` mean entries not here.
  while (at + 8 <= data.length - oidBytes) {
    const signature = data.toString('latin1', at, at + 4)
    if (signature === 'link' || signature === 'sdir') return undefined
    at += 8 + data.readUInt32BE(at + 4)
  }
  return sizes
}

/** The start commit's tree as path -> blob size; undefined when it has a submodule (a gitlink). */
function treeSizes(lsTree: string): Map<string, number> | undefined {
  const sizes = new Map<string, number>()
  for (const entry of lsTree.split('\0').filter(Boolean)) {
    // <mode> SP <type> SP <object> SP+ <size> TAB <path>
    const m = /^(\d+) (\w+) [0-9a-f]+ +(\d+|-)\t([\s\S]*)$/.exec(entry)
    if (!m || m[2] !== 'blob') return undefined
    sizes.set(m[4] ?? '', Number(m[3]))
  }
  return sizes
}

/**
 * Why the files differ from the tree's, or undefined when they are the tree's, exactly: `files`
 * as filesOf lists them, `checkedOut` each entry's size as the index holds it (which the files'
 * own match: diff-files), `tree` each blob's.
 */
function filesDiffer(
  files: Map<string, string>,
  checkedOut: Map<string, number>,
  tree: Map<string, number>
): string | undefined {
  if (files.size < tree.size) return 'a file of the commit is missing from it'
  for (const [name, type] of files) {
    if (!tree.has(name)) return 'it holds files the commit does not (untracked or ignored)'
    if (type !== 'f' && type !== 'l') return 'it holds a file that is neither regular nor a symlink'
  }
  for (const [name, blob] of tree)
    if (checkedOut.get(name) !== blob % 2 ** 32)
      return 'a file differs in size from its blob (converted on checkout?)'
  return undefined
}

/**
 * The workspace's checkout `workspace`, at the start commit `sha`, as a view's lower layer, with
 * its index copied into `into` (made); or why not, in a few words. `git` is the fleet's clone.
 */
export async function workspaceLayer(
  git: Git,
  workspace: string,
  sha: string,
  into: string
): Promise<WorkspaceLayer | { why: string }> {
  if (!path.isAbsolute(workspace) || path.normalize(workspace) !== workspace)
    return { why: 'its path is not absolute and normalised' }
  if (/[,:\\\n]/.test(workspace)) return { why: "its path has ',', ':', '\\' or a newline" }
  const dotGit = path.join(workspace, '.git')
  for (const [name, why] of UNUSUAL) if (await exists(path.join(dotGit, name))) return { why }
  const source = path.join(dotGit, 'index')
  const stat = await lstat(source).catch(() => undefined)
  if (!stat?.isFile()) return { why: 'its index could not be read' }
  const hide = path.join(into, 'hide')
  const index = path.join(into, 'index')
  await mkdir(hide, { recursive: true })
  await copyFile(source, index)
  await utimes(index, stat.atime, stat.mtime)
  const tree = git.tree(workspace, path.join(git.dir, '.git'))
  const env = { GIT_INDEX_FILE: index }
  const quiet = (args: string[]) =>
    tree.exec(args, { env, allowFailure: true }).then(r => r.exitCode === 0)
  const [sameTree, sameFiles, tags, listed, files] = await Promise.all([
    quiet(['diff-index', '--cached', '--quiet', sha, '--']),
    // Every file matches its entry (a changed one "needs update"), and the copy is written with
    // each entry marked unchanged for the views' git (fsmonitor.ts): one pass over the files.
    quiet([...HOST_FSMONITOR, 'update-index', '--refresh']),
    tree.exec(['ls-files', '-v', '-z'], { env, allowFailure: true }),
    git.exec(['ls-tree', '-r', '-l', '-z', sha], { allowFailure: true }),
    filesOf(workspace)
  ])
  if (!sameTree) return { why: 'its index is not the commit' }
  if (!sameFiles) return { why: 'a file changed since it was checked out' }
  if (tags.exitCode !== 0 || tags.stdout.split('\0').some(e => e !== '' && !e.startsWith('H ')))
    return { why: 'its index marks files assume-unchanged or skip-worktree' }
  const sizes = listed.exitCode === 0 ? treeSizes(listed.stdout) : undefined
  if (!sizes) return { why: 'its commit has submodules' }
  if (!files) return { why: 'its files could not be listed' }
  const checkedOut = indexSizes(await readFile(index), sha.length / 2)
  if (!checkedOut) return { why: 'its index could not be read here (a split or sparse index?)' }
  const differ = filesDiffer(files, checkedOut, sizes)
  if (differ) return { why: differ }
  // An empty, unreadable file: hides the `.git` directory below it, whole.
  const marker = path.join(hide, '.git')
  await writeFile(marker, '')
  await chmod(marker, 0o000)
  return { dir: workspace, index, hide, fsmonitor: true }
}
