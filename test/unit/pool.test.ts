import { describe, expect, it, vi } from 'vitest'
import { inputTask } from '../support/unit.js'
import type { Outcome } from '../../src/domain.js'
import { emptyOutcome } from '../../src/domain.js'
import { runPool } from '../../src/fleet/pool.js'

const task = inputTask
const tick = () => new Promise(resolve => setTimeout(resolve, 5))

describe('the pool', () => {
  it('holds a slot only for the worker part: the next worker starts while a task still lands', async () => {
    const events: string[] = []
    let bWorks: () => void = () => undefined
    const bStarted = new Promise<void>(resolve => (bWorks = resolve))
    const { outcomes } = await runPool([task('a'), task('b')], {
      maxParallel: 1,
      deadline: () => Infinity,
      run: async (t, slot) => {
        await slot(async () => {
          events.push(`${t.id} works`)
          if (t.id === 'b') bWorks()
          await tick()
        })
        events.push(`${t.id} lands`)
        // a's landing ends only once b's worker has started: a condition, not a time. A pool
        // that held a's slot while it landed would never start b, and the test would time out.
        if (t.id === 'a') await bStarted
        events.push(`${t.id} landed`)
        return emptyOutcome(t, { status: 'pr-opened' })
      }
    })
    expect(outcomes.map(o => o.status)).toEqual(['pr-opened', 'pr-opened'])
    // b's worker started before a had finished landing.
    expect(events.indexOf('b works')).toBeLessThan(events.indexOf('a landed'))
    expect(events.indexOf('a works')).toBeLessThan(events.indexOf('b works'))
  }, 20_000)

  it('ends every task in one outcome: not-started past the deadline, failed when its life throws', async () => {
    let now = 0
    const seen: Outcome[] = []
    const { outcomes } = await runPool([task('a'), task('b'), task('c')], {
      maxParallel: 1,
      now: () => now,
      deadline: () => 10,
      onOutcome: o => seen.push(o),
      run: (t, slot) =>
        slot(() => {
          now += 10
          if (t.id === 'a') return Promise.reject(new Error('boom'))
          return Promise.resolve(emptyOutcome(t, { status: 'pr-opened' }))
        })
    })
    expect(outcomes.map(o => [o.id, o.status])).toEqual([
      ['a', 'failed'],
      ['b', 'not-started'],
      ['c', 'not-started']
    ])
    expect(outcomes[0]?.error).toContain('boom')
    expect(outcomes[1]?.error).toMatch(/deadline/)
    expect(seen).toHaveLength(3)
  })
})

