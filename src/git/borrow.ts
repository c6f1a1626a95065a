/**
 * No second download: the objects the workspace's checkout already holds (actions/checkout has
 * just fetched them) are linked into the fleet's clone, so its fetch brings only what is missing.
 *
 * Objects only, read as files: no git command runs in the checkout and nothing of its `.git` but
 * `objects/` (pack and loose object files) and `HEAD` with the ref it names is read. Its config
 * holds the token's extraheader (and could hold anything a step before wrote); its
 * `objects/info` (alternates, commit-graph) is not followed. An object is named by its hash, so a
 * borrowed one is what the fleet's git expects or is never used. Hard links, where the checkout
 * and the fleet's clone share a filesystem (RUNNER_TEMP and the workspace do on hosted runners),
 * else a copy. Not an `alternates` entry: the sandbox shows the fleet clone's objects to a worker's
 * clone, and the checkout's must stay out of sight.
 */
import { copyFile, link, lstat, mkdir, readdir, readFile } from 'node:fs/promises'
import path from 'node:path'

export interface Borrowed {
  /** Object files linked or copied (packs, their indexes, loose objects). */
  files: number
  /** The checkout's HEAD commit, a "have" for the fetch when its history is whole or cut. */
  head?: string
  /**
   * Its history is cut (a `fetch-depth: 1` checkout): the commits its `.git/shallow` names, whose
   * parents it lacks. The fleet's clone takes the same boundary, so it stays shallow too.
   */
  shallow?: string[]
  /** Its objects are partial (a `filter:` checkout): some the fleet's git would need are missing. */
  partial: boolean
}

const PACK_FILE = /^pack-[0-9a-f]{40,64}\.(pack|idx|rev)$/
const LOOSE_DIR = /^[0-9a-f]{2}$/
const LOOSE_FILE = /^[0-9a-f]{38,62}$/
const SHA = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/

const isDir = (p: string) =>
  lstat(p).then(
    s => s.isDirectory(),
    () => false
  )

async function linkOrCopy(from: string, to: string): Promise<void> {
  await link(from, to).catch(async (error: NodeJS.ErrnoException) => {
    if (error.code === 'EEXIST') return
    await copyFile(from, to)
  })
}

/**
 * The object files under `objects`, as [relative path] (regular files only, never symlinks). The
 * directories are read side by side, each entry's type from the listing itself (an entry of
 * unknown type is lstat'ed by node, as before): no lstat per object file.
 */
async function objectFiles(objects: string): Promise<string[]> {
  const dirs = (await readdir(objects, { withFileTypes: true })).filter(
    d => d.isDirectory() && (d.name === 'pack' || LOOSE_DIR.test(d.name))
  )
  const listed = await Promise.all(
    dirs.map(async ({ name }) => {
      const wanted = name === 'pack' ? PACK_FILE : LOOSE_FILE
      const entries = await readdir(path.join(objects, name), { withFileTypes: true })
      return entries.filter(e => e.isFile() && wanted.test(e.name)).map(e => `${name}/${e.name}`)
    })
  )
  return listed.flat()
}

/** The checkout's HEAD commit, read as data: a detached sha, or the branch ref it names. */
async function headOf(gitDir: string): Promise<string | undefined> {
  const head = (await readFile(path.join(gitDir, 'HEAD'), 'utf8').catch(() => '')).trim()
  if (SHA.test(head)) return head
  const ref = /^ref: (refs\/heads\/[^\s.][^\s]*)$/.exec(head)?.[1]
  if (!ref || ref.includes('..')) return undefined
  const loose = (await readFile(path.join(gitDir, ref), 'utf8').catch(() => '')).trim()
  if (SHA.test(loose)) return loose
  const packed = await readFile(path.join(gitDir, 'packed-refs'), 'utf8').catch(() => '')
  const line = packed.split('\n').find(l => l.endsWith(` ${ref}`))
  const sha = line?.split(' ')[0]
  return sha && SHA.test(sha) ? sha : undefined
}

/**
 * Links the objects of the checkout at `checkout` into the objects dir `into`. Undefined when
 * `checkout` has no `.git` directory of its own (not a checkout, or a gitfile or symlink).
 */
export async function borrowObjects(checkout: string, into: string): Promise<Borrowed | undefined> {
  const gitDir = path.join(checkout, '.git')
  const objects = path.join(gitDir, 'objects')
  if (!(await isDir(gitDir)) || !(await isDir(objects))) return undefined
  const files = await objectFiles(objects)
  const dirs = new Set(files.map(f => path.dirname(f)))
  await Promise.all([...dirs].map(d => mkdir(path.join(into, d), { recursive: true })))
  for (let i = 0; i < files.length; i += 64)
    await Promise.all(
      files.slice(i, i + 64).map(f => linkOrCopy(path.join(objects, f), path.join(into, f)))
    )
  const packDir = path.join(objects, 'pack')
  const partial = (await isDir(packDir))
    ? (await readdir(packDir)).some(f => f.endsWith('.promisor'))
    : false
  return {
    files: files.length,
    head: await headOf(gitDir),
    shallow: await shallowOf(gitDir),
    partial
  }
}

/**
 * The commits the checkout's `.git/shallow` names (read as data, a regular file only); undefined
 * when it has none (its history is whole). A line that is not a commit id makes the whole list
 * unusable: `[]`, a cut history whose boundary is unknown.
 */
async function shallowOf(gitDir: string): Promise<string[] | undefined> {
  const file = path.join(gitDir, 'shallow')
  const info = await lstat(file).catch(() => undefined)
  if (!info) return undefined
  // Not a regular file (a symlink, a directory): the history is cut, where is not read.
  if (!info.isFile()) return []
  const lines = (await readFile(file, 'utf8')).split('\n').filter(Boolean)
  return lines.every(l => SHA.test(l)) ? lines : []
}
