import { describe, expect, it } from 'vitest'
import { addUsage, ZERO_USAGE } from '../../src/domain.js'
import {
  judge,
  ResultSchema,
  usageOf,
  type WorkerExit,
  type WorkerResult
} from '../../src/worker/result.js'
import { nextStep } from '../../src/worker/retry.js'

const limits = { timeoutMinutes: 30, maxTurns: 40 }

/** A result object as the CLI prints it, with fields it adds across versions. */
function result(over: Partial<WorkerResult> = {}): WorkerResult {
  return ResultSchema.parse({
    type: 'result',
    subtype: 'success',
    is_error: false,
    result: 'Done: fixed the bug.',
    num_turns: 3,
    duration_ms: 2100,
    duration_api_ms: 1500,
    session_id: 'abc',
    total_cost_usd: 0.01,
    permission_denials: [],
    usage: {
      input_tokens: 10,
      output_tokens: 20,
      cache_read_input_tokens: 30,
      cache_creation_input_tokens: 40,
      server_tool_use: {}
    },
    terminal_reason: 'completed',
    ...over
  })
}

function exit(over: Partial<WorkerExit> = {}): WorkerExit {
  return { exitCode: 0, signal: null, timedOut: false, result: result(), stderrTail: '', ...over }
}

/** What the CLI prints when the endpoint keeps answering `status`. */
const apiFailure = (status: number) =>
  exit({
    exitCode: 1,
    result: result({
      subtype: 'success',
      is_error: true,
      result: `API Error: ${status}`,
      terminal_reason: 'api_error',
      api_error_status: status
    })
  })

describe('ResultSchema', () => {
  it('tolerates unknown keys and keeps them', () => {
    const parsed = ResultSchema.parse({
      type: 'result',
      subtype: 'success',
      is_error: false,
      brand_new_field: { x: 1 }
    })
    expect(parsed.brand_new_field).toEqual({ x: 1 })
  })

  it('accepts a null api_error_status and refuses a non-result line', () => {
    expect(
      ResultSchema.safeParse({
        type: 'result',
        subtype: 'success',
        is_error: false,
        api_error_status: null
      }).success
    ).toBe(true)
    expect(ResultSchema.safeParse({ type: 'assistant', message: {} }).success).toBe(false)
    expect(ResultSchema.safeParse({ type: 'result', subtype: 'success' }).success).toBe(false)
  })
})

describe('judge', () => {
  it('is ok only when is_error is false AND the exit code is 0', () => {
    expect(judge(exit(), limits)).toEqual({ kind: 'ok' })
    expect(judge(exit({ exitCode: 1 }), limits).kind).toBe('failed')
    expect(judge(exit({ result: result({ is_error: true }) }), limits).kind).toBe('failed')
    expect(judge(exit({ exitCode: null, signal: 'SIGTERM' }), limits).kind).toBe('failed')
  })

  it("a worker the run's stop ended is cancelled, not failed, and never retried", () => {
    const stopped = exit({
      exitCode: null,
      signal: 'SIGTERM',
      result: undefined,
      stopped: 'the run was cancelled'
    })
    expect(judge(stopped, limits)).toEqual({
      kind: 'cancelled',
      error: 'the run was cancelled: the worker was stopped'
    })
    const policy = { maxAttempts: 3, baseDelayMs: 1000, smallModel: 'small' }
    expect(nextStep(1, judge(stopped, limits), policy)).toEqual({ retry: false })
  })

  it('a 401 fails for good and says the key was rejected', () => {
    const verdict = judge(apiFailure(401), limits)
    expect(verdict).toMatchObject({ kind: 'failed', retryable: false })
    expect(verdict.kind === 'failed' && verdict.error).toMatch(/rejected the key \(401\)/)
  })

  it.each([429, 529, 500, 502, 503])('%i is retryable', status => {
    const verdict = judge(apiFailure(status), limits)
    expect(verdict).toMatchObject({ kind: 'failed', retryable: true })
    expect(verdict.kind === 'failed' && verdict.error).toContain(String(status))
  })

  it.each([400, 403, 404])('%i is not retryable', status => {
    expect(judge(apiFailure(status), limits)).toMatchObject({ kind: 'failed', retryable: false })
  })

  it('running out of turns says max-turns', () => {
    const maxed = exit({
      exitCode: 1,
      result: ResultSchema.parse({
        type: 'result',
        subtype: 'error_max_turns',
        is_error: true,
        num_turns: 41,
        terminal_reason: 'max_turns'
      })
    })
    const verdict = judge(maxed, limits)
    expect(verdict).toMatchObject({ kind: 'failed', retryable: false })
    expect(verdict.kind === 'failed' && verdict.error).toMatch(/all 40 turns \(max-turns\)/)
  })

  it('a timeout is timed-out, whatever else happened', () => {
    const verdict = judge(
      exit({ timedOut: true, exitCode: null, signal: 'SIGKILL', result: undefined }),
      limits
    )
    expect(verdict.kind).toBe('timed-out')
    expect(verdict.kind === 'timed-out' && verdict.error).toContain('timeout-minutes (30)')
  })

  it('no result and a signal: killed by that signal', () => {
    const verdict = judge(
      exit({ exitCode: null, signal: 'SIGKILL', result: undefined, stderrTail: 'starting\n' }),
      limits
    )
    expect(verdict).toMatchObject({ kind: 'failed', retryable: false })
    expect(verdict.kind === 'failed' && verdict.error).toContain('killed by SIGKILL')
  })

  it('no result and an exit code: the code and the last stderr line', () => {
    const verdict = judge(
      exit({
        exitCode: 1,
        result: undefined,
        stderrTail: 'noise\nclaude native binary not installed\n'
      }),
      limits
    )
    expect(verdict.kind === 'failed' && verdict.error).toBe(
      'the worker exited with code 1 without a result: claude native binary not installed'
    )
  })

  it('another error reports what the CLI said', () => {
    const verdict = judge(
      exit({
        exitCode: 1,
        result: result({ is_error: true, subtype: 'error_during_execution', errors: ['boom'] })
      }),
      limits
    )
    expect(verdict.kind === 'failed' && verdict.error).toContain('boom')
  })
})

describe('usage', () => {
  it('reads the four token fields, zero when absent, and adds them', () => {
    const u = usageOf(result())
    expect(u).toEqual({
      input_tokens: 10,
      output_tokens: 20,
      cache_read_input_tokens: 30,
      cache_creation_input_tokens: 40
    })
    expect(usageOf(undefined)).toEqual(ZERO_USAGE)
    expect(addUsage(u, u)).toEqual({
      input_tokens: 20,
      output_tokens: 40,
      cache_read_input_tokens: 60,
      cache_creation_input_tokens: 80
    })
  })
})
