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

/** The worst a request can be billed: its body's bytes as input, all of max_tokens as output. */
export function burnUsage(body: Record<string, unknown>, bytes: number) {
  const max = typeof body.max_tokens === 'number' ? body.max_tokens : 0
  return {
    input_tokens: bytes,
    output_tokens: max,
    cache_read_input_tokens: 0,
    cache_creation_input_tokens: 0
  }
}
