import { describe, expect, it } from 'vitest'
import { parseConfig } from '../../src/config.js'
import { costOf, usd } from '../../src/prices.js'

describe('cost from the price inputs', () => {
  it('prices input, cache and output tokens per million', () => {
    const usage = {
      input_tokens: 600_000,
      output_tokens: 100_000,
      cache_read_input_tokens: 300_000,
      cache_creation_input_tokens: 100_000
    }
    // 0.6 x 0.6 in + 0.1 x 2.2 out + 0.1 x 0.75 (5-minute writes, 1.25x) + 0.3 x 0.06 (reads, 0.1x)
    expect(costOf(usage, { input: 0.6, output: 2.2 })).toBeCloseTo(0.36 + 0.22 + 0.075 + 0.018, 10)
    expect(usd(0.82)).toBe('$0.82')
    expect(usd(0.0012)).toBe('$0.0012')
  })

  it('prices 1-hour writes at 2x, 5-minute at 1.25x, and each web search, unless prices say otherwise', () => {
    const usage = {
      input_tokens: 0,
      output_tokens: 0,
      cache_read_input_tokens: 0,
      cache_creation_input_tokens: 3_000_000,
      cache_creation: {
        ephemeral_5m_input_tokens: 1_000_000,
        ephemeral_1h_input_tokens: 2_000_000
      },
      server_tool_use: { web_search_requests: 7 }
    }
    expect(costOf(usage, { input: 1, output: 5 })).toBeCloseTo(1.25 + 4 + 0.07, 10)
    const own = { input: 1, output: 5, cacheWrite5m: 1, cacheWrite1h: 1, webSearch: 0 }
    expect(costOf(usage, own)).toBeCloseTo(3, 10)
  })

  it('reads the prices input per model, and names the model and field that is wrong', () => {
    const c = parseConfig({
      INPUT_PRICES:
        'glm-4.6: {input: 0.6, output: 2.2}\nopus: {input: 5, output: 25, cache-read: 0.4, web-search: 0.02}',
      'INPUT_MAX-TASK-COST-USD': '1'
    })
    expect(c.prices).toEqual({
      models: {
        'glm-4.6': { input: 0.6, output: 2.2 },
        opus: { input: 5, output: 25, cacheRead: 0.4, webSearch: 0.02 }
      },
      fallback: undefined
    })
    expect(() => parseConfig({ INPUT_PRICES: 'glm: {input: 1}' })).toThrow(
      /Input 'prices': model 'glm' at 'output'.*expected e\.g\. 'glm-4\.6: \{input: 0\.6, output: 2\.2\}'/
    )
    expect(() => parseConfig({ INPUT_PRICES: 'glm: {input: 1, output: 2, cache: 3}' })).toThrow(
      /Input 'prices': model 'glm'/
    )
    expect(() => parseConfig({ INPUT_PRICES: '- a\n- b' })).toThrow(
      /Input 'prices': expected a mapping/
    )
  })

  it('is absent without prices, and a bad price names its input', () => {
    expect(parseConfig({}).price).toBeUndefined()
    expect(parseConfig({}).prices).toBeUndefined()
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
