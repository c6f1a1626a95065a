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

/** Tokens one or more passes of a reply used on one model; `model` undefined: the reply's own. */
export interface Pass {
  model?: string
  usage: Usage
}

/**
 * What one usage object says: its fields (summed over its passes) and, when it lists its passes
 * (`iterations`), those grouped by the model each ran on. With server-side compaction the passes
 * are a compaction and the message, both on the reply's model; an advisor pass (`advisor_message`)
 * names its own model. The top level shows only the last message pass: the billed tokens are
 * the passes' sum. Server tool requests (web search) are billed per request.
 */
interface Read {
  fields: Partial<Usage>
  passes?: Pass[]
  /** The endpoint counts cached tokens inside `input_tokens` (see `countsCacheInside`). */
  inclusive: boolean
}

/**
 * Anthropic's `input_tokens` is the input that was neither read from nor written to the cache;
 * some Anthropic-compatible endpoints put the cached tokens inside it, as OpenAI's
 * `prompt_tokens` does. The reply says which by its shape: one that also carries an OpenAI-style
 * count of the cached tokens (`cached_tokens`, `prompt_tokens_details.cached_tokens`,
 * `input_tokens_details.cached_tokens`, DeepSeek's `prompt_cache_hit_tokens`) or an OpenAI-style
 * total (`prompt_tokens`) counts them inside. Anthropic sends none of these.
 */
function countsCacheInside(raw: Raw): number | undefined {
  const cached = [
    num(raw.cached_tokens),
    num(obj(raw.prompt_tokens_details)?.cached_tokens),
    num(obj(raw.input_tokens_details)?.cached_tokens),
    num(raw.prompt_cache_hit_tokens)
  ].find(n => n !== undefined)
  if (cached !== undefined) return cached
  return num(raw.prompt_tokens) !== undefined ? 0 : undefined
}

function readUsage(value: unknown): Read {
  const raw = obj(value)
  if (!raw) return { fields: {}, inclusive: false }
  const cached = countsCacheInside(raw)
  let fields = flat(raw)
  // An inclusive endpoint that names its cache reads only the OpenAI way: they are reads all the same.
  if (cached !== undefined && fields.cache_read_input_tokens === undefined && cached > 0)
    fields.cache_read_input_tokens = cached
  const listed = (Array.isArray(raw.iterations) ? raw.iterations : []).map(obj)
  let passes: Pass[] | undefined
  if (listed.length > 0) {
    passes = byModel(listed.map(p => ({ model: modelOf(p), usage: complete(p ? flat(p) : {}) })))
    const summed = passes.map(p => p.usage).reduce(sum)
    // A split given only at the top level is the last pass's: writes it leaves out count as 5m.
    fields = { ...summed, cache_creation: summed.cache_creation ?? fields.cache_creation }
    if (!fields.cache_creation) delete fields.cache_creation
  }
  const searches = num(obj(raw.server_tool_use)?.web_search_requests)
  if (searches !== undefined) fields.server_tool_use = { web_search_requests: searches }
  return { fields, passes, inclusive: cached !== undefined }
}

/** The model a listed pass ran on, when it names one (an advisor's); else the reply's own. */
function modelOf(pass: Raw | undefined): string | undefined {
  const model = pass?.model
  return typeof model === 'string' && model !== '' ? model : undefined
}

/** Passes on the same model summed, in the order each model first ran. */
function byModel(passes: Pass[]): Pass[] {
  const out: Pass[] = []
  for (const p of passes) {
    const same = out.find(o => o.model === p.model)
    if (same) same.usage = sum(same.usage, p.usage)
    else out.push({ ...(p.model !== undefined ? { model: p.model } : {}), usage: p.usage })
  }
  return out
}

/** Cached tokens taken out of `input_tokens` once, for an endpoint that counts them inside. */
function cachedOnce(u: Usage): Usage {
  const inside = u.cache_read_input_tokens + u.cache_creation_input_tokens
  return { ...u, input_tokens: Math.max(0, u.input_tokens - inside) }
}

