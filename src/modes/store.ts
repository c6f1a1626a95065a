import { copyFile, mkdir, readdir, readFile, writeFile } from 'node:fs/promises'
import path from 'node:path'
import type { Outcome } from '../domain.js'
import type { QueueLabels } from '../github/queue.js'

/** One shard's outcomes, as the report job reads them back. */
export interface ShardFile {
  shard: number
  outcomes: Outcome[]
  queue?: QueueLabels
}

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

function fileIn(dir: string, name: string): string | undefined {
  return name !== '' && path.basename(name) === name && !name.startsWith('.')
    ? path.join(dir, name)
    : undefined
}

export function dirStore(dir: string): OutcomeStore {
  return {
    async save(file) {
      await mkdir(dir, { recursive: true })
      const { json } = await withBundles(dir, file)
      await writeFile(path.join(dir, `${PREFIX}${file.shard}.json`), json)
    },
    async loadAll() {
      const names = (await readdir(dir).catch(() => [] as string[])).filter(
        n => n.startsWith(PREFIX) && n.endsWith('.json')
      )
      return Promise.all(
        names.map(async n => JSON.parse(await readFile(path.join(dir, n), 'utf8')) as ShardFile)
      )
    },
    fileOf: name => fileIn(dir, name)
  }
}

/** Run artifacts through @actions/artifact (needs the Actions runtime: not testable offline). */
export function artifactStore(tempDir: string): OutcomeStore {
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
      const mine = artifacts.filter(a => a.name.startsWith(PREFIX))
      for (const artifact of mine) await client.downloadArtifact(artifact.id, { path: tempDir })
      return dirStore(tempDir).loadAll()
    },
    fileOf: name => fileIn(tempDir, name)
  }
}
