import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { decide, hardCap, limitsFor, type Readings } from '../../src/fleet/scheduler.js'

const GB = 1024 ** 3
const auto = limitsFor('auto', 2, 8 * GB)
const calm: Readings = {
  now: 10_000,
  running: 3,
  warming: 0,
  lastStartAt: 0,
  cpu: { source: 'run-queue', perCore: 0.2 },
  memAvailableBytes: 6 * GB
}

describe('the scheduler', () => {
  it('in auto starts the next worker while the machine has room, up to 8 x cores', () => {
    expect(auto.cap).toBe(16)
    expect(decide(calm, auto)).toEqual({ kind: 'start' })
    expect(decide({ ...calm, running: 15 }, auto)).toEqual({ kind: 'start' })
    expect(decide({ ...calm, running: 16 }, auto)).toEqual({
      kind: 'wait',
      reason: 'hard-cap',
      ms: Infinity
    })
  })

  it('waits while two threads per core are ready to run, by run queue or by load average', () => {
    expect(decide({ ...calm, cpu: { source: 'run-queue', perCore: 2 } }, auto)).toEqual({
      kind: 'wait',
      reason: 'cpu',
      ms: 250
    })
    expect(decide({ ...calm, cpu: { source: 'run-queue', perCore: 1.9 } }, auto).kind).toBe('start')
    expect(decide({ ...calm, cpu: { source: 'load', perCore: 2.4 } }, auto)).toMatchObject({
      reason: 'cpu'
    })
    expect(decide({ ...calm, cpu: { source: 'load', perCore: 0.5 } }, auto).kind).toBe('start')
    // No reading at all: the hard cap and pacing are the bounds.
    expect(decide({ ...calm, cpu: undefined }, auto).kind).toBe('start')
  })

  it('lets as many workers as cores run whatever the pressure: it is then not theirs', () => {
    const hot = { ...calm, cpu: { source: 'run-queue', perCore: 6 } } as const
    expect(decide({ ...hot, running: 1 }, auto).kind).toBe('start')
    expect(decide({ ...hot, running: 2 }, auto)).toMatchObject({ reason: 'cpu' })
  })

  it('does not count workers waiting on the model a second or more towards the cores', () => {
    const hot = { ...calm, cpu: { source: 'run-queue', perCore: 6 } } as const
    expect(auto.modelWaitMs).toBe(1000)
    // Three running on two cores, two of them waiting on a model turn for 1 s: one on the CPU.
    const waits = [calm.now - 1000, calm.now - 2500]
    expect(decide({ ...hot, modelWaitsSince: waits }, auto).kind).toBe('start')
    // Only one waiting: two may want the CPU, as many as the cores, and the run queue is full.
    expect(decide({ ...hot, modelWaitsSince: [calm.now - 3000] }, auto)).toMatchObject({
      reason: 'cpu'
    })
    // A wait shorter than a worker's start ends before a new start would be done: still on the CPU.
    expect(
      decide({ ...hot, modelWaitsSince: [calm.now - 999, calm.now - 3000] }, auto)
    ).toMatchObject({ reason: 'cpu' })
    // With room in the run queue nothing changes; and a fixed pool never reads it.
    expect(decide({ ...calm, modelWaitsSince: [] }, auto).kind).toBe('start')
    const fixed = limitsFor(3, 2, 8 * GB)
    expect(decide({ ...hot, modelWaitsSince: waits }, fixed)).toMatchObject({
      reason: 'max-parallel'
    })
  })

  it('keeps a memory reserve for each worker, counting those too new to show', () => {
    const reserve = auto.workerReserveBytes
    const floor = auto.memoryFloorBytes
    const justEnough = { ...calm, memAvailableBytes: floor + reserve }
    expect(decide(justEnough, auto).kind).toBe('start')
    expect(decide({ ...justEnough, memAvailableBytes: floor + reserve - 1 }, auto)).toMatchObject({
      kind: 'wait',
      reason: 'memory'
    })
    // Two workers started a moment ago have not allocated yet: their reserves are held back too.
    expect(decide({ ...justEnough, warming: 2 }, auto)).toMatchObject({ reason: 'memory' })
  })

  it("keeps a disk reserve for each task on the fleet's filesystem, in a fixed pool too", () => {
    const reserve = auto.workerDiskBytes
    const floor = auto.diskFloorBytes
    const justEnough = { ...calm, diskFreeBytes: floor + reserve }
    expect(decide(justEnough, auto).kind).toBe('start')
    expect(decide({ ...justEnough, diskFreeBytes: floor + reserve - 1 }, auto)).toEqual({
      kind: 'wait',
      reason: 'disk',
      ms: 1000
    })
    expect(decide({ ...justEnough, warming: 1 }, auto)).toMatchObject({ reason: 'disk' })
    expect(decide({ ...calm, diskFreeBytes: 0 }, limitsFor(6, 2, 8 * GB))).toMatchObject({
      reason: 'disk'
    })
    // Nothing running: one task still starts (a batch must move), and an unknown reading holds nothing.
    expect(decide({ ...calm, running: 0, diskFreeBytes: 0 }, auto).kind).toBe('start')
    expect(decide({ ...calm, diskFreeBytes: undefined }, auto).kind).toBe('start')
  })

  it('paces starts to spread the CLI start-up CPU, and says how long to wait', () => {
    expect(auto.paceMs).toBe(250)
    expect(decide({ ...calm, lastStartAt: calm.now - 100 }, auto)).toEqual({
      kind: 'wait',
      reason: 'pacing',
      ms: 150
    })
    expect(decide({ ...calm, lastStartAt: calm.now - 250 }, auto).kind).toBe('start')
  })

  it("starts no worker whose requests would only queue at the endpoint's concurrency", () => {
    expect(decide({ ...calm, upstreamLimit: 3 }, auto)).toMatchObject({ reason: 'upstream' })
    expect(decide({ ...calm, upstreamLimit: 4 }, auto).kind).toBe('start')
    expect(decide({ ...calm, upstreamLimit: undefined }, auto).kind).toBe('start')
  })

  it('always starts one worker when none runs, even on a busy machine', () => {
    const busy: Readings = {
      ...calm,
      running: 0,
      lastStartAt: calm.now,
      cpu: { source: 'run-queue', perCore: 9 },
      memAvailableBytes: 0,
      upstreamLimit: 0
    }
    expect(decide(busy, auto)).toEqual({ kind: 'start' })
  })

  it('a number is a fixed pool: that many at once, no pacing and no CPU gate; memory still holds', () => {
    const fixed = limitsFor(6, 2, 8 * GB)
    const hot: Readings = {
      ...calm,
      lastStartAt: calm.now,
      cpu: { source: 'run-queue', perCore: 9 }
    }
    expect(decide({ ...hot, running: 5 }, fixed)).toEqual({ kind: 'start' })
    expect(decide({ ...hot, running: 6 }, fixed)).toEqual({
      kind: 'wait',
      reason: 'max-parallel',
      ms: Infinity
    })
    expect(decide({ ...hot, memAvailableBytes: 0 }, fixed)).toMatchObject({ reason: 'memory' })
    // A fixed size above the hard cap is the user's choice.
    expect(limitsFor(20, 2, 8 * GB).cap).toBe(20)
  })

  it('never exceeds its cap, never starts inside the pace, never stalls an empty pool', () => {
    const reading = fc.record({
      now: fc.integer({ min: 0, max: 1e9 }),
      running: fc.integer({ min: 0, max: 100 }),
      warming: fc.integer({ min: 0, max: 20 }),
      sinceLast: fc.option(fc.integer({ min: 0, max: 5000 }), { nil: undefined }),
      perCore: fc.double({ min: 0, max: 50, noNaN: true }),
      mem: fc.integer({ min: 0, max: 64 * 1024 }),
      upstream: fc.option(fc.integer({ min: 0, max: 50 }), { nil: undefined }),
      cores: fc.integer({ min: 1, max: 64 }),
      max: fc.constantFrom<'auto' | number>('auto', 1, 4, 6, 64)
    })
    fc.assert(
      fc.property(reading, x => {
        const limits = limitsFor(x.max, x.cores, 16 * GB)
        const r: Readings = {
          now: x.now,
          running: x.running,
          warming: x.warming,
          lastStartAt: x.sinceLast === undefined ? undefined : x.now - x.sinceLast,
          cpu: { source: 'run-queue', perCore: x.perCore },
          memAvailableBytes: x.mem * 1024 * 1024,
          upstreamLimit: x.upstream
        }
        const d = decide(r, limits)
        const cap = x.max === 'auto' ? hardCap(x.cores) : x.max
        if (x.running >= cap) return d.kind === 'wait'
        if (x.running === 0) return d.kind === 'start'
        if (x.max === 'auto' && x.sinceLast !== undefined && x.sinceLast < limits.paceMs)
          return d.kind === 'wait'
        return d.kind === 'start' || d.ms > 0
      })
    )
  })
})
