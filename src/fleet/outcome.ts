import type { TaskSource } from '../tasks/task.js'
import type { Usage } from '../worker/result.js'

export const STATUSES = [
  'pr-opened',
  'pr-updated',
  /** Pushed, no PR asked for: only when there is no GitHub API to ask (the CLI without a repository). */
  'pushed',
  'no-changes',
  'verify-failed',
  'failed',
  'timed-out',
  'not-started',
  'refused'
] as const
export type Status = (typeof STATUSES)[number]

/** Statuses that fail the step (after every task has been reported). */
export const FAILING: readonly Status[] = ['failed', 'timed-out', 'verify-failed', 'refused']

export interface VerifyResult {
  command: string
  exitCode: number | null
  timedOut: boolean
  tail: string
}

/** Exactly one per task, whatever happened to it. */
export interface Outcome {
  id: string
  title: string
  status: Status
  source: TaskSource
  branch?: string
  prNumber?: number
  prUrl?: string
  turns: number
  durationMs: number
  usage: Usage
  model?: string
  attempts: number
  error?: string
  verify?: VerifyResult
  /** The first verify, when it failed and the worker had one fix-up turn (verify-fix-up). */
  verifyBeforeFixUp?: VerifyResult
  /** Where work that could not be pushed was kept. */
  preserved?: string
  finalMessage?: string
  /** From the price inputs, when given. */
  costUsd?: number
  startedAt?: number
  endedAt?: number
}
