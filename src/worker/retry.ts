import type { Verdict } from './result.js'

export interface RetryPolicy {
  maxAttempts: number
  baseDelayMs: number
  smallModel?: string
}

/** No single wait longer than five minutes: past that, the deadline is the better judge. */
const MAX_DELAY_MS = 5 * 60_000

export type NextStep = { retry: false } | { retry: true; delayMs: number; overflow: boolean }

/**
 * After attempt `attempt` (1-based) ended with `verdict`: run again? Overload and rate limits are
 * retried with full-jitter exponential backoff up to maxAttempts, then once more on the small
 * model if one is set. Other failures are not retried: the same input would fail the same way.
 */
export function nextStep(
  attempt: number,
  verdict: Verdict,
  policy: RetryPolicy,
  random = Math.random
): NextStep {
  if (verdict.kind !== 'failed' || !verdict.retryable) return { retry: false }
  const overflow = attempt >= policy.maxAttempts
  if (overflow && (!policy.smallModel || attempt > policy.maxAttempts)) return { retry: false }
  const cap = Math.min(MAX_DELAY_MS, policy.baseDelayMs * 2 ** (attempt - 1))
  return { retry: true, delayMs: Math.round(cap / 2 + random() * (cap / 2)), overflow }
}
