import type http from 'node:http'

/** The API's own request size limit; a larger body is answered 413 before more of it is read. */
export const MAX_BODY_BYTES = 32 * 1024 * 1024

export type Read = { ok: true; body: Buffer } | { ok: false; status: 413 | 400; message: string }

const tooLarge = (bytes: string): Read => ({
  ok: false,
  status: 413,
  message: `request body of ${bytes} is over the API's limit of 32 MiB (${MAX_BODY_BYTES} bytes)`
})

/** A declared content-length over the limit: refused before any byte of the body is read. */
export function declaredTooLarge(
  req: http.IncomingMessage,
  cap = MAX_BODY_BYTES
): Read | undefined {
  const declared = Number(req.headers['content-length'])
  return Number.isFinite(declared) && declared > cap ? tooLarge(`${declared} bytes`) : undefined
}

/**
 * The request body, read up to `cap` bytes. One that declares more, or sends more, is refused as
 * soon as that is known: the rest is never read (the caller closes the connection).
 */
export function readCapped(req: http.IncomingMessage, cap = MAX_BODY_BYTES): Promise<Read> {
  const early = declaredTooLarge(req, cap)
  if (early) return Promise.resolve(early)
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    const onData = (chunk: Buffer) => {
      size += chunk.length
      if (size <= cap) return void chunks.push(chunk)
      req.off('data', onData)
      req.pause()
      chunks.length = 0
      resolve(tooLarge(`more than ${cap} bytes`))
    }
    req.on('data', onData)
    req.on('end', () => resolve({ ok: true, body: Buffer.concat(chunks, size) }))
    req.on('error', reject)
  })
}

/** What the gateway reads of a Messages request before it decides anything. */
export interface Parsed {
  json: Record<string, unknown>
  model?: string
  maxTokens?: number
  /** The most web searches its web search tools allow (undefined: a tool without max_uses). */
  searches: number | undefined
}

function searchesOf(tools: unknown): number | undefined {
  if (!Array.isArray(tools)) return 0
  let total = 0
  for (const tool of tools as { type?: unknown; max_uses?: unknown }[]) {
    if (typeof tool?.type !== 'string' || !tool.type.startsWith('web_search')) continue
    if (typeof tool.max_uses !== 'number' || !Number.isInteger(tool.max_uses)) return undefined
    total += Math.max(0, tool.max_uses)
  }
  return total
}

/** The body as JSON, or a sentence saying why it is not a Messages request. */
export function parseRequest(body: Buffer): Parsed | string {
  let json: unknown
  try {
    json = JSON.parse(body.toString('utf8'))
  } catch {
    return 'the request body is not JSON'
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json))
    return 'the request body is not a JSON object'
  const o = json as Record<string, unknown>
  const maxTokens =
    typeof o.max_tokens === 'number' && Number.isInteger(o.max_tokens) && o.max_tokens > 0
      ? o.max_tokens
      : undefined
  return {
    json: o,
    model: typeof o.model === 'string' ? o.model : undefined,
    maxTokens,
    searches: searchesOf(o.tools)
  }
}

/**
 * The body with max_tokens lowered to what the budgets leave. Extended thinking must stay below
 * max_tokens: its budget is lowered too, or thinking is turned off when under the API's 1,024
 * minimum.
 */
export function lowered(json: Record<string, unknown>, maxTokens: number): Buffer {
  const out: Record<string, unknown> = { ...json, max_tokens: maxTokens }
  const thinking = json.thinking as { type?: unknown; budget_tokens?: unknown } | undefined
  if (
    thinking?.type === 'enabled' &&
    typeof thinking.budget_tokens === 'number' &&
    thinking.budget_tokens >= maxTokens
  ) {
    if (maxTokens - 1 >= 1024) out.thinking = { ...thinking, budget_tokens: maxTokens - 1 }
    else delete out.thinking
  }
  return Buffer.from(JSON.stringify(out))
}
