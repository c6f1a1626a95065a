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
  /** The cache writes split by lifetime, when the endpoint said (billed 1.25x and 2x input). */
  cache_creation?: { ephemeral_5m_input_tokens: number; ephemeral_1h_input_tokens: number }
  /** Server-side tool calls, billed per request. */
  server_tool_use?: { web_search_requests: number }
}

export const ZERO_USAGE: Usage = {
  input_tokens: 0,
  output_tokens: 0,
  cache_read_input_tokens: 0,
  cache_creation_input_tokens: 0
}

/** Sums two usages; the optional parts appear only when either side has them. */
export function addUsage(a: Usage, b: Usage): Usage {
  const sum: Usage = {
    input_tokens: a.input_tokens + b.input_tokens,
    output_tokens: a.output_tokens + b.output_tokens,
    cache_read_input_tokens: a.cache_read_input_tokens + b.cache_read_input_tokens,
    cache_creation_input_tokens: a.cache_creation_input_tokens + b.cache_creation_input_tokens
  }
  if (a.cache_creation || b.cache_creation) {
    const [x, y] = [a.cache_creation, b.cache_creation]
    sum.cache_creation = {
      ephemeral_5m_input_tokens:
        (x?.ephemeral_5m_input_tokens ?? 0) + (y?.ephemeral_5m_input_tokens ?? 0),
      ephemeral_1h_input_tokens:
        (x?.ephemeral_1h_input_tokens ?? 0) + (y?.ephemeral_1h_input_tokens ?? 0)
    }
  }
  if (a.server_tool_use || b.server_tool_use) {
    sum.server_tool_use = {
      web_search_requests:
        (a.server_tool_use?.web_search_requests ?? 0) +
        (b.server_tool_use?.web_search_requests ?? 0)
    }
  }
  return sum
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
  /** The run was stopped (cancelled) while the task's setup, worker or verify ran. */
  'cancelled',
  /** A fleet PR brought up to date with its base (src/fleet/refresh.ts): nothing was behind. */
  'up-to-date',
  /** A fleet PR that could not be brought up to date: its branch untouched, the PR says why. */
  'conflict',
  /** land: false — the work sealed as a bundle and handed over, waiting for a mode: land job. */
  'ready',
  /** The landing train merged the PR through GitHub's merge API (src/train.ts). */
  'merged',
  /** The landing train did not merge it now: no approval yet, or GitHub refused (checks, rules). */
  'waiting',
  /** The landing train's verify failed once the PR was up to date: labelled fleet:blocked. */
  'blocked',
  /** A spend cap held over every run would be crossed: not started, left queued (src/spend/). */
  'deferred'
] as const
export type Status = (typeof STATUSES)[number]

/** Statuses that fail the step (after every task has been reported). */
export const FAILING: readonly Status[] = ['failed', 'timed-out', 'verify-failed', 'refused']

/** Statuses that end the step non-zero: the failing ones, and a task a cancel stopped. */
export const UNFINISHED: readonly Status[] = [...FAILING, 'cancelled']

export interface VerifyResult {
  command: string
  exitCode: number | null
  timedOut: boolean
  tail: string
  /** The signal that ended it, when one did. */
  signal?: string
  /** Why the run stopped it (a cancel), when it did: the task ends `cancelled`. */
  cancelled?: string
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
  /**
   * A PR the landing train merged: what it cost over all its runs (its first run and every
   * follow-up turn), from the spend ledger; undefined when no ledger is kept.
   */
  landedCostUsd?: number
  startedAt?: number
  /**
   * When its first worker was started (epoch ms): after its files (a worktree or a view) and its
   * setup. Absent when no worker ran.
   */
  workerStartedAt?: number
  endedAt?: number
  /** land: false — the task's work as handed to mode: land, which checks it before it pushes. */
  sealed?: Sealed
}

/** The outcome of a task no worker ran for: no turns, no time, no usage; its status and why. */
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

/** A task's work handed over by a land: false job: a bundle of its branch and what to check it by. */
export interface Sealed {
  /** The bundle file: a path on the runner, a bare file name inside the outcomes store. */
  bundle: string
  /** The commit the task started from: every sealed commit must descend from it. */
  start: string
  /** Open a PR for it (the task's work finished), or only push it (partial work, as today). */
  pr: boolean
  /** The task's prompt, for its PR body. */
  prompt: string
}

/**
 * A copy-on-write view (cage/views.ts mounts it, git/repo.ts makes a task's): one overlay, `lower`
 * (never written) shown at `at`, writes going to `upper` (private).
 */
export interface View {
  lower: string
  /**
   * A directory stacked above `lower` (overlayfs's higher lower layer): an entry in it hides the
   * one of the same name in `lower`. The workspace's checkout as a task's view has its `.git`
   * hidden so (FleetRepo.view): a non-directory there hides the directory below, whole.
   */
  hide?: string
  at: string
  /** The private upper layer and overlayfs's work dir: the same filesystem, outside `lower`. */
  upper: string
  work: string
  /**
   * The task's index marks every file unchanged against the checkout (git's fsmonitor extension,
   * git/fsmonitor.ts): a cage that shows its git this view's `upper` may let it look there alone.
   */
  fsmonitor?: boolean
}

/** The `effort` input's levels, and a task's own `effort`. */
export const EFFORTS = ['low', 'medium', 'high', 'xhigh', 'max'] as const

/** `auto`: as many workers as the machine and the endpoint carry; `fixed`: max-parallel's number. */
export type ParallelMode = 'auto' | 'fixed'

/** Why the scheduler held the next worker back (fleet/scheduler.ts). */
export type WaitReason =
  'max-parallel' | 'hard-cap' | 'memory' | 'disk' | 'cpu' | 'upstream' | 'pacing'

/** How parallel the run got, and what held it there (for the summary). */
export interface Parallelism {
  mode: ParallelMode
  cap: number
  cores: number
  peak: number
  /** What kept the run from going wider at its peak; `tasks` = nothing was left waiting. */
  limitedBy: WaitReason | 'tasks'
}
