import type { Outcome } from '../domain.js'
import { FAILING } from '../domain.js'

/** From the task's start to its first worker's: its files (worktree or view) and setup. */
function workerStartMs(o: Outcome): number | null {
  return o.startedAt === undefined || o.workerStartedAt === undefined
    ? null
    : o.workerStartedAt - o.startedAt
}

/** One `results` entry: every field docs/contract.md names is present (null when it does not apply). */
export function resultEntry(o: Outcome) {
  return {
    id: o.id,
    status: o.status,
    branch: o.branch ?? null,
    'pr-number': o.prNumber ?? null,
    'pr-url': o.prUrl ?? null,
    turns: o.turns,
    'duration-ms': o.durationMs,
    usage: o.usage,
    error: o.error ?? null,
    title: o.title,
    model: o.model ?? null,
    attempts: o.attempts,
    preserved: o.preserved ?? null,
    // A merged PR's whole cost (its runs, from the ledger); else what this run spent on the task.
    'cost-usd': o.landedCostUsd ?? o.costUsd ?? null,
    'worker-start-ms': workerStartMs(o)
  }
}

export interface Totals {
  succeeded: number
  failed: number
  tokensIn: number
  tokensOut: number
  turns: number
  costUsd?: number
}

const SUCCEEDED = [
  'pr-opened',
  'pr-updated',
  'pushed',
  'no-changes',
  'up-to-date',
  'ready',
  'merged'
]

export function totals(outcomes: Outcome[]): Totals {
  return {
    succeeded: outcomes.filter(o => SUCCEEDED.includes(o.status)).length,
    failed: outcomes.filter(o => FAILING.includes(o.status)).length,
    tokensIn: outcomes.reduce(
      (n, o) =>
        n +
        o.usage.input_tokens +
        o.usage.cache_read_input_tokens +
        o.usage.cache_creation_input_tokens,
      0
    ),
    tokensOut: outcomes.reduce((n, o) => n + o.usage.output_tokens, 0),
    turns: outcomes.reduce((n, o) => n + o.turns, 0),
    costUsd: outcomes.some(o => o.costUsd !== undefined)
      ? outcomes.reduce((n, o) => n + (o.costUsd ?? 0), 0)
      : undefined
  }
}

export function outputs(outcomes: Outcome[]): Record<string, string> {
  const t = totals(outcomes)
  const urls = [...new Set(outcomes.flatMap(o => (o.prUrl ? [o.prUrl] : [])))]
  return {
    results: JSON.stringify(outcomes.map(resultEntry)),
    'pull-requests': JSON.stringify(urls),
    succeeded: String(t.succeeded),
    failed: String(t.failed)
  }
}
