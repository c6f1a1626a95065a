import type http from 'node:http'
import { priceFor } from '../prices.js'
import { forward, type ForwardContext, type Forwarded, sendError } from './forward.js'
import type { Hold, Ledger, WorkerPass } from './ledger.js'
import type { RequestRecord } from './request-log.js'
import { closeAfterAnswer } from './linger.js'
import { lowered, type Parsed, parseRequest, readCapped } from './request.js'

const FORWARDED = new Set(['/v1/messages', '/v1/messages/count_tokens'])

/** What the gateway enforces on every request, whoever sends it. */
export interface Rules {
  /** The models the run configured; any other is refused. Undefined: any model. */
  models?: ReadonlySet<string>
}

function tokenOf(req: http.IncomingMessage): string | undefined {
  const key = req.headers['x-api-key']
  if (typeof key === 'string') return key
  return /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1]
}

/** The worker's pass for a request to forward; anything else is answered here and ends. */
function admit(
  ledger: Ledger,
  req: http.IncomingMessage,
  res: http.ServerResponse
): WorkerPass | undefined {
  const pathname = new URL(req.url ?? '/', 'http://gateway').pathname
  if (req.method !== 'POST' || !FORWARDED.has(pathname)) {
    // HEAD /api/hello and the like: answered here, never sent upstream with the key.
    req.resume()
    if (req.method === 'HEAD' || req.method === 'GET') return void res.writeHead(200).end()
    const message = `the fleet's model gateway does not serve ${pathname}`
    return void sendError(res, 404, 'not_found_error', message)
  }
  const pass = ledger.passes.get(tokenOf(req) ?? '')
  if (pass) return pass
  req.resume()
  sendError(res, 401, 'authentication_error', 'unknown worker token')
  return undefined
}

/** A request the gateway answers itself: the refusal the worker sees, and its log line. */
interface Refusal {
  status: number
  type: string
  message: string
  /** Ends the worker's run: the CLI obeys x-should-retry: false. */
  final?: boolean
  /** Close the connection rather than read the rest of the body. */
  close?: boolean
  /** The model the request named, for its log line. */
  model?: string
}

/** The request body's refusal, if the gateway forwards no part of it: size, JSON, model. */
async function readChecked(
  rules: Rules,
  req: http.IncomingMessage
): Promise<{ parsed: Parsed; body: Buffer } | Refusal> {
  const read = await readCapped(req)
  if (!read.ok)
    return { status: 413, type: 'request_too_large', message: read.message, close: true }
  const parsed = parseRequest(read.body)
  if (typeof parsed === 'string')
    return { status: 400, type: 'invalid_request_error', message: parsed }
  if (rules.models && !rules.models.has(parsed.model ?? '')) {
    const allowed = [...rules.models].map(m => `'${m}'`).join(', ')
    const message = `model '${parsed.model ?? ''}' is not one this run configured: the fleet's gateway forwards only ${allowed}`
    return { status: 400, type: 'invalid_request_error', message, final: true, model: parsed.model }
  }
  return { parsed, body: read.body }
}

/** Budgets: refused when spent or when the request's worst case cannot fit; else held. */
function admitSpend(
  ledger: Ledger,
  pass: WorkerPass,
  path: string,
  request: { parsed: Parsed; body: Buffer }
): { hold?: Hold; payload: Buffer } | Refusal {
  const spent = ledger.over(pass.taskId)
  if (spent) {
    pass.stoppedBy = spent
    return { status: 400, type: 'invalid_request_error', message: spent.message, final: true }
  }
  // count_tokens is free and answers no output: nothing to reserve.
  if (path !== '/v1/messages') return { payload: request.body }
  const { parsed, body } = request
  const price = priceFor(ledger.prices, parsed.model)
  const bad = (message: string): Refusal => ({
    status: 400,
    type: 'invalid_request_error',
    message,
    final: true
  })
  if (parsed.maxTokens === undefined) return bad('max_tokens: expected a whole number above 0')
  if (ledger.prices && !price)
    return bad(`model '${parsed.model ?? ''}' has no price: add it to the prices input`)
  if (parsed.searches === undefined && ledger.prices)
    return bad(
      'a web search tool needs max_uses under the fleet gateway, so its cost can be bounded'
    )
  const held = ledger.hold(pass, {
    inputBound: body.length,
    maxTokens: parsed.maxTokens,
    searches: parsed.searches ?? 0,
    price
  })
  if ('ok' in held) {
    pass.stoppedBy = { input: held.input, scope: held.scope, message: held.message }
    return bad(held.message)
  }
  const payload = held.maxTokens < parsed.maxTokens ? lowered(parsed.json, held.maxTokens) : body
  return { hold: held.hold, payload }
}

function refuse(req: http.IncomingMessage, res: http.ServerResponse, r: Refusal): void {
  const headers: http.OutgoingHttpHeaders = {}
  if (r.final) headers['x-should-retry'] = 'false'
  if (r.close) closeAfterAnswer(req, res)
  sendError(res, r.status, r.type, r.message, headers)
}

/** One worker request: checked, refused or forwarded, then settled against its budgets and logged. */
export async function handle(
  ctx: ForwardContext,
  ledger: Ledger,
  rules: Rules,
  req: http.IncomingMessage,
  res: http.ServerResponse
): Promise<void> {
  const pass = admit(ledger, req, res)
  if (!pass) return
  const at = new Date()
  const path = new URL(req.url ?? '/', 'http://gateway').pathname
  const log = ledger.logs.get(pass)
  const base = { at: at.toISOString(), path }
  const checked = await readChecked(rules, req)
  const admitted = 'status' in checked ? checked : admitSpend(ledger, pass, path, checked)
  const model = 'parsed' in checked ? checked.parsed.model : checked.model
  if ('status' in admitted) {
    refuse(req, res, admitted)
    const record = { ...base, model, status: admitted.status, attempts: 0, retries: [] }
    return log?.write({ ...record, ms: Date.now() - at.getTime(), error: admitted.message })
  }
  const gone = new AbortController()
  res.on('close', () => {
    if (!res.writableFinished) gone.abort()
  })
  let done: Forwarded | undefined
  try {
    done = await forward(ctx, req, res, admitted.payload, gone.signal, pass)
  } finally {
    ledger.settle(admitted.hold, pass, done?.model ?? model, done)
  }
  log?.write(record(base, done, model, at, ctx.recordBodies ? admitted.payload : undefined))
}

function record(
  base: { at: string; path: string },
  done: Forwarded,
  model: string | undefined,
  at: Date,
  body: Buffer | undefined
): RequestRecord {
  return {
    ...base,
    model: done.model ?? model,
    status: done.status,
    attempts: done.attempts,
    retries: done.retries,
    usage: done.usage,
    // Passes on other models (an advisor's), each with its own model, when the reply had them.
    ...(done.passes?.some(p => p.model !== undefined) ? { passes: done.passes } : {}),
    ...(done.replyModel && done.replyModel !== (done.model ?? model)
      ? { replyModel: done.replyModel }
      : {}),
    ms: Date.now() - at.getTime(),
    ...(done.queuedMs !== undefined ? { queuedMs: done.queuedMs } : {}),
    ...(done.workerInFlight !== undefined ? { workerInFlight: done.workerInFlight } : {}),
    ...(done.sentAt !== undefined ? { sentAt: done.sentAt, releasedAt: done.releasedAt } : {}),
    ...(done.error ? { error: done.error } : {}),
    ...(done.dropped.length > 0 ? { dropped: done.dropped } : {}),
    ...(body ? { requestBody: body.toString('utf8'), responseBody: done.responseBody } : {})
  }
}
