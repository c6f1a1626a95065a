import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { nextStep, type RetryPolicy } from '../../src/worker/retry.js'
import type { Verdict } from '../../src/worker/result.js'

const overloaded: Verdict = {
  kind: 'failed',
  error: 'the model endpoint was overloaded (529)',
  retryable: true
}
const policy: RetryPolicy = { maxAttempts: 3, baseDelayMs: 1000 }

describe('nextStep', () => {
  it('never retries success, timeouts or non-retryable failures', () => {
    const never: Verdict[] = [
      { kind: 'ok' },
      { kind: 'timed-out', error: 't' },
      { kind: 'failed', error: 'the model endpoint rejected the key (401)', retryable: false }
    ]
    for (const verdict of never) {
      expect(nextStep(1, verdict, { ...policy, smallModel: 'small' })).toEqual({ retry: false })
    }
  })

  it('retries up to maxAttempts runs in all, then stops', () => {
    expect(nextStep(1, overloaded, policy)).toMatchObject({ retry: true, overflow: false })
    expect(nextStep(2, overloaded, policy)).toMatchObject({ retry: true, overflow: false })
    expect(nextStep(3, overloaded, policy)).toEqual({ retry: false })
  })

  it('with a small model, makes exactly one more overflow attempt', () => {
    const withSmall = { ...policy, smallModel: 'glm-4.5-air' }
    expect(nextStep(2, overloaded, withSmall)).toMatchObject({ retry: true, overflow: false })
    expect(nextStep(3, overloaded, withSmall)).toMatchObject({ retry: true, overflow: true })
    expect(nextStep(4, overloaded, withSmall)).toEqual({ retry: false })
    expect(
      nextStep(1, overloaded, { maxAttempts: 1, baseDelayMs: 10, smallModel: 's' })
    ).toMatchObject({ overflow: true })
  })

  it('backoff grows: the cap doubles each attempt (random = 1 gives the cap)', () => {
    const delays = [1, 2, 3, 4].map(a => {
      const step = nextStep(a, overloaded, { maxAttempts: 5, baseDelayMs: 1000 }, () => 1)
      return step.retry ? step.delayMs : -1
    })
    expect(delays).toEqual([1000, 2000, 4000, 8000])
  })

  it('jitter stays within [cap/2, cap] (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 9 }),
        fc.integer({ min: 0, max: 600_000 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (attempt, base, r) => {
          const step = nextStep(
            attempt,
            overloaded,
            { maxAttempts: 10, baseDelayMs: base },
            () => r
          )
          if (!step.retry) throw new Error('expected a retry')
          const cap = Math.min(5 * 60_000, base * 2 ** (attempt - 1))
          expect(step.delayMs).toBeGreaterThanOrEqual(Math.floor(cap / 2))
          expect(step.delayMs).toBeLessThanOrEqual(cap)
        }
      )
    )
  })

  it('never waits more than five minutes at once', () => {
    const step = nextStep(9, overloaded, { maxAttempts: 10, baseDelayMs: 600_000 }, () => 0.999)
    expect(step.retry && step.delayMs).toBeLessThanOrEqual(5 * 60_000)
    expect(step.retry && step.delayMs).toBeGreaterThanOrEqual(150_000)
  })

  it('uses Math.random by default, and the delays vary', () => {
    const delays = new Set(
      Array.from({ length: 20 }, () => {
        const step = nextStep(1, overloaded, { maxAttempts: 3, baseDelayMs: 100_000 })
        return step.retry ? step.delayMs : -1
      })
    )
    expect(delays.size).toBeGreaterThan(1)
    for (const d of delays) expect(d >= 50_000 && d <= 100_000).toBe(true)
  })
})
