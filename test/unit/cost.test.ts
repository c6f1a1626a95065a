import { describe, expect, it } from 'vitest'
import { parseConfig } from '../../src/config.js'
import { costOf, usd } from '../../src/report/cost.js'

describe('cost from the price inputs', () => {
  it('prices input, cache and output tokens per million', () => {
    const usage = {
      input_tokens: 600_000,
      output_tokens: 100_000,
      cache_read_input_tokens: 300_000,
      cache_creation_input_tokens: 100_000
    }
    expect(costOf(usage, { input: 0.6, output: 2.2 })).toBeCloseTo(0.6 + 0.22, 10)
    expect(usd(0.82)).toBe('$0.82')
    expect(usd(0.0012)).toBe('$0.0012')
  })

  it('is absent without prices, and a bad price names its input', () => {
    expect(parseConfig({}).price).toBeUndefined()
    expect(parseConfig({ 'INPUT_PRICE-INPUT': '0.6', 'INPUT_PRICE-OUTPUT': '2.2' }).price).toEqual({
      input: 0.6,
      output: 2.2
    })
    expect(() => parseConfig({ 'INPUT_PRICE-INPUT': 'cheap', 'INPUT_PRICE-OUTPUT': '2' })).toThrow(
      /Input 'price-input'.*USD per million/
    )
    expect(() => parseConfig({ 'INPUT_PRICE-INPUT': '1' })).toThrow(/Input 'price-output'/)
  })
})
