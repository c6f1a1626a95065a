// Issue 17: the stop signal is the run's, not the process's: a cancelled run stops its own
// workers, and a later run in the same process starts its workers as usual.
import { mkdtemp, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { spawnWorker, type SpawnOptions } from '../../src/worker/spawn.js'

let dir: string
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'fleet-stop-'))
})
afterAll(() => rm(dir, { recursive: true, force: true }))

/** Resolves once `file` exists. */
async function until(file: string): Promise<void> {
  while (!(await stat(file).catch(() => undefined))) await new Promise(r => setTimeout(r, 20))
}

const worker = (script: string, signal?: AbortSignal): SpawnOptions => ({
  file: 'sh',
  args: ['-c', script],
  env: { PATH: process.env.PATH ?? '' },
  cwd: dir,
  stdin: '',
  timeoutMs: 20_000,
  transcriptPath: path.join(dir, `t-${Math.random()}.jsonl`),
  signal
})

describe("a run's stop signal", () => {
  it('stops its running worker, whose exit says why', async () => {
    const stop = new AbortController()
    const ready = path.join(dir, 'stops.ready')
    const running = spawnWorker(worker(`touch ${ready}; sleep 30`, stop.signal))
    // Cancelled once the worker runs (a condition, not a fixed time: under load a start is slow).
    await until(ready)
    const stopped = Date.now()
    stop.abort('the run was cancelled')
    const exit = await running
    expect(exit.stopped).toBe('the run was cancelled')
    expect(exit.signal).toBe('SIGTERM')
    // Well before its sleep's end: the stop ended it, not the sleep.
    expect(Date.now() - stopped).toBeLessThan(20_000)
  })

  it('starts no worker once aborted', async () => {
    const stop = new AbortController()
    stop.abort('the run was cancelled')
    const exit = await spawnWorker(worker(`touch ${path.join(dir, 'ran')}; exit 0`, stop.signal))
    expect(exit).toMatchObject({ exitCode: null, stopped: 'the run was cancelled' })
    await expect(stat(path.join(dir, 'ran'))).rejects.toThrow(/ENOENT/)
  })

  it("leaves another run's workers alone", async () => {
    const first = new AbortController()
    const second = new AbortController()
    const ready = path.join(dir, 'first.ready')
    const a = spawnWorker(worker(`touch ${ready}; sleep 30`, first.signal))
    const b = spawnWorker(worker('sleep 1; exit 3', second.signal))
    await until(ready)
    first.abort('the run was cancelled')
    expect((await a).stopped).toBe('the run was cancelled')
    const other = await b
    expect(other).toMatchObject({ exitCode: 3, timedOut: false })
    expect(other.stopped).toBeUndefined()
  })

  it('a worker that exited before the cancel is not called stopped', async () => {
    const stop = new AbortController()
    const exit = await spawnWorker(worker('exit 0', stop.signal))
    stop.abort('the run was cancelled')
    expect(exit.exitCode).toBe(0)
    expect(exit.stopped).toBeUndefined()
  })
})
