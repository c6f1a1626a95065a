import { createParser, type EventSourceMessage, type EventSourceParser } from 'eventsource-parser'
import type { Usage } from '../domain.js'

const FIELDS = [
  'input_tokens',
  'output_tokens',
  'cache_read_input_tokens',
  'cache_creation_input_tokens'
] as const

type Raw = Record<string, unknown>

const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : undefined)
const obj = (v: unknown) => (typeof v === 'object' && v !== null ? (v as Raw) : undefined)

/** The plain token fields of one usage object, as numbers; anything else is ignored. */
function flat(raw: Raw): Partial<Usage> {
  const out: Partial<Usage> = {}
  for (const field of FIELDS) {
    const value = num(raw[field])
    if (value !== undefined) out[field] = value
  }
  const split = obj(raw.cache_creation)
  if (split) {
    out.cache_creation = {
      ephemeral_5m_input_tokens: num(split.ephemeral_5m_input_tokens) ?? 0,
      ephemeral_1h_input_tokens: num(split.ephemeral_1h_input_tokens) ?? 0
    }
  }
  return out
}

/**
 * The usage fields an endpoint reported. With server-side compaction `iterations` lists every
 * pass and the top level shows only the last: the billed tokens are the iterations' sum.
 * Server tool requests (web search) are billed per request.
 */
function fieldsOf(value: unknown): Partial<Usage> {
  const raw = obj(value)
  if (!raw) return {}
  let out = flat(raw)
  const passes = (Array.isArray(raw.iterations) ? raw.iterations : []).map(obj)
  if (passes.length > 0) {
    const summed = passes.map(p => complete(p ? flat(p) : {})).reduce(sum)
    // A split given only at the top level is the last pass's: writes it leaves out count as 5m.
    out = { ...summed, cache_creation: summed.cache_creation ?? out.cache_creation }
    if (!out.cache_creation) delete out.cache_creation
  }
  const searches = num(obj(raw.server_tool_use)?.web_search_requests)
  if (searches !== undefined) out.server_tool_use = { web_search_requests: searches }
  return out
}

function sum(a: Usage, b: Usage): Usage {
  const out: Usage = complete({})
  for (const f of FIELDS) out[f] = a[f] + b[f]
  if (a.cache_creation || b.cache_creation)
    out.cache_creation = {
      ephemeral_5m_input_tokens:
        (a.cache_creation?.ephemeral_5m_input_tokens ?? 0) +
        (b.cache_creation?.ephemeral_5m_input_tokens ?? 0),
      ephemeral_1h_input_tokens:
        (a.cache_creation?.ephemeral_1h_input_tokens ?? 0) +
        (b.cache_creation?.ephemeral_1h_input_tokens ?? 0)
    }
  return out
}

/** One response's usage from its fields seen so far; missing fields count 0. */
export function complete(partial: Partial<Usage>): Usage {
  return {
    input_tokens: partial.input_tokens ?? 0,
    output_tokens: partial.output_tokens ?? 0,
    cache_read_input_tokens: partial.cache_read_input_tokens ?? 0,
    cache_creation_input_tokens: partial.cache_creation_input_tokens ?? 0,
    ...(partial.cache_creation ? { cache_creation: partial.cache_creation } : {}),
    ...(partial.server_tool_use ? { server_tool_use: partial.server_tool_use } : {})
  }
}

/** Input + output + cache creation + cache read: what the token budgets count. */
export function totalTokens(u: Usage): number {
  return (
    u.input_tokens + u.output_tokens + u.cache_creation_input_tokens + u.cache_read_input_tokens
  )
}

/**
 * Reads a Messages SSE stream chunk by chunk, at any byte boundary, and keeps the response's
 * usage: `message_start` seeds it, `message_delta` usage is cumulative, so its fields overwrite
 * (never add to) what was there. The SSE framing (multi-line data joined by \n, comments, CR,
 * LF and CRLF line ends) is eventsource-parser's; only events that mention usage are parsed.
 */
export class SseUsageReader {
  private readonly decoder = new TextDecoder()
  private readonly parser: EventSourceParser
  private seen: Partial<Usage> = {}
  /** Whether any usage was reported at all (a stream cut before message_start has none). */
  reported = false

  constructor() {
    this.parser = createParser({ onEvent: event => this.event(event) })
  }

  push(chunk: Uint8Array): void {
    this.parser.feed(this.decoder.decode(chunk, { stream: true }))
  }

  /** The stream ended: an event without its closing blank line still counts. */
  end(): Usage {
    // Two line ends close a last event that had none: after a trailing CR (which may have been
    // the first half of a CRLF) the parser still waits, and reset({ consume }) does not flush it.
    this.parser.feed(`${this.decoder.decode()}\n\n`)
    return this.usage()
  }

  usage(): Usage {
    return complete(this.seen)
  }

  private event(message: EventSourceMessage): void {
    if (!message.data.includes('usage')) return
    let event: { type?: unknown; usage?: unknown; message?: { usage?: unknown } }
    try {
      event = JSON.parse(message.data) as typeof event
    } catch {
      return
    }
    if (event.type === 'message_start') this.merge(fieldsOf(event.message?.usage))
    else if (event.type === 'message_delta') this.merge(fieldsOf(event.usage))
  }

  private merge(fields: Partial<Usage>): void {
    if (Object.keys(fields).length > 0) this.reported = true
    this.seen = { ...this.seen, ...fields }
  }
}

/** The usage of a plain JSON Messages reply (the CLI's non-streaming fallback). */
export function jsonUsage(body: string): Usage | undefined {
  try {
    const parsed = JSON.parse(body) as { type?: unknown; usage?: unknown }
    if (parsed.type !== 'message') return undefined
    return complete(fieldsOf(parsed.usage))
  } catch {
    return undefined
  }
}
