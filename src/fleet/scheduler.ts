/**
 * When may the next worker start? A pure decision over readings of the machine, so it can be
 * tested with a fake clock and fake pressure and memory. The pool (pool.ts) asks it before every
 * start and again after the wait it names; machine.ts takes the readings.
 */
import type { ParallelMode, WaitReason } from '../domain.js'

/**
 * CPU demand per core: on Linux the threads ready to run now (the run queue, `/proc/loadavg`'s
 * fourth field, smoothed over about a second); elsewhere the one-minute load average.
 */
export interface CpuReading {
  source: 'run-queue' | 'load'
  perCore: number
}

export interface Readings {
  now: number
  /** Workers holding a slot now. */
  running: number
  /** Workers started less than `warmupMs` ago: their memory and CPU may not show in the readings yet. */
  warming: number
  /** When the last worker started (epoch ms); undefined before the first. */
  lastStartAt?: number
  /** Unknown (no PSI, no load average) leaves the hard cap and pacing as the only CPU bounds. */
  cpu?: CpuReading
  memAvailableBytes?: number
  /** Free disk (to this user) where the fleet's clone and the tasks' worktrees live. */
  diskFreeBytes?: number
  /** The model gateway's upstream concurrency, once it knows one: more workers would only queue. */
  upstreamLimit?: number
  /**
   * When each worker now waiting on the model (a request in flight or queued at the gateway)
   * began to wait, epoch ms; undefined without a gateway.
   */
  modelWaitsSince?: number[]
}

export interface Limits {
  /** `auto`: as many as the machine and the endpoint carry, up to hardCap; else a fixed pool of that many. */
  mode: ParallelMode
  /** The most workers at once: max-parallel's number, or in auto the hard cap (8 x cores). */
  cap: number
  cores: number
  /** Memory one more worker may need (the CLI, git, the tools it runs). */
  workerReserveBytes: number
  /** MemAvailable kept free beyond the reserves, for the action itself and the rest of the runner. */
  memoryFloorBytes: number
  /** Disk one more task may need at its start (its worktree, what setup installs). */
  workerDiskBytes: number
  /** Free disk kept beyond the reserves, for the action's own files and the rest of the runner. */
  diskFloorBytes: number
  /** Least time between two starts in auto: spreads the CLI's start-up CPU, and lets it show. */
  paceMs: number
  /** CPU demand per core (threads ready to run) at or above this means the CPU has no room. */
  cpuPerCoreMax: number
  /**
   * A worker waiting on the model this long counts as off the CPU: about what one worker's start
   * (~1 CPU-second) takes on a free core, so a shorter wait ends before a new start would be done.
   */
  modelWaitMs: number
}

export type { WaitReason }

/** `ms`: when to ask again; Infinity = when a worker gives its slot back. */
export type Decision = { kind: 'start' } | { kind: 'wait'; reason: WaitReason; ms: number }

const MB = 1024 * 1024
const CPU_RECHECK_MS = 250
const MEMORY_RECHECK_MS = 1000
const DISK_RECHECK_MS = 1000
const UPSTREAM_RECHECK_MS = 1000

/**
 * The limits for this machine; the hard cap, reserve and CPU limit are from the bench
 * (docs/performance.md, "max-parallel: auto").
 */
export function limitsFor(
  maxParallel: number | 'auto',
  cores: number,
  totalMemBytes: number
): Limits {
  const auto = maxParallel === 'auto'
  return {
    mode: auto ? 'auto' : 'fixed',
    cap: auto ? hardCap(cores) : maxParallel,
    cores,
    workerReserveBytes: 400 * MB,
    memoryFloorBytes: Math.max(512 * MB, totalMemBytes * 0.05),
    workerDiskBytes: 256 * MB,
    diskFloorBytes: 1024 * MB,
    paceMs: Math.max(100, Math.round(500 / cores)),
    cpuPerCoreMax: 2,
    modelWaitMs: 1000
  }
}

export const hardCap = (cores: number): number => 8 * Math.max(1, cores)

const wait = (reason: WaitReason, ms: number): Decision => ({ kind: 'wait', reason, ms })

/** Room in memory for one more worker, counting those started too recently to show. */
function memoryRoom(r: Readings, l: Limits): boolean {
  if (r.memAvailableBytes === undefined) return true
  const claimed = (r.warming + 1) * l.workerReserveBytes
  return r.memAvailableBytes - claimed >= l.memoryFloorBytes
}

/** Room on disk for one more task, counting those started too recently to have written much. */
function diskRoom(r: Readings, l: Limits): boolean {
  if (r.diskFreeBytes === undefined) return true
  return r.diskFreeBytes - (r.warming + 1) * l.workerDiskBytes >= l.diskFloorBytes
}

const cpuRoom = (cpu: CpuReading | undefined, l: Limits): boolean =>
  !cpu || cpu.perCore < l.cpuPerCoreMax

/**
 * This run's workers that may want the CPU: those running, less those waiting on the model for at
 * least `modelWaitMs` (a model turn costs the worker no CPU).
 */
function onCpu(r: Readings, l: Limits): number {
  const waiting = (r.modelWaitsSince ?? []).filter(t => r.now - t >= l.modelWaitMs).length
  return Math.max(0, r.running - waiting)
}

/**
 * Start, or wait and why. Caps first (they hold always), then: nothing running always starts one
 * (a batch must move even on a busy machine), then the endpoint, pacing, memory, free disk, and
 * CPU demand once as many of this run's workers as there are cores may want the CPU (running, and
 * not waiting on the model for a second or more). Waiting on the model costs no CPU, so in a
 * latency-bound batch the CPU gate only spreads the CLI's start-ups; in a CPU-bound one it holds
 * the fleet near two ready threads per core.
 * A fixed pool skips the endpoint, pacing and CPU: the user chose its size; memory and disk still hold.
 */
export function decide(r: Readings, l: Limits): Decision {
  if (r.running >= l.cap) return wait(l.mode === 'auto' ? 'hard-cap' : 'max-parallel', Infinity)
  if (r.running === 0) return { kind: 'start' }
  if (l.mode === 'auto') {
    if (r.upstreamLimit !== undefined && r.running >= r.upstreamLimit)
      return wait('upstream', UPSTREAM_RECHECK_MS)
    const since = r.lastStartAt === undefined ? Infinity : r.now - r.lastStartAt
    if (since < l.paceMs) return wait('pacing', l.paceMs - since)
  }
  if (!memoryRoom(r, l)) return wait('memory', MEMORY_RECHECK_MS)
  if (!diskRoom(r, l)) return wait('disk', DISK_RECHECK_MS)
  // Fewer of this run's workers on the CPU than cores cannot crowd each other off it; the pressure
  // then is someone else's (or the run queue's average still counts workers that have gone to wait
  // on the model), and holding back would only leave this run's share of the machine idle.
  if (l.mode === 'auto' && onCpu(r, l) >= l.cores && !cpuRoom(r.cpu, l))
    return wait('cpu', CPU_RECHECK_MS)
  return { kind: 'start' }
}
