import { readFileSync, statfsSync } from 'node:fs'
import os from 'node:os'
import type { CpuReading, Readings } from './scheduler.js'

/** The scheduler's view of the machine: how many cores, and the readings that change. */
export interface Machine {
  cores: number
  totalMemBytes: number
  read(now: number): Pick<Readings, 'cpu' | 'memAvailableBytes' | 'diskFreeBytes'>
}

/**
 * Test-only: a fixed CPU demand (threads ready to run, per core) in place of this machine's, so an
 * e2e test can check what the scheduler does under pressure without depending on the load of the
 * machine it runs on. Never set it in a workflow: it blinds the scheduler to the real CPU.
 */
export const TEST_CPU_DEMAND_ENV = 'FLEET_WORKER_TEST_CPU_DEMAND'

/**
 * Test-only: free disk in bytes in place of the real reading of the fleet's directory, so an e2e
 * test can see the scheduler hold back on a full disk. Never set it in a workflow.
 */
export const TEST_DISK_FREE_ENV = 'FLEET_WORKER_TEST_DISK_FREE'

function testDiskFree(value: string | undefined): number | undefined {
  if (value === undefined || value === '') return undefined
  const bytes = Number(value)
  if (Number.isFinite(bytes) && bytes >= 0) return bytes
  throw new Error(`${TEST_DISK_FREE_ENV} must be a number of bytes (0 or more), got '${value}'`)
}

/** Free disk to an unprivileged user on the filesystem holding `dir` (statfs's bavail). */
function diskFree(dir: string | undefined): number | undefined {
  if (!dir) return undefined
  try {
    const s = statfsSync(dir)
    return s.bavail * s.bsize
  } catch {
    return undefined
  }
}

/**
 * Threads ready to run now, from `/proc/loadavg` ("0.40 1.51 2.08 7/103 10881": 7 runnable),
 * less the one reading it.
 */
export function parseRunnable(text: string): number | undefined {
  const m = /^\S+ \S+ \S+ (\d+)\//.exec(text)
  return m ? Math.max(0, Number(m[1]) - 1) : undefined
}

/** `MemAvailable` from `/proc/meminfo`, in bytes. */
export function parseMemAvailable(text: string): number | undefined {
  const m = /^MemAvailable:\s+(\d+) kB/m.exec(text)
  return m ? Number(m[1]) * 1024 : undefined
}

/**
 * The run queue read once is a snapshot that jumps between 0 and a dozen in a millisecond; an
 * exponential average over the readings (time constant ~1 s) says how many threads want a core.
 * PSI (`/proc/pressure/cpu`) was the first choice and measured worse: its `some` is 100 % as soon
 * as one thread waits, so it cannot tell three ready threads on two cores from thirty.
 */
export class RunQueue {
  private mean?: number
  private at = 0

  constructor(private readonly tauMs = 1000) {}

  update(runnable: number, now: number): number {
    const weight = this.mean === undefined ? 1 : 1 - Math.exp(-(now - this.at) / this.tauMs)
    this.mean = this.mean === undefined ? runnable : this.mean + weight * (runnable - this.mean)
    this.at = now
    return this.mean
  }
}

const readText = (file: string): string | undefined => {
  try {
    return readFileSync(file, 'utf8')
  } catch {
    return undefined
  }
}

function testDemand(value: string | undefined): number | undefined {
  if (value === undefined || value === '') return undefined
  const perCore = Number(value)
  if (Number.isFinite(perCore) && perCore >= 0) return perCore
  throw new Error(
    `${TEST_CPU_DEMAND_ENV} must be a number of threads per core (0 or more), got '${value}'`
  )
}

/**
 * Readings of the machine this process runs on (Linux /proc; elsewhere the load average), and the
 * free disk of `dir` (the fleet's directory) when given.
 */
export function thisMachine(env: NodeJS.ProcessEnv, dir?: string): Machine {
  const cores = os.availableParallelism()
  const fixed = testDemand(env[TEST_CPU_DEMAND_ENV])
  const fixedDisk = testDiskFree(env[TEST_DISK_FREE_ENV])
  const queue = new RunQueue()
  const cpu = (now: number): CpuReading | undefined => {
    if (fixed !== undefined) return { source: 'run-queue', perCore: fixed }
    const runnable = parseRunnable(readText('/proc/loadavg') ?? '')
    if (runnable !== undefined)
      return { source: 'run-queue', perCore: queue.update(runnable, now) / cores }
    const load = os.loadavg()[0] ?? 0
    // Windows reports 0: no reading, rather than an idle machine.
    return load > 0 ? { source: 'load', perCore: load / cores } : undefined
  }
  return {
    cores,
    totalMemBytes: os.totalmem(),
    read: now => ({
      cpu: cpu(now),
      memAvailableBytes: parseMemAvailable(readText('/proc/meminfo') ?? '') ?? os.freemem(),
      diskFreeBytes: fixedDisk ?? diskFree(dir)
    })
  }
}
