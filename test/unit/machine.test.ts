import { statfsSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { describe, expect, it } from 'vitest'
import {
  parseMemAvailable,
  parseRunnable,
  RunQueue,
  TEST_CPU_DEMAND_ENV,
  TEST_DISK_FREE_ENV,
  thisMachine
} from '../../src/fleet/machine.js'

describe("the machine's readings", () => {
  it('reads the run queue and MemAvailable as Linux writes them', () => {
    // 7 threads ready to run, one of them the reader itself.
    expect(parseRunnable('0.40 1.51 2.08 7/103 10881\n')).toBe(6)
    expect(parseRunnable('0.00 0.01 0.05 1/89 3\n')).toBe(0)
    expect(parseRunnable('')).toBeUndefined()
    const meminfo = 'MemTotal:       24684092 kB\nMemFree: 1 kB\nMemAvailable:   22759716 kB\n'
    expect(parseMemAvailable(meminfo)).toBe(22759716 * 1024)
    expect(parseMemAvailable('MemTotal: 1 kB\n')).toBeUndefined()
  })

  it('averages the run queue over about a second, weighting each reading by the time since the last', () => {
    const q = new RunQueue(1000)
    // The first reading stands alone.
    expect(q.update(4, 0)).toBe(4)
    // A snapshot of 0 a moment later moves the mean little...
    expect(q.update(0, 10)).toBeCloseTo(4 * Math.exp(-0.01))
    // ...one a second later most of the way (1 - 1/e).
    expect(q.update(0, 1010)).toBeCloseTo(4 * Math.exp(-1.01))
    // After a long gap the old readings no longer count.
    expect(q.update(8, 60_000)).toBeCloseTo(8)
  })

  it('reads this machine, and takes a fixed demand only from the test-only variable', () => {
    const real = thisMachine({})
    expect(real.cores).toBeGreaterThan(0)
    const reading = real.read(Date.now())
    expect(reading.memAvailableBytes).toBeGreaterThan(0)
    expect(reading.cpu?.source).toBe('run-queue')
    const fixed = thisMachine({ [TEST_CPU_DEMAND_ENV]: '3' })
    expect(fixed.read(Date.now()).cpu).toEqual({ source: 'run-queue', perCore: 3 })
    expect(() => thisMachine({ [TEST_CPU_DEMAND_ENV]: 'high' })).toThrow(
      /FLEET_WORKER_TEST_CPU_DEMAND must be a number of threads per core \(0 or more\), got 'high'/
    )
  })

  it("reads the free disk of the fleet's directory, as statfs gives it to a user", () => {
    const dir = tmpdir()
    const free = thisMachine({}, dir).read(Date.now()).diskFreeBytes
    const s = statfsSync(dir)
    // Between two readings another process may write: close to statfs's own figure, not equal.
    expect(free).toBeGreaterThan(0)
    expect(Math.abs((free ?? 0) - s.bavail * s.bsize)).toBeLessThan(256 * 1024 * 1024)
    expect(thisMachine({}).read(Date.now()).diskFreeBytes).toBeUndefined()
    expect(thisMachine({}, '/no/such/dir').read(Date.now()).diskFreeBytes).toBeUndefined()
    expect(thisMachine({ [TEST_DISK_FREE_ENV]: '5' }, dir).read(0).diskFreeBytes).toBe(5)
    expect(() => thisMachine({ [TEST_DISK_FREE_ENV]: 'full' })).toThrow(
      /FLEET_WORKER_TEST_DISK_FREE must be a number of bytes \(0 or more\), got 'full'/
    )
  })
})
