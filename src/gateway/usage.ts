import type { Usage } from '../domain.js'

const FIELDS = [
  'input_tokens',
  'output_tokens',
  'cache_read_input_tokens',
  'cache_creation_input_tokens'
] as const

/** The usage fields an endpoint reported, as numbers; anything else is ignored. */
function fieldsOf(raw: unknown): Partial<Usage> {
  if (typeof raw !== 'object' || raw === null) return {}
  const out: Partial<Usage> = {}
  for (const field of FIELDS) {
    const value = (raw as Record<string, unknown>)[field]
    if (typeof value === 'number' && Number.isFinite(value)) out[field] = value
  }
  return out
}

/** One response's usage from its fields seen so far; missing fields count 0. */
export function complete(partial: Partial<Usage>): Usage {
  return {
    input_tokens: partial.input_tokens ?? 0,
    output_tokens: partial.output_tokens ?? 0,
    cache_read_input_tokens: partial.cache_read_input_tokens ?? 0,
    cache_creation_input_tokens: partial.cache_creation_input_tokens ?? 0
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
 * (never add to) what was there. Only `data:` lines that mention usage are parsed: text deltas
 * are most of a stream and need no JSON.parse.
 */
export class SseUsageReader {
  private readonly decoder = new TextDecoder()
  private pending = ''
  private seen: Partial<Usage> = {}
  /** Whether any usage was reported at all (a stream cut before message_start has none). */
  reported = false

  push(chunk: Uint8Array): void {
    this.pending += this.decoder.decode(chunk, { stream: true })
    this.drain(false)
  }

  /** The stream ended: a last line without its newline still counts. */
  end(): Usage {
    this.pending += this.decoder.decode()
    this.drain(true)
    return this.usage()
  }

  usage(): Usage {
    return complete(this.seen)
  }

  private drain(final: boolean): void {
    // SSE lines end in \n, \r\n or \r; a trailing \r may be half of a \r\n still to come.
    const lines = this.pending.split(/\r\n|\r(?!$)|\n/)
    this.pending = lines.pop() ?? ''
    if (final && this.pending !== '') {
      lines.push(this.pending.replace(/\r$/, ''))
      this.pending = ''
    }
    for (const line of lines) this.line(line)
  }

  private line(line: string): void {
    if (!line.startsWith('data:') || !line.includes('usage')) return
    let event: { type?: unknown; usage?: unknown; message?: { usage?: unknown } }
    try {
      event = JSON.parse(line.slice(5)) as typeof event
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
