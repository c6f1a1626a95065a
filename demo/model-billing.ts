// Usage shapes the real API sends, for the scripted model server: compaction's `iterations`, the
// cache writes split by lifetime, web search requests, and SSE framed the way a strict reader
// must still read it (an event's JSON over several data: lines, comments, CRLF line ends).
import type http from 'node:http'

/** The wire usage of a rich reply: the top level shows the last pass only. */
const LAST_PASS = {
  input_tokens: 50,
  output_tokens: 30,
  cache_read_input_tokens: 40,
  cache_creation_input_tokens: 300,
  cache_creation: { ephemeral_5m_input_tokens: 100, ephemeral_1h_input_tokens: 200 }
}

export const RICH_START_USAGE = { ...LAST_PASS, output_tokens: 1 }

export const RICH_WIRE_USAGE = {
  ...LAST_PASS,
  server_tool_use: { web_search_requests: 2 },
  iterations: [{ type: 'compaction', input_tokens: 20_000, output_tokens: 470 }, LAST_PASS]
}

/** What the endpoint bills for that reply: the iterations summed, the split and the searches. */
export const RICH_BILLED = {
  input_tokens: 20_050,
  output_tokens: 500,
  cache_read_input_tokens: 40,
  cache_creation_input_tokens: 300,
  cache_creation: { ephemeral_5m_input_tokens: 100, ephemeral_1h_input_tokens: 200 },
  server_tool_use: { web_search_requests: 2 }
}

/** One SSE event as a strict reader must still take it: a comment, CRLF, JSON over many lines. */
export function richSse(res: http.ServerResponse, type: string, data: Record<string, unknown>) {
  const lines = JSON.stringify({ type, ...data }, null, 1).split('\n')
  res.write(`: fleet billing\r\nevent: ${type}\r\n${lines.map(l => `data: ${l}\r\n`).join('')}\r\n`)
}

/** The marker of a worker's own request that bills its worst case (a hostile burst's test). */
export const BURN_MARKER = '[[fleet-burn]]'

interface Tokens {
  input_tokens: number
  output_tokens: number
  cache_read_input_tokens: number
  cache_creation_input_tokens: number
}

/**
 * A request outside any script: `plain`, or, marked with BURN_MARKER, the worst it can be billed
 * (its body's bytes as input, all of max_tokens as output).
 */
export function sideUsage(body: Record<string, unknown>, raw: Buffer, plain: Tokens): Tokens {
  if (!raw.includes(BURN_MARKER)) return plain
  const max = typeof body.max_tokens === 'number' ? body.max_tokens : 0
  return {
    input_tokens: raw.length,
    output_tokens: max,
    cache_read_input_tokens: 0,
    cache_creation_input_tokens: 0
  }
}

/** As the API does: never more output than the request's max_tokens (the gateway may lower it). */
export function withinMaxTokens<U extends Tokens>(body: Record<string, unknown>, usage: U): U {
  const max = body.max_tokens
  return typeof max === 'number' && usage.output_tokens > max
    ? { ...usage, output_tokens: max }
    : usage
}
