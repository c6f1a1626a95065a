import { describe, expect, it } from 'vitest'
import { describeError } from '../../src/errors.js'

describe('describeError', () => {
  it('keeps every cause, in order', () => {
    const root = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), {
      code: 'ECONNREFUSED'
    })
    const mid = new Error('fetch failed', { cause: root })
    expect(describeError(new Error('could not list issues', { cause: mid }))).toBe(
      'could not list issues (cause: fetch failed (cause: connect ECONNREFUSED 127.0.0.1:1))'
    )
  })

  it('says what a non-Error throw was', () => {
    expect(describeError('plain')).toBe('plain')
    expect(describeError({ status: 502 })).toBe('{ status: 502 }')
    expect(describeError(new Error('top', { cause: { code: 'E1' } }))).toBe(
      "top (cause: { code: 'E1' })"
    )
  })
})
