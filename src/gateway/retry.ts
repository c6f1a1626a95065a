/** What the gateway does with an upstream answer before any byte of it reached the worker. */
export type Disposition = 'pass' | 'refused' | 'overloaded'

/** 429 is the endpoint refusing (a rate or concurrency cap); 408, 5xx and 529 are overload. */
export function disposition(status: number): Disposition {
  if (status === 429) return 'refused'
  if (status === 408 || status >= 500) return 'overloaded'
  return 'pass'
}

export interface RetryPolicy {
  maxAttempts: number
  baseDelayMs: number
  maxDelayMs: number
  /** No retry starts later than this after the request arrived. */
  maxElapsedMs: number
  smallModel?: string
}

export const GATEWAY_RETRY: Omit<RetryPolicy, 'maxAttempts' | 'smallModel'> = {
  baseDelayMs: 500,
  maxDelayMs: 30_000,
  maxElapsedMs: 120_000
}

/** The wait the endpoint asked for: retry-after-ms, else retry-after (seconds or an HTTP date). */
export function askedDelayMs(
  headers: Record<string, string | string[] | undefined>,
  now: number
): number | undefined {
  const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v)
  const ms = Number(one(headers['retry-after-ms']))
  if (one(headers['retry-after-ms']) !== undefined && Number.isFinite(ms) && ms >= 0) return ms
  const after = one(headers['retry-after'])
  if (after === undefined) return undefined
  const seconds = Number(after)
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000
  const date = Date.parse(after)
  return Number.isNaN(date) ? undefined : Math.max(0, date - now)
}

export type Next = { retry: false } | { retry: true; delayMs: number; model?: string }

/**
 * After attempt `attempt` (1-based) of a request ended `how`: again, when, and on which model.
 * Full jitter (a random wait up to the exponential cap) unless the endpoint said how long;
 * after maxAttempts overloads, one more attempt on small-model when there is one.
 */
export function nextAttempt(
  attempt: number,
  how: Exclude<Disposition, 'pass'>,
  opts: { policy: RetryPolicy; elapsedMs: number; askedMs?: number; random?: () => number }
): Next {
  const { policy } = opts
  const overflow = attempt >= policy.maxAttempts
  const toSmall =
    overflow && how === 'overloaded' && policy.smallModel && attempt === policy.maxAttempts
  if (overflow && !toSmall) return { retry: false }
  const cap = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1))
  const delayMs = Math.min(
    policy.maxDelayMs,
    opts.askedMs ?? Math.round((opts.random ?? Math.random)() * cap)
  )
  if (opts.elapsedMs + delayMs > policy.maxElapsedMs) return { retry: false }
  return toSmall ? { retry: true, delayMs, model: policy.smallModel } : { retry: true, delayMs }
}
