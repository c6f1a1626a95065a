import { z } from 'zod'
import type { Usage } from '../domain.js'

/** The CLI's final `result` object. Many more fields exist and vary by version: unknown keys pass. */
export const ResultSchema = z.looseObject({
  type: z.literal('result'),
  subtype: z.string(),
  is_error: z.boolean(),
  result: z.string().optional(),
  num_turns: z.number().optional(),
  duration_ms: z.number().optional(),
  session_id: z.string().optional(),
  usage: z
    .looseObject({
      input_tokens: z.number().optional(),
      output_tokens: z.number().optional(),
      cache_read_input_tokens: z.number().optional(),
      cache_creation_input_tokens: z.number().optional()
    })
    .optional(),
  modelUsage: z.record(z.string(), z.unknown()).optional(),
  terminal_reason: z.string().optional(),
  api_error_status: z.number().nullish(),
  errors: z.array(z.unknown()).optional()
})
export type WorkerResult = z.infer<typeof ResultSchema>

export function usageOf(result: WorkerResult | undefined): Usage {
  const u = result?.usage
  return {
    input_tokens: u?.input_tokens ?? 0,
    output_tokens: u?.output_tokens ?? 0,
    cache_read_input_tokens: u?.cache_read_input_tokens ?? 0,
    cache_creation_input_tokens: u?.cache_creation_input_tokens ?? 0
  }
}

/** How one worker process ended, as the spawner saw it. */
export interface WorkerExit {
  exitCode: number | null
  signal: string | null
  timedOut: boolean
  /** Why the run stopped this worker (a cancel), when it did. */
  stopped?: string
  result?: WorkerResult
  stderrTail: string
}

export type Verdict =
  | { kind: 'ok' }
  | { kind: 'timed-out'; error: string }
  | { kind: 'failed'; error: string; retryable: boolean }
  /** The run's stop ended the worker (or came before it started). */
  | { kind: 'cancelled'; error: string }

/** Statuses where the action itself should run the worker again, after a backoff. */
function isOverload(status: number): boolean {
  return status === 408 || status === 429 || status === 529 || (status >= 500 && status < 600)
}

function apiError(status: number): { error: string; retryable: boolean } {
  if (status === 401 || status === 403) {
    return {
      error: `the model endpoint rejected the key (${status}); check api-key and auth-header`,
      retryable: false
    }
  }
  if (status === 404) {
    return { error: 'the model endpoint answered 404; check base-url and model', retryable: false }
  }
  if (status === 429)
    return { error: 'the model endpoint kept rate-limiting the worker (429)', retryable: true }
  if (status === 529) return { error: 'the model endpoint was overloaded (529)', retryable: true }
  if (isOverload(status))
    return { error: `the model endpoint failed with ${status}`, retryable: true }
  return { error: `the model endpoint refused the request (${status})`, retryable: false }
}

/** The gate: success is `is_error === false` AND exit code 0; everything else is one sentence. */
export function judge(
  exit: WorkerExit,
  limits: { timeoutMinutes: number; maxTurns: number }
): Verdict {
  const { result } = exit
  if (exit.timedOut) {
    return {
      kind: 'timed-out',
      error: `the worker ran past timeout-minutes (${limits.timeoutMinutes}) and was stopped`
    }
  }
  if (result && !result.is_error && exit.exitCode === 0) return { kind: 'ok' }
  if (exit.stopped) return { kind: 'cancelled', error: `${exit.stopped}: the worker was stopped` }
  if (!result) {
    const how = exit.signal
      ? `was killed by ${exit.signal}`
      : `exited with code ${exit.exitCode ?? 'unknown'}`
    const tail = exit.stderrTail.trim().split('\n').slice(-1)[0]
    return {
      kind: 'failed',
      error: `the worker ${how} without a result${tail ? `: ${tail}` : ''}`,
      retryable: false
    }
  }
  if (result.subtype === 'error_max_turns' || result.terminal_reason === 'max_turns') {
    return {
      kind: 'failed',
      error: `the worker used all ${limits.maxTurns} turns (max-turns) without finishing`,
      retryable: false
    }
  }
  if (typeof result.api_error_status === 'number') {
    return { kind: 'failed', ...apiError(result.api_error_status) }
  }
  if (result.terminal_reason === 'api_error') {
    // No status: the request timed out or the connection failed. Worth another attempt.
    return {
      kind: 'failed',
      error: `the model endpoint did not answer: ${(result.result ?? 'no detail').slice(0, 200)}`,
      retryable: true
    }
  }
  const detail = result.errors?.map(String).join('; ') || result.result || result.subtype
  return {
    kind: 'failed',
    error: `the worker reported an error: ${detail.slice(0, 300)}`,
    retryable: false
  }
}