/** A reply's usage: the total (what budgets and reports count) and its passes by model (priced). */
export interface ReplyUsage {
  usage: Usage
  passes: Pass[]
  /** The model the endpoint says answered (`message.model`), when it said. */
  model?: string
}

/** The reply's usage from what it reported: one pass on its own model unless it listed them. */
function replyUsage(
  fields: Partial<Usage>,
  passes: Pass[] | undefined,
  inclusive: boolean,
  model: string | undefined
): ReplyUsage {
  const fix = (u: Usage) => (inclusive ? cachedOnce(u) : u)
  const usage = fix(complete(fields))
  if (!passes) return { usage, passes: [{ usage }], ...(model !== undefined ? { model } : {}) }
  const priced = passes.map(p => ({ ...p, usage: fix(p.usage) }))
  // Web searches are billed per request, once: with the reply's own model's pass.
  const own = priced.find(p => p.model === undefined) ?? priced[0]
  if (own && usage.server_tool_use)
    own.usage = { ...own.usage, server_tool_use: usage.server_tool_use }
  return { usage, passes: priced, ...(model !== undefined ? { model } : {}) }
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
 * A stream cut short counts what it had reported: `end()` reads a last event that lost only its
 * closing blank line, and ignores one cut inside its JSON.
 */
export class SseUsageReader {
  private readonly decoder = new TextDecoder()
  private readonly parser: EventSourceParser
  private seen: Partial<Usage> = {}
  private passes: Pass[] | undefined
  /** Once any of the reply's usage objects shows the inclusive shape, the whole reply is read so. */
  private inclusive = false
  private model: string | undefined
  /** Whether any usage was reported at all (a stream cut before message_start has none). */
  reported = false

  constructor() {
    this.parser = createParser({ onEvent: event => this.event(event) })
  }

  push(chunk: Uint8Array): void {
    this.parser.feed(this.decoder.decode(chunk, { stream: true }))
  }

  /** The stream ended, whole or cut: an event without its closing blank line still counts. */
  end(): Usage {
    return this.endReply().usage
  }

  endReply(): ReplyUsage {
    // Two line ends close a last event that had none: after a trailing CR (which may have been
    // the first half of a CRLF) the parser still waits, and reset({ consume }) does not flush it.
    this.parser.feed(`${this.decoder.decode()}\n\n`)
    return this.reply()
  }

  usage(): Usage {
    return this.reply().usage
  }

  reply(): ReplyUsage {
    return replyUsage(this.seen, this.passes, this.inclusive, this.model)
  }

  private event(message: EventSourceMessage): void {
    if (!message.data.includes('usage')) return
    let event: {
      type?: unknown
      usage?: unknown
      message?: { usage?: unknown; model?: unknown }
    }
    try {
      event = JSON.parse(message.data) as typeof event
    } catch {
      return
    }
    if (event.type === 'message_start') {
      if (typeof event.message?.model === 'string') this.model = event.message.model
      this.merge(readUsage(event.message?.usage))
    } else if (event.type === 'message_delta') this.merge(readUsage(event.usage))
  }

  private merge(read: Read): void {
    if (Object.keys(read.fields).length > 0) this.reported = true
    this.seen = { ...this.seen, ...read.fields }
    // Cumulative too: a later list of passes replaces an earlier one.
    if (read.passes) this.passes = read.passes
    this.inclusive ||= read.inclusive
  }
}

/** The usage of a plain JSON Messages reply (the CLI's non-streaming fallback). */
export function jsonUsage(body: string): Usage | undefined {
  return jsonReply(body)?.usage
}

export function jsonReply(body: string): ReplyUsage | undefined {
  try {
    const parsed = JSON.parse(body) as { type?: unknown; usage?: unknown; model?: unknown }
    if (parsed.type !== 'message') return undefined
    const read = readUsage(parsed.usage)
    const model = typeof parsed.model === 'string' ? parsed.model : undefined
    return replyUsage(read.fields, read.passes, read.inclusive, model)
  } catch {
    return undefined
  }
}
