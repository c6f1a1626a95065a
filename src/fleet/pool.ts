import { describeError } from '../errors.js'
import { emptyOutcome, type Outcome, type Parallelism, type Task } from '../domain.js'
import { Gate, NotStarted } from './gate.js'
import { type Machine, thisMachine } from './machine.js'
import { limitsFor } from './scheduler.js'

export { NotStarted }

/** Runs `fn` in one of the pool's worker slots; throws NotStarted when the run is over first. */
export type Slot = <T>(fn: () => Promise<T>) => Promise<T>

export interface PoolOptions {
  /** `auto`: the scheduler finds how many the machine carries; a number: a fixed pool that size. */
  maxParallel: number | 'auto'
  /** Epoch ms after which no new task starts (read before each start: a cancel moves it). */
  deadline: () => number
  /** A task's life; the part that needs a worker slot runs inside `slot`, landing after it. */
  run: (task: Task, slot: Slot) => Promise<Outcome>
  onOutcome?: (outcome: Outcome) => void
  now?: () => number
  /** The readings the scheduler decides on; this machine's by default. */
  machine?: Machine
  /**
   * Hook for the model gateway: how many upstream requests the endpoint takes at once, once known
   * (undefined while unknown). In auto, no worker starts beyond it: its requests would only queue.
   */
  upstreamLimit?: () => number | undefined
  /**
   * Hook for the model gateway: when each worker now waiting on the model began to wait. In auto,
   * a worker waiting a second or more does not count towards the cores the CPU gate protects.
   */
  modelWaits?: () => number[]
  /** Why no new task may start (e.g. the run's budget is spent), or undefined while one may. */
  stopReason?: () => string | undefined
  /** The run's stop (a cancel): no task starts after it. */
  signal?: AbortSignal
}

/**
 * The fleet failed before its tasks could run (its clone or fetch threw): every task ends
 * `failed`, the error naming the cause, so each is reported like any other outcome.
 */
export function fleetBroke(
  tasks: Task[],
  error: unknown,
  log: (m: string) => void,
  onOutcome: (o: Outcome) => void
): Outcome[] {
  const cause = describeError(error)
  log(`The fleet could not start: ${cause}`)
  return tasks.map(task => {
    const outcome = emptyOutcome(task, {
      status: 'failed',
      error: `the fleet could not start: ${cause}`
    })
    onOutcome(outcome)
    return outcome
  })
}

function gateFor(opts: PoolOptions): Gate {
  const now = opts.now ?? Date.now
  const machine = opts.machine ?? thisMachine(process.env)
  const cancel = opts.signal ?? new AbortController().signal
  return new Gate({
    limits: limitsFor(opts.maxParallel, machine.cores, machine.totalMemBytes),
    machine,
    now,
    signal: cancel,
    upstreamLimit: opts.upstreamLimit,
    modelWaits: opts.modelWaits,
    stopped: () => {
      if (cancel.aborted) return `${String(cancel.reason)} before this task started`
      if (now() >= opts.deadline())
        return 'the run reached its deadline (timeouts: deadline) before this task started'
      const stop = opts.stopReason?.()
      return stop ? `${stop} before this task started` : undefined
    }
  })
}

/**
 * Runs tasks with as many workers at once as the scheduler allows (scheduler.ts). Only the
 * worker's part of a task holds a slot: pushing and opening the PR happen after it is given back,
 * so the next worker starts while the API is still being asked. Every task ends in exactly one
 * outcome: a task whose life threw is `failed` with the reason, and one the deadline or a cancel
 * reached first is `not-started`.
 */
export async function runPool(
  tasks: Task[],
  opts: PoolOptions
): Promise<{ outcomes: Outcome[]; parallelism: Parallelism }> {
  const gate = gateFor(opts)
  const slot: Slot = fn => gate.run(fn)
  const outcomes = await Promise.all(
    tasks.map(async task => {
      let outcome: Outcome
      try {
        outcome = await opts.run(task, slot)
      } catch (error) {
        const message = describeError(error)
        outcome =
          error instanceof NotStarted
            ? emptyOutcome(task, { status: 'not-started', error: message })
            : emptyOutcome(task, {
                status: 'failed',
                error: `the fleet could not run this task: ${message}`
              })
      }
      opts.onOutcome?.(outcome)
      return outcome
    })
  )
  return { outcomes, parallelism: gate.parallelism() }
}
