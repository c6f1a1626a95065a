/**
 * What setup changed in a task's view, read from the view's private (upper) layer on the host, so
 * its leftover check (setup-check.ts) looks at those paths alone instead of walking every file of
 * the task's fresh mount. Everything a cage changes in an overlay is in its upper layer: a new or
 * changed file (copied up), a removal (a whiteout: a 0/0 character device), a directory removed
 * and made again (an opaque directory, which hides the lower layer's entries below it). The layer
 * is read as data (lstat and readdir, nothing followed or opened) after setup's cage has ended;
 * anything odd or too large and the answer is `whole`: the check walks the whole view, as before.
 */
import type { Dirent, Stats } from 'node:fs'
import { lstat, readdir } from 'node:fs/promises'
import path from 'node:path'

/** Entries of the upper layer read at most: a setup that changed more gets the whole walk. */
const MAX_ENTRIES = 10_000
/** The paths handed to git, in bytes (they go on its command line): past it, the whole walk. */
const MAX_BYTES = 256 * 1024
/** Directories looked into for a probe under one lower entry (lowerProbe). */
const MAX_PROBE_STEPS = 64

/**
 * The paths git must look at: every upper entry outside a directory the lower layer also has
 * (a new directory is one path; a directory both layers have is looked into), and one `probe`
 * per such directory whose lower layer has entries the upper lacks: a lower file that shows
 * unless the directory is opaque (or below one). A probe git reports as changed means a
 * directory was removed and made again: the caller then walks the whole view.
 */
export type LayerPaths = { paths: string[]; probes: string[] } | { whole: string }

/** A name as a string, when it is UTF-8 that comes back to the same bytes (git gets strings). */
function nameOf(raw: Buffer): string | undefined {
  const name = raw.toString('utf8')
  return Buffer.from(name, 'utf8').equals(raw) ? name : undefined
}

const isDir = (p: string) =>
  lstat(p).then(
    (s: Stats) => s.isDirectory(),
    () => false
  )

async function entries(dir: string): Promise<Dirent<Buffer>[]> {
  return readdir(dir, { encoding: 'buffer', withFileTypes: true })
}

/** A file (anything not a directory) under `rel` in `lower`, depth first, or undefined. */
async function lowerProbe(
  lower: string,
  rel: string,
  budget: { steps: number }
): Promise<string | undefined> {
  if (--budget.steps < 0) return undefined
  for (const e of await entries(path.join(lower, rel))) {
    const name = nameOf(e.name)
    if (name === undefined || name === '.git') continue
    const p = path.posix.join(rel, name)
    if (!(await isDir(path.join(lower, p)))) return p
    const found = await lowerProbe(lower, p, budget)
    if (found) return found
  }
  return undefined
}

/**
 * Lists what setup changed in a view whose private layer is `upper` over `lower` (the checkout:
 * exactly a commit's files, and a `.git` at its root, which git never lists). Read only after
 * setup's cage has ended, so nothing writes the layer while it is read.
 */
export async function layerPaths(
  upper: string,
  lower: string,
  maxEntries = MAX_ENTRIES
): Promise<LayerPaths> {
  const paths: string[] = []
  const probes: string[] = []
  let count = 0
  let bytes = 0
  const add = (p: string) => {
    paths.push(p)
    bytes += Buffer.byteLength(p) + 1
  }
  const dirs = ['']
  try {
    for (let rel = dirs.pop(); rel !== undefined; rel = dirs.pop()) {
      const upperNames = new Set<string>()
      for (const e of await entries(path.join(upper, rel))) {
        if (++count > maxEntries) return { whole: `setup changed over ${maxEntries} entries` }
        const name = nameOf(e.name)
        if (name === undefined) return { whole: 'a name that is not UTF-8' }
        upperNames.add(name)
        // git never lists a `.git`: a nested repository shows as its new directory.
        if (name === '.git') continue
        const p = path.posix.join(rel, name)
        const dir = e.isDirectory() || (isUnknown(e) && (await isDir(path.join(upper, p))))
        if (dir && (await isDir(path.join(lower, p)))) dirs.push(p)
        else add(p)
      }
      const hidden: string[] = []
      for (const e of await entries(path.join(lower, rel))) {
        const name = nameOf(e.name)
        if (name === undefined) return { whole: 'a name that is not UTF-8' }
        if (!upperNames.has(name) && !(rel === '' && name === '.git')) hidden.push(name)
      }
      // The view's root is never opaque: it is the mount itself, which no cage can remove.
      if (hidden.length === 0 || rel === '') continue
      const budget = { steps: MAX_PROBE_STEPS }
      let probe: string | undefined
      for (const name of hidden) {
        const p = path.posix.join(rel, name)
        probe = (await isDir(path.join(lower, p))) ? await lowerProbe(lower, p, budget) : p
        if (probe || budget.steps < 0) break
      }
      if (!probe) return { whole: `no file to probe under ${rel || 'the root'}` }
      probes.push(probe)
      add(probe)
      if (bytes > MAX_BYTES) return { whole: `setup's paths pass ${MAX_BYTES} bytes` }
    }
  } catch (error) {
    return { whole: `its private layer could not be read (${String(error)})` }
  }
  if (bytes > MAX_BYTES) return { whole: `setup's paths pass ${MAX_BYTES} bytes` }
  return { paths, probes }
}

/** A directory entry whose type the filesystem did not say (DT_UNKNOWN). */
function isUnknown(e: Dirent<Buffer>): boolean {
  return !(
    e.isFile() ||
    e.isDirectory() ||
    e.isSymbolicLink() ||
    e.isFIFO() ||
    e.isSocket() ||
    e.isCharacterDevice() ||
    e.isBlockDevice()
  )
}
