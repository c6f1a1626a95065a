import { readFileSync } from 'node:fs'
import os from 'node:os'
import type { CpuReading, Readings } from './scheduler.js'

/** The scheduler's view of the machine: how many cores, and the readings that change. */
export interface Machine {
  cores: number
  totalMemBytes: number
  read(now: number): Pick<Readings, 'cpu' | 'memAvailableBytes'>
}

/**
 * Test-only: a fixed CPU pressure (PSI `some`, 0..1) in place of this machine's, so an e2e test can
 * check what the scheduler does under pressure without depending on the load of the machine it
 * runs on. Never set it in a workflow: it blinds the scheduler to the real CPU.
 */
export const TEST_CPU_PRESSURE_ENV = 'FLEET_WORKER_TEST_CPU_PRESSURE'

interface PsiSample {
  avg10: number
  /** Microseconds some task waited for a core, since boot. */
  totalUs: number
}

/** `/proc/pressure/cpu`'s `some` line. */
export function parsePsi(text: string): PsiSample | undefined {
  const m = /^some avg10=([\d.]+) .*total=(\d+)/m.exec(text)
  return m ? { avg10: Number(m[1]) / 100, totalUs: Number(m[2]) } : undefined
}

/** `MemAvailable` from `/proc/meminfo`, in bytes. */
export function parseMemAvailable(text: string): number | undefined {
  const m = /^MemAvailable:\s+(\d+) kB/m.exec(text)
  return m ? Number(m[1]) * 1024 : undefined
}

/**
 * PSI's own averages look back 10 s and more, too slow to see the workers just started; so the
 * pressure is the growth of `total` over the last fraction of a second to two seconds. Before
 * that window has filled (or after a long gap) avg10 stands in.
 */
export class PsiWindow {
  private base?: { at: number; totalUs: number }
  private last?: number

  update(sample: PsiSample, now: number): number {
    const span = this.base ? now - this.base.at : Infinity
    if (!this.base || span > 2000) {
      this.base = { at: now, totalUs: sample.totalUs }
      this.last = sample.avg10
    } else if (span >= 250) {
      this.last = Math.min(1, (sample.totalUs - this.base.totalUs) / 1000 / span)
      this.base = { at: now, totalUs: sample.totalUs }
    }
    return this.last ?? sample.avg10
  }
}

const readText = (file: string): string | undefined => {
  try {
    return readFileSync(file, 'utf8')
  } catch {
    return undefined
  }
}

function testPressure(value: string | undefined): number | undefined {
  if (value === undefined || value === '') return undefined
  const some = Number(value)
  if (Number.isFinite(some) && some >= 0 && some <= 1) return some
  throw new Error(`${TEST_CPU_PRESSURE_ENV} must be a number from 0 to 1, got '${value}'`)
}

/** Readings of the machine this process runs on (Linux /proc; elsewhere the load average). */
export function thisMachine(env: NodeJS.ProcessEnv): Machine {
  const cores = os.availableParallelism()
  const fixed = testPressure(env[TEST_CPU_PRESSURE_ENV])
  const window = new PsiWindow()
  const cpu = (now: number): CpuReading | undefined => {
    if (fixed !== undefined) return { source: 'psi', some: fixed }
    const psi = parsePsi(readText('/proc/pressure/cpu') ?? '')
    if (psi) return { source: 'psi', some: window.update(psi, now) }
    const load = os.loadavg()[0] ?? 0
    // Windows reports 0: no reading, rather than an idle machine.
    return load > 0 ? { source: 'load', perCore: load / cores } : undefined
  }
  return {
    cores,
    totalMemBytes: os.totalmem(),
    read: now => ({
      cpu: cpu(now),
      memAvailableBytes: parseMemAvailable(readText('/proc/meminfo') ?? '') ?? os.freemem()
    })
  }
}
