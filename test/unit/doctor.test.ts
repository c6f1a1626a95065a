import { describe, expect, it } from 'vitest'
import { endpointVerdict } from '../../src/doctor.js'

describe('doctor: what one request to the endpoint says', () => {
  it.each([
    [200, true, /answered 200/],
    [401, false, /rejected the key \(401\)/],
    [403, false, /rejected the key \(403\)/],
    [404, false, /wrong --base-url .*without \/v1.* or unknown --model/],
    [429, true, /reachable but busy \(429\)/],
    [529, true, /reachable but busy \(529\)/],
    [500, false, /answered 500/]
  ])('%i -> ok %s', (status, ok, detail) => {
    const check = endpointVerdict(status)
    expect(check.ok).toBe(ok)
    expect(check.detail).toMatch(detail)
  })

  it('an error before any answer is "unreachable", naming the cause', () => {
    expect(endpointVerdict(undefined, 'ENOTFOUND')).toEqual({
      name: 'model endpoint',
      ok: false,
      detail: 'unreachable: ENOTFOUND; check --base-url and the network'
    })
  })
})
