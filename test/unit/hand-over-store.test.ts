// The hand-over directory as actions/download-artifact leaves it: flat (one artifact downloaded
// with `name:`, or several with `merge-multiple: true`) or one directory per artifact (several,
// without either). mode: land must find every shard file and each bundle beside the file naming it.
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { ZERO_USAGE } from '../../src/domain.js'
import { dirStore, type ShardFile } from '../../src/modes/store.js'

let root: string
beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'fleet-store-'))
})
afterEach(async () => {
  await rm(root, { recursive: true, force: true })
})

const shard = (n: number, id: string, bundle: string): ShardFile => ({
  shard: n,
  outcomes: [
    {
      id,
      title: id,
      status: 'ready',
      branch: `fleet/${id}`,
      source: { kind: 'input' },
      turns: 1,
      durationMs: 10,
      usage: ZERO_USAGE,
      attempts: 1,
      sealed: { bundle, start: 'a'.repeat(40), pr: true, prompt: 'p' }
    }
  ]
})

async function put(dir: string, file: ShardFile, bundle: string) {
  await mkdir(dir, { recursive: true })
  await writeFile(path.join(dir, `fleet-outcomes-${file.shard}.json`), JSON.stringify(file))
  await writeFile(path.join(dir, bundle), 'bundle bytes')
}

const bundlesOf = (files: ShardFile[]) =>
  files.flatMap(f => f.outcomes.map(o => o.sealed?.bundle ?? '')).sort()

describe('the hand-over store', () => {
  it('reads a flat download (name: or merge-multiple)', async () => {
    await put(root, shard(0, 't1', 'fleet-bundle-0-t1.bundle'), 'fleet-bundle-0-t1.bundle')
    await put(root, shard(1, 't2', 'fleet-bundle-1-t2.bundle'), 'fleet-bundle-1-t2.bundle')
    const store = dirStore(root)
    const files = await store.loadAll()
    expect(bundlesOf(files)).toEqual(['fleet-bundle-0-t1.bundle', 'fleet-bundle-1-t2.bundle'])
    expect(store.fileOf('fleet-bundle-0-t1.bundle')).toBe(
      path.join(root, 'fleet-bundle-0-t1.bundle')
    )
  })

  it('reads one directory per artifact, each bundle beside the file that names it', async () => {
    // Both shards name a bundle of the same file name: only their directories tell them apart.
    await put(path.join(root, 'hand-over-0'), shard(0, 't1', 'b.bundle'), 'b.bundle')
    await put(path.join(root, 'hand-over-1'), shard(1, 't2', 'b.bundle'), 'b.bundle')
    const store = dirStore(root)
    const files = await store.loadAll()
    expect(files.map(f => f.shard).sort()).toEqual([0, 1])
    expect(bundlesOf(files)).toEqual(['hand-over-0/b.bundle', 'hand-over-1/b.bundle'])
    expect(store.fileOf('hand-over-1/b.bundle')).toBe(path.join(root, 'hand-over-1', 'b.bundle'))
  })

  it('names no file outside the store, nor deeper than one directory', () => {
    const store = dirStore(root)
    for (const name of ['', '../x.bundle', '/etc/passwd', 'a/b/c.bundle', 'a/../b', '.git', 'a/.x'])
      expect(store.fileOf(name), name).toBeUndefined()
  })

  it('leaves a bundle name that is not a bare file name as it was (land refuses it)', async () => {
    await put(path.join(root, 'art'), shard(0, 't1', '../../etc/passwd'), 'x.bundle')
    const store = dirStore(root)
    const [file] = await store.loadAll()
    const name = file?.outcomes[0]?.sealed?.bundle ?? ''
    expect(name).toBe('../../etc/passwd')
    expect(store.fileOf(name)).toBeUndefined()
  })

  it('does not follow a symlinked directory', async () => {
    const elsewhere = await mkdtemp(path.join(tmpdir(), 'fleet-store-elsewhere-'))
    try {
      await put(elsewhere, shard(0, 't1', 'b.bundle'), 'b.bundle')
      await symlink(elsewhere, path.join(root, 'linked'))
      expect(await dirStore(root).loadAll()).toEqual([])
    } finally {
      await rm(elsewhere, { recursive: true, force: true })
    }
  })
})
