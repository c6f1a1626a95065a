import pLimit from 'p-limit'
import type { Task } from '../tasks/task.js'
import { ZERO_USAGE } from '../worker/result.js'
import { stopSignal } from '../worker/spawn.js'
import type { Outcome } from './outcome.js'

export interface PoolOptions {
  maxParallel: number
  /** Epoch ms after which no new task starts (read before each start: a cancel moves it). */
  deadline: () => number
  run: (task: Task) => Promise<Outcome>
  onOutcome?: (outcome: Outcome) => void
  now?: () => number
}

export function emptyOutcome(task: Task, fields: Pick<Outcome, 'status' | 'error'>): Outcome {
  return { id: task.id, title: task.title, source: task.source, turns: 0, durationMs: 0, usage: ZERO_USAGE, attempts: 0, ...fields }
}

/**
 * Runs tasks N at a time. Every task ends in exactly one outcome: a task whose life threw is
 * `failed` with the reason, and one the deadline reached first is `not-started`.
 */
export async function runPool(tasks: Task[], opts: PoolOptions): Promise<Outcome[]> {
  const limit = pLimit(opts.maxParallel)
  const now = opts.now ?? Date.now
  return Promise.all(
    tasks.map(task =>
      limit(async () => {
        let outcome: Outcome
        if (stopSignal.aborted) {
          outcome = emptyOutcome(task, { status: 'not-started', error: `${String(stopSignal.reason)} before this task started` })
        } else if (now() >= opts.deadline()) {
          outcome = emptyOutcome(task, { status: 'not-started', error: 'the run reached its deadline (deadline-minutes) before this task started' })
        } else {
          try {
            outcome = await opts.run(task)
          } catch (error) {
            const message = error instanceof Error ? error.message : String(error)
            outcome = emptyOutcome(task, { status: 'failed', error: `the fleet could not run this task: ${message}` })
          }
        }
        opts.onOutcome?.(outcome)
        return outcome
      })
    )
  )
}
