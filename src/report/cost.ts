import type { Usage } from '../domain.js'

/** USD per million tokens, from the price inputs. */
export interface Price {
  input: number
  output: number
}

/**
 * A cost from the user's own prices. The CLI's `total_cost_usd` uses Anthropic's list prices for
 * the model name, which means nothing on other endpoints, so it is never shown. Cached tokens are
 * priced as input tokens: an upper bound where the provider discounts cache reads.
 */
export function costOf(usage: Usage, price: Price): number {
  const input =
    usage.input_tokens + usage.cache_creation_input_tokens + usage.cache_read_input_tokens
  return (input * price.input + usage.output_tokens * price.output) / 1_000_000
}

export function usd(amount: number): string {
  return amount < 0.01 && amount > 0 ? `$${amount.toFixed(4)}` : `$${amount.toFixed(2)}`
}
