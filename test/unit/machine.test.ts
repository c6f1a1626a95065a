import { describe, expect, it } from 'vitest'
import {
  parseMemAvailable,
  parsePsi,
  PsiWindow,
  TEST_CPU_PRESSURE_ENV,
  thisMachine
} from '../../src/fleet/machine.js'

const psi = (avg10: string, total: number) =>
  `some avg10=${avg10} avg60=46.36 avg300=21.88 total=${total}\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n`

describe("the machine's readings", () => {
  it('reads PSI some and MemAvailable as Linux writes them', () => {
    expect(parsePsi(psi('57.53', 88666114))).toEqual({ avg10: 0.5753, totalUs: 88666114 })
    expect(parsePsi('')).toBeUndefined()
    const meminfo = 'MemTotal:       24684092 kB\nMemFree: 1 kB\nMemAvailable:   22759716 kB\n'
    expect(parseMemAvailable(meminfo)).toBe(22759716 * 1024)
    expect(parseMemAvailable('MemTotal: 1 kB\n')).toBeUndefined()
  })

  it('measures CPU pressure over the last moments, not PSI’s ten-second average', () => {
    const w = new PsiWindow()
    // First reading: only avg10 is known.
    expect(w.update({ avg10: 0.1, totalUs: 1_000_000 }, 0)).toBe(0.1)
    // 400 ms later, tasks waited 300 ms of it: 75%, though avg10 still says 10%.
    expect(w.update({ avg10: 0.1, totalUs: 1_300_000 }, 400)).toBeCloseTo(0.75)
    // Too soon for a new window: the last figure stands.
    expect(w.update({ avg10: 0.1, totalUs: 1_300_100 }, 450)).toBeCloseTo(0.75)
    // The next window, calm.
    expect(w.update({ avg10: 0.1, totalUs: 1_300_000 + 10_000 }, 900)).toBeCloseTo(0.02)
    // After a long gap the window would average minutes: avg10 stands in again.
    expect(w.update({ avg10: 0.4, totalUs: 9_000_000 }, 60_000)).toBe(0.4)
  })

  it('reads this machine, and takes a fixed pressure only from the test-only variable', () => {
    const real = thisMachine({})
    expect(real.cores).toBeGreaterThan(0)
    expect(real.read(Date.now()).memAvailableBytes).toBeGreaterThan(0)
    const fixed = thisMachine({ [TEST_CPU_PRESSURE_ENV]: '0.9' })
    expect(fixed.read(Date.now()).cpu).toEqual({ source: 'psi', some: 0.9 })
    expect(() => thisMachine({ [TEST_CPU_PRESSURE_ENV]: 'high' })).toThrow(
      /FLEET_WORKER_TEST_CPU_PRESSURE must be a number from 0 to 1, got 'high'/
    )
  })
})
