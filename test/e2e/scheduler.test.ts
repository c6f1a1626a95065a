/**
 * max-parallel: auto, end to end through dist/: how wide a batch runs is checked by behaviour
 * (the summary's peak parallelism, and the model server's view of which workers overlapped),
 * never by time. The machine this runs on is shared and its CPU load varies, so each test fixes
 * the CPU demand the scheduler reads through the test-only FLEET_WORKER_TEST_CPU_DEMAND
 * (src/fleet/machine.ts); everything else (memory, pacing, the caps, the workers) is real.
 */
import os from 'node:os'
import { describe, expect, it } from 'vitest'
import { expectOk, useStack } from '../support/scenario.js'
import { TEST_CPU_DEMAND_ENV } from '../../src/fleet/machine.js'
import { type RecordedRequest, script } from '../../demo/model-server.js'
import { OWNER, REPO, results } from '../../demo/stack.js'

const FULL = `${OWNER}/${REPO}`
const peakOf = (summary: string) => Number(/Peak parallelism: (\d+) workers/.exec(summary)?.[1])

/** Each task's first and last model request, as [arrival, arrival + the turn's hold]. */
function spans(requests: RecordedRequest[], holdMs: number): Map<string, [number, number]> {
  const out = new Map<string, [number, number]>()
  for (const r of requests) {
    if (!r.key || r.outcome !== 'reply') continue
    const [a, b] = out.get(r.key) ?? [Infinity, -Infinity]
    out.set(r.key, [Math.min(a, r.at), Math.max(b, r.at + holdMs)])
  }
  return out
}

/** The most tasks with a model request held open at one moment. */
function mostAtOnce(requests: RecordedRequest[], holdMs: number): number {
  const edges = requests
    .filter(r => r.outcome === 'reply')
    .flatMap(r => [
      [r.at, 1],
      [r.at + holdMs, -1]
    ])
    .sort((x, y) => x[0]! - y[0]! || x[1]! - y[1]!)
  let open = 0
  let most = 0
  for (const [, d] of edges) most = Math.max(most, (open += d!))
  return most
}

describe('max-parallel: auto (the default)', () => {
  const stack = useStack()

  it('runs twelve latency-bound tasks more than four at once, and every one lands', async () => {
    const HOLD = 2000
    const tasks = Array.from({ length: 12 }, (_, i) => {
      const key = `wide${String(i + 1).padStart(2, '0')}`
      return {
        id: key,
        prompt: `Write ${key}.txt\n${script({
          key,
          delayMs: HOLD,
          steps: [
            { tool: 'Write', input: { file_path: `${key}.txt`, content: `from ${key}\n` } },
            { tool: 'Bash', input: { command: `wc -l ${key}.txt` } },
            { text: `Wrote ${key}.txt.` }
          ]
        })}`
      }
    })
    const run = await stack.run({
      // Blank = unset, so the input's default applies (the stack's own default is 2).
      inputs: { tasks: JSON.stringify(tasks), 'max-parallel': '' },
      env: { [TEST_CPU_DEMAND_ENV]: '0' },
      timeoutMs: 240_000
    })
    expectOk(run)
    expect(results(run).map(r => r.status)).toEqual(Array(12).fill('pr-opened'))
    for (const t of tasks)
      expect(await stack.git.readFile(FULL, `fleet/${t.id}`, `${t.id}.txt`)).toBe(`from ${t.id}\n`)
    // With the CPU calm the scheduler goes past four (its hard cap is 8 x cores).
    expect(run.summary).toMatch(
      /Peak parallelism: \d+ workers at once \(max-parallel: auto, \d+ cores\)/
    )
    expect(peakOf(run.summary)).toBeGreaterThan(4)
    // The model's side agrees: more than four workers had a request open at the same moment.
    const requests = tasks.flatMap(t => stack.model.requestsFor(t.id))
    expect(mostAtOnce(requests, HOLD)).toBeGreaterThan(4)
  })

  it('under CPU pressure still goes past the cores while its workers wait on the model', async () => {
    // The run queue reads full (someone else's work); each task's three turns are held 2.5 s. A
    // worker waiting on the model for 1 s or more is off the CPU, so more than the cores start.
    const HOLD = 2500
    const cores = os.availableParallelism()
    const tasks = Array.from({ length: cores + 4 }, (_, i) => {
      const key = `wait${String(i + 1).padStart(2, '0')}`
      return {
        id: key,
        prompt: `Write ${key}.txt\n${script({
          key,
          delayMs: HOLD,
          steps: [
            { tool: 'Write', input: { file_path: `${key}.txt`, content: `from ${key}\n` } },
            { tool: 'Bash', input: { command: `wc -l ${key}.txt` } },
            { text: `Wrote ${key}.txt.` }
          ]
        })}`
      }
    })
    const run = await stack.run({
      inputs: { tasks: JSON.stringify(tasks), 'max-parallel': 'auto' },
      env: { [TEST_CPU_DEMAND_ENV]: '3' },
      timeoutMs: 240_000
    })
    expectOk(run)
    expect(results(run).map(r => r.status)).toEqual(Array(tasks.length).fill('pr-opened'))
    expect(peakOf(run.summary), run.summary).toBeGreaterThan(cores)
    // The model's side agrees: more tasks than cores had a request open at the same moment.
    const requests = tasks.flatMap(t => stack.model.requestsFor(t.id))
    expect(mostAtOnce(requests, HOLD)).toBeGreaterThan(cores)
  })

  it('under CPU pressure runs CPU-burning tasks no wider than the cores, and says the CPU held it', async () => {
    const HOLD = 100
    const burn = "timeout 2 sh -c 'while :; do :; done' || true"
    const ids = Array.from({ length: 6 }, (_, i) => `burn${i + 1}`)
    const tasks = ids.map(key => ({
      id: key,
      prompt: `Burn CPU, then write ${key}.txt\n${script({
        key,
        delayMs: HOLD,
        steps: [
          { tool: 'Bash', input: { command: burn } },
          { tool: 'Write', input: { file_path: `${key}.txt`, content: `from ${key}\n` } },
          { text: `Wrote ${key}.txt.` }
        ]
      })}`
    }))
    const run = await stack.run({
      inputs: { tasks: JSON.stringify(tasks), 'max-parallel': 'auto' },
      env: { [TEST_CPU_DEMAND_ENV]: '3' },
      timeoutMs: 240_000
    })
    expectOk(run)
    expect(results(run).map(r => r.status)).toEqual(Array(6).fill('pr-opened'))
    const line =
      /Peak parallelism: (\d+) workers? at once \(max-parallel: auto, (\d+) cores\); it stopped there because the CPU had no room/.exec(
        run.summary
      )
    expect(line, run.summary).not.toBeNull()
    const cores = Number(line?.[2])
    // As many as the cores (they cannot crowd each other off them), and not one more.
    expect(Number(line?.[1])).toBe(Math.min(cores, tasks.length))
    // The model's side agrees: never more tasks alive at once than cores.
    const alive = [
      ...spans(
        tasks.flatMap(t => stack.model.requestsFor(t.id)),
        HOLD
      ).values()
    ]
    const edges = alive.flatMap(([a, b]) => [
      [a, 1],
      [b, -1]
    ])
    edges.sort((x, y) => x[0]! - y[0]! || x[1]! - y[1]!)
    let open = 0
    let most = 0
    for (const [, d] of edges) most = Math.max(most, (open += d!))
    expect(alive).toHaveLength(6)
    expect(most).toBeLessThanOrEqual(cores)
  })
})
