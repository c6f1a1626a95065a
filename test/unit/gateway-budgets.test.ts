import { describe, expect, it } from 'vitest'
import { parseConfig } from '../../src/config.js'
import { breach, budgetLines } from '../../src/gateway/budgets.js'
import { askedDelayMs, disposition, nextAttempt } from '../../src/gateway/retry.js'

const tokens = (n: number) => ({ tokens: n, cost: 0 })
const dollars = (n: number) => ({ tokens: 0, cost: n })

describe('budgets', () => {
  it('refuses a request once a budget is spent, naming it in the outcome words', () => {
    const budgets = { taskTokens: 1000, runTokens: 5000 }
    expect(breach(budgets, false, { task: tokens(999), run: tokens(999) })).toBeUndefined()
    expect(breach(budgets, false, { task: tokens(1213), run: tokens(1213) })).toEqual({
      input: 'budgets: task-tokens',
      scope: 'task',
      message: 'token budget spent: 1,213 of 1,000 tokens (budgets: task-tokens)'
    })
    expect(breach(budgets, false, { task: tokens(1), run: tokens(5000) })?.message).toBe(
      'token budget spent: 5,000 of 5,000 tokens (budgets: run-tokens)'
    )
  })

  it('checks cost budgets only when the run is priced, and reports each budget once', () => {
    expect(breach({ runCostUsd: 0.002 }, true, { task: dollars(0), run: dollars(0.0019) })).toBe(
      undefined
    )
    expect(breach({ runCostUsd: 0.0019 }, false, { task: dollars(1), run: dollars(1) })).toBe(
      undefined
    )
    expect(
      breach({ runCostUsd: 0.0019 }, true, { task: dollars(0), run: dollars(0.0019) })?.message
    ).toBe('cost budget spent: $0.0019 of $0.0019 (budgets: run-cost-usd)')
    const run = { tokens: 1005, cost: 0.0019 }
    expect(
      budgetLines({ taskTokens: 1000, runCostUsd: 0.01 }, true, run, [tokens(1000), tokens(5)])
    ).toEqual([
      'budgets: task-tokens: 1,000 of 1,000 tokens (the most any task spent)',
      'budgets: run-cost-usd: $0.0019 of $0.0100'
    ])
  })

  it('are inputs: numbers above 0, cost ones only with prices', () => {
    const c = parseConfig({ 'INPUT_MAX-TASK-TOKENS': '1000', 'INPUT_MAX-RUN-TOKENS': '' })
    expect(c.budgets).toEqual({ taskTokens: 1000 })
    expect(() => parseConfig({ 'INPUT_MAX-TASK-TOKENS': '1e3' })).toThrow(
      /Input 'max-task-tokens': expected a whole number/
    )
    expect(() => parseConfig({ 'INPUT_MAX-RUN-COST-USD': '5' })).toThrow(
      /Input 'max-run-cost-usd': a cost budget needs your prices/
    )
    expect(parseConfig({}).modelConcurrency).toBe('auto')
    expect(parseConfig({ 'INPUT_MODEL-CONCURRENCY': '2' }).modelConcurrency).toBe(2)
    expect(() => parseConfig({ 'INPUT_MODEL-CONCURRENCY': 'lots' })).toThrow(
      /Input 'model-concurrency': expected auto or a whole number/
    )
  })
})

describe('the gateway retry policy', () => {
  const policy = { maxAttempts: 3, baseDelayMs: 500, maxDelayMs: 30_000, maxElapsedMs: 120_000 }

  it('retries refusals and overload, passes everything else on', () => {
    expect([429, 529, 500, 503, 408, 400, 401, 404, 200].map(disposition)).toEqual([
      'refused',
      'overloaded',
      'overloaded',
      'overloaded',
      'overloaded',
      'pass',
      'pass',
      'pass',
      'pass'
    ])
  })

  it('waits with full jitter under an exponential cap, or as long as the endpoint asked', () => {
    expect(nextAttempt(1, 'overloaded', { policy, elapsedMs: 0, random: () => 0.5 })).toEqual({
      retry: true,
      delayMs: 250
    })
    expect(nextAttempt(2, 'refused', { policy, elapsedMs: 0, random: () => 1 })).toEqual({
      retry: true,
      delayMs: 1000
    })
    expect(nextAttempt(1, 'refused', { policy, elapsedMs: 0, askedMs: 7000 })).toEqual({
      retry: true,
      delayMs: 7000
    })
    expect(askedDelayMs({ 'retry-after-ms': '1500', 'retry-after': '9' }, 0)).toBe(1500)
    expect(askedDelayMs({ 'retry-after': '2' }, 0)).toBe(2000)
    expect(askedDelayMs({ 'retry-after': new Date(10_000).toUTCString() }, 4000)).toBe(6000)
    expect(askedDelayMs({}, 0)).toBeUndefined()
  })

  it('stops at max-attempts, then tries small-model once on overload; never past the time bound', () => {
    expect(nextAttempt(3, 'overloaded', { policy, elapsedMs: 0 })).toEqual({ retry: false })
    const small = { ...policy, smallModel: 'glm-4.5-air' }
    expect(nextAttempt(3, 'overloaded', { policy: small, elapsedMs: 0, random: () => 0 })).toEqual({
      retry: true,
      delayMs: 0,
      model: 'glm-4.5-air'
    })
    expect(nextAttempt(4, 'overloaded', { policy: small, elapsedMs: 0 })).toEqual({ retry: false })
    expect(nextAttempt(3, 'refused', { policy: small, elapsedMs: 0 })).toEqual({ retry: false })
    expect(nextAttempt(1, 'refused', { policy, elapsedMs: 119_000, askedMs: 5000 })).toEqual({
      retry: false
    })
  })
})
