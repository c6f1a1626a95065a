/**
 * The words every room shares: a task, its one outcome, the statuses, token usage. Below every
 * other room (docs/architecture.md): it imports nothing from src/.
 */

/** Where a task came from: decides its id, its PR's "Refs #N" and the issue it reports to. */
export type TaskSource =
  | { kind: 'input' }
  | { kind: 'issue'; issue: number; item?: number }
  | {
      kind: 'follow-up'
      pr: number
      issue?: number
      /** Failed-check turns this PR has had (its body's marker), this one included. */
      fixUps?: number
      /** What to answer on the PR once the turn lands (reviews, review comments, checks). */
      answer?: PrAnswer
    }

/**
 * A turn asked for on the PR itself: after it, each listed thread gets one reply (item k of the
 * worker's prompt is threads[k-1]) and the PR one summary comment.
 */
export interface PrAnswer {
  kind: 'review' | 'review-comment' | 'checks'
  /** Who asked (a login), or the failed run's name. */
  from: string
  threads: number[]
  /** What was answered (`review=<id>`, `comment=<id>`, `run=<id>`): a rerun of the event finds it. */
  key: string
  /** A failed-checks turn: which one, of at most how many (max-fix-ups). */
  turn?: { n: number; max: number }
}

/** Who sent an event (a comment, a label, a review): GitHub's access checks are about them. */
export interface Actor {
  login: string
  isBot: boolean
}

export interface Task {
  id: string
  prompt: string
  title: string
  branch: string
  source: TaskSource
  model?: string
  maxTurns?: number
  verify?: string
  effort?: string
}

export interface Usage {
  input_tokens: number
  output_tokens: number
  cache_read_input_tokens: number
  cache_creation_input_tokens: number
}

export const ZERO_USAGE: Usage = {
  input_tokens: 0,
  output_tokens: 0,
  cache_read_input_tokens: 0,
  cache_creation_input_tokens: 0
}

export function addUsage(a: Usage, b: Usage): Usage {
  return {
    input_tokens: a.input_tokens + b.input_tokens,
    output_tokens: a.output_tokens + b.output_tokens,
    cache_read_input_tokens: a.cache_read_input_tokens + b.cache_read_input_tokens,
    cache_creation_input_tokens: a.cache_creation_input_tokens + b.cache_creation_input_tokens
  }
}

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
  'refused',
  /** A fleet PR brought up to date with its base (src/fleet/refresh.ts): nothing was behind. */
  'up-to-date',
  /** A fleet PR that could not be brought up to date: its branch untouched, the PR says why. */
  'conflict'
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

/** The `effort` input's levels, and a task's own `effort`. */
export const EFFORTS = ['low', 'medium', 'high', 'xhigh', 'max'] as const

/** `auto`: as many workers as the machine and the endpoint carry; `fixed`: max-parallel's number. */
export type ParallelMode = 'auto' | 'fixed'

/** Why the scheduler held the next worker back (fleet/scheduler.ts). */
export type WaitReason = 'max-parallel' | 'hard-cap' | 'memory' | 'cpu' | 'upstream' | 'pacing'

/** How parallel the run got, and what held it there (for the summary). */
export interface Parallelism {
  mode: ParallelMode
  cap: number
  cores: number
  peak: number
  /** What kept the run from going wider at its peak; `tasks` = nothing was left waiting. */
  limitedBy: WaitReason | 'tasks'
}
