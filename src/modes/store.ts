import { copyFile, mkdir, readdir, readFile, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { parseShardFile, type ShardFile } from './hand-over.js'

export type { ShardFile }

const PREFIX = 'fleet-outcomes-'

/**
 * Shards hand their outcomes to the report job as files: in a directory shared by the jobs when
 * `outcomes-dir` is set (self-hosted runners, the CLI, the tests), else as run artifacts. A
 * land: false shard's sealed bundles travel beside its outcomes, named in them by file name alone.
 */
export interface OutcomeStore {
  save(file: ShardFile): Promise<void>
  loadAll(): Promise<ShardFile[]>
  /** Where a bundle named in a loaded outcome is; undefined for a name that is not a bare file name. */
  fileOf(name: string): string | undefined
}

/** The store's name for a task's bundle: one per shard and task id. */
const bundleName = (shard: number, id: string) => `fleet-bundle-${shard}-${id}.bundle`

/** Copies each sealed bundle into `dir`; the outcomes then name it by its file name there. */
async function withBundles(
  dir: string,
  file: ShardFile
): Promise<{ json: string; files: string[] }> {
  const files: string[] = []
  const outcomes = await Promise.all(
    file.outcomes.map(async o => {
      if (!o.sealed) return o
      const name = bundleName(file.shard, o.id)
      await copyFile(o.sealed.bundle, path.join(dir, name))
      files.push(path.join(dir, name))
      return { ...o, sealed: { ...o.sealed, bundle: name } }
    })
  )
  return { json: JSON.stringify({ ...file, outcomes }), files }
}

/** A bare file name (no directory, not hidden): all a handed-over outcome may name. */
const isBareName = (name: string) =>
  name !== '' && path.basename(name) === name && !name.startsWith('.')

/**
 * Where a bundle named in a loaded outcome is: `file` in the store, or `<artifact>/<file>` in one
 * of its direct subdirectories (as `readShard` names them); undefined for any other name.
 */
function fileIn(dir: string, name: string): string | undefined {
  const parts = name.split('/')
  return parts.length <= 2 && parts.every(isBareName) ? path.join(dir, ...parts) : undefined
}

/**
 * Where shard files are: `dir` itself (one artifact downloaded with `name:`, or several with
 * `merge-multiple: true`) and its direct subdirectories (several artifacts downloaded without
 * either: actions/download-artifact puts each in `<path>/<artifact name>/`). A symlinked
 * subdirectory is not followed.
 */
async function shardDirs(dir: string): Promise<Array<{ sub: string; names: string[] }>> {
  const top = await readdir(dir, { withFileTypes: true }).catch(() => [])
  const subs = top.filter(e => e.isDirectory() && isBareName(e.name)).map(e => e.name)
  const found = await Promise.all(
    ['', ...subs].map(async sub => ({
      sub,
      names: (await readdir(path.join(dir, sub)).catch(() => [] as string[])).filter(
        n => n.startsWith(PREFIX) && n.endsWith('.json')
      )
    }))
  )
  return found.filter(f => f.names.length > 0)
}

/**
 * One shard file read back and checked (hand-over.ts); a bundle it names is looked up beside it, and named in the outcome
 * by its place under the store (`<artifact name>/<file>` for a subdirectory's).
 */
async function readShard(dir: string, sub: string, name: string): Promise<ShardFile> {
  const file = parseShardFile(
    path.join(sub, name),
    await readFile(path.join(dir, sub, name), 'utf8')
  )
  const outcomes = file.outcomes.map(o => {
    const bundle = o.sealed?.bundle
    if (!o.sealed || bundle === undefined || !isBareName(bundle)) return o
    return { ...o, sealed: { ...o.sealed, bundle: sub ? `${sub}/${bundle}` : bundle } }
  })
  return { ...file, outcomes }
}

export function dirStore(dir: string): OutcomeStore {
  return {
    async save(file) {
      await mkdir(dir, { recursive: true })
      const { json } = await withBundles(dir, file)
      await writeFile(path.join(dir, `${PREFIX}${file.shard}.json`), json)
    },
    async loadAll() {
      const dirs = await shardDirs(dir)
      const files = dirs.flatMap(({ sub, names }) => names.map(n => ({ sub, n })))
      return Promise.all(files.map(({ sub, n }) => readShard(dir, sub, n)))
    },
    fileOf: name => fileIn(dir, name)
  }
}

/** Run artifacts through @actions/artifact (needs the Actions runtime: not testable offline). */
export function artifactStore(tempDir: string): OutcomeStore {
  const local = dirStore(tempDir)
  return {
    async save(file) {
      const { DefaultArtifactClient } = await import('@actions/artifact')
      await mkdir(tempDir, { recursive: true })
      const local = path.join(tempDir, `${PREFIX}${file.shard}.json`)
      const { json, files } = await withBundles(tempDir, file)
      await writeFile(local, json)
      await new DefaultArtifactClient().uploadArtifact(
        `${PREFIX}${file.shard}`,
        [local, ...files],
        tempDir,
        { retentionDays: 7 }
      )
    },
    async loadAll() {
      const { DefaultArtifactClient } = await import('@actions/artifact')
      const client = new DefaultArtifactClient()
      const { artifacts } = await client.listArtifacts({ latest: true })
      const mine = artifacts.filter(a => a.name.startsWith(PREFIX) && isBareName(a.name))
      // Each in a directory of its name, as actions/download-artifact lays several out.
      for (const artifact of mine)
        await client.downloadArtifact(artifact.id, { path: path.join(tempDir, artifact.name) })
      return local.loadAll()
    },
    fileOf: name => local.fileOf(name)
  }
}
