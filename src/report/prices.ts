import { parse } from 'yaml'
import { z } from 'zod'
import type { Price } from './cost.js'

const usd = z.number().finite().nonnegative()

const entry = z.strictObject({
  input: usd,
  output: usd,
  'cache-write-5m': usd.optional(),
  'cache-write-1h': usd.optional(),
  'cache-read': usd.optional(),
  'web-search': usd.optional()
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
