import pLimit from 'p-limit'
import type { Task } from '../tasks/task.js'
import { ZERO_USAGE } from '../worker/result.js'
import { stopSignal } from '../worker/spawn.js'
import type { Outcome } from './outcome.js'
import { describeError } from '../errors.js'

/** Runs `fn` in one of the pool's worker slots; throws NotStarted when the run is over first. */
export type Slot = <T>(fn: () => Promise<T>) => Promise<T>

export class NotStarted extends Error {
  override name = 'NotStarted'
}

export interface PoolOptions {
  maxParallel: number
  /** Epoch ms after which no new task starts (read before each start: a cancel moves it). */
  deadline: () => number
  /** Why no new task may start now (a run budget is spent), read before each start like the deadline. */
  stopReason?: () => string | undefined
  /** A task's life; the part that needs a worker slot runs inside `slot`, landing after it. */
  run: (task: Task, slot: Slot) => Promise<Outcome>
  onOutcome?: (outcome: Outcome) => void
  now?: () => number
}

export function emptyOutcome(task: Task, fields: Pick<Outcome, 'status' | 'error'>): Outcome {
  return {
    id: task.id,
    title: task.title,
    source: task.source,
    turns: 0,
    durationMs: 0,
    usage: ZERO_USAGE,
    attempts: 0,
    ...fields
  }
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

/**
 * Runs tasks with at most N workers at once. Only the worker's part of a task holds a slot:
 * pushing and opening the PR happen after it is given back, so the next worker starts while the
 * API is still being asked. Every task ends in exactly one outcome: a task whose life threw is
 * `failed` with the reason, and one the deadline or a cancel reached first is `not-started`.
 */
export async function runPool(tasks: Task[], opts: PoolOptions): Promise<Outcome[]> {
  const limit = pLimit(opts.maxParallel)
  const now = opts.now ?? Date.now
  const slot: Slot = fn =>
    limit(() => {
      if (stopSignal.aborted)
        throw new NotStarted(`${String(stopSignal.reason)} before this task started`)
      if (now() >= opts.deadline())
        throw new NotStarted(
          'the run reached its deadline (deadline-minutes) before this task started'
        )
      const stop = opts.stopReason?.()
      if (stop) throw new NotStarted(`${stop} before this task started`)
      return fn()
    })
  return Promise.all(
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
}