describe('the pool under max-parallel: auto (fake clock, fake readings)', () => {
  const GB = 1024 ** 3
  /** A 2-core machine whose readings a test writes; `running` is how many workers hold a slot. */
  function machine(cpu: (running: number) => number, memGb = 6) {
    const state = { running: 0, peak: 0 }
    return {
      state,
      machine: {
        cores: 2,
        totalMemBytes: 8 * GB,
        read: () => ({
          cpu: { source: 'run-queue' as const, perCore: cpu(state.running) },
          memAvailableBytes: memGb * GB
        })
      }
    }
  }
  /** Each task's worker waits on the model for `ms` of fake time. */
  async function batch(
    n: number,
    opts: Partial<Parameters<typeof runPool>[1]>,
    m = machine(() => 0),
    ms = 10_000,
    starts: number[] = []
  ) {
    vi.useFakeTimers({ now: 0 })
    const fake = m.state
    const done = runPool(
      Array.from({ length: n }, (_, i) => task(`t${i}`)),
      {
        maxParallel: 'auto',
        deadline: () => Infinity,
        machine: m.machine,
        run: (t, slot) =>
          slot(async () => {
            starts.push(Date.now())
            fake.running++
            fake.peak = Math.max(fake.peak, fake.running)
            await new Promise(resolve => setTimeout(resolve, ms))
            fake.running--
            return emptyOutcome(t, { status: 'pushed' })
          }),
        ...opts
      }
    )
    await vi.runAllTimersAsync()
    const result = await done
    vi.useRealTimers()
    return { ...result, starts, peak: fake.peak }
  }

  it('runs twenty latency-bound tasks all at once up to 8 x cores, starts paced', async () => {
    const run = await batch(20, {})
    expect(run.outcomes.every(o => o.status === 'pushed')).toBe(true)
    expect(run.parallelism).toMatchObject({ mode: 'auto', peak: 16, limitedBy: 'hard-cap' })
    expect(run.peak).toBe(16)
    for (let i = 1; i < 16; i++)
      expect(run.starts[i]! - run.starts[i - 1]!).toBeGreaterThanOrEqual(250)
  })

  it('holds at what the CPU carries when pressure rises, and says so', async () => {
    const m = machine(running => (running >= 3 ? 2.5 : 0.5))
    const run = await batch(10, {}, m)
    expect(run.outcomes.every(o => o.status === 'pushed')).toBe(true)
    expect(run.parallelism).toMatchObject({ peak: 3, limitedBy: 'cpu' })
  })

  it("under someone else's CPU load keeps starting while its own workers wait on the model", async () => {
    // The run queue is full whatever this run does. Each worker is on the CPU for its first 500 ms
    // (the CLI starting), then waits on the model; the gateway says since when.
    const onCpuMs = 500
    const starts: number[] = []
    // Running (the batch's workers end at 10 s) and past their start: waiting since start + 500 ms.
    const modelWaits = () =>
      starts.filter(s => s + onCpuMs <= Date.now() && Date.now() < s + 10_000).map(s => s + onCpuMs)
    const run = await batch(
      10,
      { modelWaits },
      machine(() => 9),
      10_000,
      starts
    )
    // Without the gateway's view it holds at the cores: the pressure looks like its own.
    const blind = await batch(
      10,
      {},
      machine(() => 9)
    )
    expect(blind.parallelism).toMatchObject({ peak: 2, limitedBy: 'cpu' })
    expect(run.parallelism.peak).toBeGreaterThan(2)
    expect(run.parallelism).toMatchObject({ peak: 10, limitedBy: 'tasks' })
    // And never more than the cores on the CPU: at each start, fewer than two earlier workers had
    // yet to wait on the model for a second (500 ms on the CPU + 1000 ms waiting).
    for (const [i, t] of run.starts.entries())
      expect(run.starts.slice(0, i).filter(s => t - s < onCpuMs + 1000).length).toBeLessThan(2)
  })

  it('reports that every task had started when the batch is smaller than the room', async () => {
    const run = await batch(3, {})
    expect(run.parallelism).toMatchObject({ peak: 3, limitedBy: 'tasks' })
  })

  it('stops at the upstream limit the gateway reports', async () => {
    const run = await batch(6, { upstreamLimit: () => 2 })
    expect(run.parallelism).toMatchObject({ peak: 2, limitedBy: 'upstream' })
  })

  it('a number is a fixed pool: all of its slots start at once, whatever the CPU says', async () => {
    const m = machine(() => 9)
    const run = await batch(5, { maxParallel: 3 }, m)
    expect(run.starts.slice(0, 3)).toEqual([0, 0, 0])
    expect(run.parallelism).toMatchObject({ mode: 'fixed', peak: 3, limitedBy: 'max-parallel' })
  })

  it('tasks still waiting when the deadline passes end not-started', async () => {
    const m = machine(running => (running >= 2 ? 9 : 0))
    const run = await batch(4, { deadline: () => 5_000 }, m, 8_000)
    expect(run.outcomes.map(o => o.status)).toEqual([
      'pushed',
      'pushed',
      'not-started',
      'not-started'
    ])
    expect(run.outcomes[2]?.error).toMatch(/deadline/)
  })
})
