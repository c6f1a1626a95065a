import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises'
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
 * `outcomes-dir` is set (self-hosted runners, the CLI, the tests), else as run artifacts.
 */
export interface OutcomeStore {
  save(file: ShardFile): Promise<void>
  loadAll(): Promise<ShardFile[]>
}

export function dirStore(dir: string): OutcomeStore {
  return {
    async save(file) {
      await mkdir(dir, { recursive: true })
      await writeFile(path.join(dir, `${PREFIX}${file.shard}.json`), JSON.stringify(file))
    },
    async loadAll() {
      const names = (await readdir(dir).catch(() => [] as string[])).filter(
        n => n.startsWith(PREFIX) && n.endsWith('.json')
      )
      return Promise.all(
        names.map(async n => JSON.parse(await readFile(path.join(dir, n), 'utf8')) as ShardFile)
      )
    }
  }
}

/** Run artifacts through @actions/artifact (needs the Actions runtime: not testable offline). */
export function artifactStore(tempDir: string): OutcomeStore {
  return {
    async save(file) {
      const { DefaultArtifactClient } = await import('@actions/artifact')
      await mkdir(tempDir, { recursive: true })
      const local = path.join(tempDir, `${PREFIX}${file.shard}.json`)
      await writeFile(local, JSON.stringify(file))
      await new DefaultArtifactClient().uploadArtifact(`${PREFIX}${file.shard}`, [local], tempDir, {
        retentionDays: 7
      })
    },
    async loadAll() {
      const { DefaultArtifactClient } = await import('@actions/artifact')
      const client = new DefaultArtifactClient()
      const { artifacts } = await client.listArtifacts({ latest: true })
      const mine = artifacts.filter(a => a.name.startsWith(PREFIX))
      for (const artifact of mine) await client.downloadArtifact(artifact.id, { path: tempDir })
      return dirStore(tempDir).loadAll()
    }
  }
}
