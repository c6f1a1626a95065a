/**
 * Prices, in one place: a model's price and the ratios it defaults to, the run's price book, a
 * usage's cost, the `prices` input read, and a cost as the reports write it. The gateway prices
 * each request by it, the config reads the inputs into it, the reports print its amounts.
 */
import { parse } from 'yaml'
import { z } from 'zod'
import type { Usage } from './domain.js'

/**
 * One model's prices: USD per million tokens, and USD per web search request. Only input and
 * output are required; the rest default to Anthropic's published ratios (fullPrice).
 */
export interface Price {
  input: number
  output: number
  cacheWrite5m?: number
  cacheWrite1h?: number
  cacheRead?: number
  webSearch?: number
}

export type FullPrice = Required<Price>

/** Anthropic's published web search price: $10 per 1,000 searches. */
export const WEB_SEARCH_USD = 0.01

/** The ratios Anthropic bills: 5-minute cache writes 1.25x input, 1-hour 2x, reads 0.1x. */
export function fullPrice(p: Price): FullPrice {
  return {
    input: p.input,
    output: p.output,
    cacheWrite5m: p.cacheWrite5m ?? p.input * 1.25,
    cacheWrite1h: p.cacheWrite1h ?? p.input * 2,
    cacheRead: p.cacheRead ?? p.input * 0.1,
    webSearch: p.webSearch ?? WEB_SEARCH_USD
  }
}

/** The run's prices: per model (the `prices` input), and price-input/price-output for the rest. */
export interface PriceBook {
  models: Record<string, Price>
  fallback?: Price
}

export function priceFor(
  book: PriceBook | undefined,
  model: string | undefined
): Price | undefined {
  if (!book) return undefined
  const own = model !== undefined ? book.models[model] : undefined
  return own ?? book.fallback
}

/**
 * A cost from the user's own prices. The CLI's `total_cost_usd` uses Anthropic's list prices for
 * the model name, which means nothing on other endpoints, so it is never shown. Cache writes the
 * endpoint did not split by lifetime are priced as 5-minute writes (the API's default lifetime).
 */
export function costOf(usage: Usage, price: Price): number {
  const p = fullPrice(price)
  const hour = Math.min(
    usage.cache_creation?.ephemeral_1h_input_tokens ?? 0,
    usage.cache_creation_input_tokens
  )
  const tokens =
    usage.input_tokens * p.input +
    usage.output_tokens * p.output +
    (usage.cache_creation_input_tokens - hour) * p.cacheWrite5m +
    hour * p.cacheWrite1h +
    usage.cache_read_input_tokens * p.cacheRead
  const searches = usage.server_tool_use?.web_search_requests ?? 0
  return tokens / 1_000_000 + searches * p.webSearch
}

export function usd(amount: number): string {
  return amount < 0.01 && amount > 0 ? `$${amount.toFixed(4)}` : `$${amount.toFixed(2)}`
}

const dollars = z.number().finite().nonnegative()

const entry = z.strictObject({
  input: dollars,
  output: dollars,
  'cache-write-5m': dollars.optional(),
  'cache-write-1h': dollars.optional(),
  'cache-read': dollars.optional(),
  'web-search': dollars.optional()
})

const EXAMPLE =
  "e.g. 'glm-4.6: {input: 0.6, output: 2.2}' (USD per million tokens; optional cache-write-5m, cache-write-1h, cache-read, and web-search in USD per request)"

/**
 * The `prices` input: a YAML mapping of model name to its prices. Returns the prices by model, or
 * a sentence saying what is wrong and what would be right.
 */
export function parsePrices(text: string): Record<string, Price> | string {
  if (text.trim() === '') return {}
  let raw: unknown
  try {
    raw = parse(text)
  } catch (error) {
    return `not YAML (${error instanceof Error ? error.message.split('\n')[0] : String(error)}): expected one line per model, ${EXAMPLE}`
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    return `expected a mapping of model names to prices, ${EXAMPLE}`
  const out: Record<string, Price> = {}
  for (const [model, value] of Object.entries(raw as Record<string, unknown>)) {
    const parsed = entry.safeParse(value)
    if (!parsed.success) {
      const issue = parsed.error.issues[0]
      const where = issue?.path.length ? ` at '${issue.path.join('.')}'` : ''
      return `model '${model}'${where}: ${issue?.message ?? 'invalid'}; expected ${EXAMPLE}`
    }
    const p = parsed.data
    out[model] = {
      input: p.input,
      output: p.output,
      ...(p['cache-write-5m'] !== undefined ? { cacheWrite5m: p['cache-write-5m'] } : {}),
      ...(p['cache-write-1h'] !== undefined ? { cacheWrite1h: p['cache-write-1h'] } : {}),
      ...(p['cache-read'] !== undefined ? { cacheRead: p['cache-read'] } : {}),
      ...(p['web-search'] !== undefined ? { webSearch: p['web-search'] } : {})
    }
  }
  return out
}
