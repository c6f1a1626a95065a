import { once } from 'node:events'
import type http from 'node:http'
import { setTimeout as sleep } from 'node:timers/promises'
import type { Dispatcher, Pool } from 'undici'
import type { Usage } from '../domain.js'
import type { Ending, Limiter, Ticket } from './limiter.js'
import { upstreamHeaders } from './headers.js'
import { askedDelayMs, disposition, nextAttempt, type RetryPolicy } from './retry.js'
import { jsonReply, type Pass, type ReplyUsage, SseUsageReader } from './usage.js'

export interface Upstream {
  /** The endpoint's one connection pool, made on the first request (gateway.ts). */
  pool: () => Promise<Pool>
  /** The base URL's path (z.ai: /api/anthropic), put before /v1/... */
  prefix: string
  /** The real credential, in the configured header. */
  auth: Record<string, string>
}

export interface ForwardContext {
  upstream: Upstream
  limiter: Limiter
  policy: RetryPolicy
  random: () => number
  recordBodies: boolean
  /** anthropic-beta values passed upstream: the pinned CLI's and the allowed-betas input's. */
  betas: ReadonlySet<string>
}

export interface Forwarded {
  status: number
  attempts: number
  retries: { status: number; waitMs: number }[]
  usage?: Usage
  /** The reply's passes by the model each ran on, to price each at its own (usage.ts). */
  passes?: Pass[]
  /** The model the endpoint says answered, when it said. */
  replyModel?: string
  /** The model the gateway's own retry moved the request to, if it did. */
  model?: string
  error?: string
  responseBody?: string
  /** Request headers (and betas) the gateway did not pass upstream. */
  dropped: string[]
  /** Time spent waiting in the limiter's queue, all attempts together. */
  queuedMs?: number
  /** This worker's requests in flight upstream when the last attempt was sent, itself included. */
  workerInFlight?: number
  /** When the last attempt left the queue for the endpoint, and gave its slot back (epoch ms). */
  sentAt?: number
  releasedAt?: number
}

const DROP_RESPONSE = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'trailer',
  'upgrade'
])

function downstreamHeaders(headers: Dispatcher.ResponseData['headers']): http.OutgoingHttpHeaders {
  const out: http.OutgoingHttpHeaders = {}
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && !DROP_RESPONSE.has(name)) out[name] = value
  }
  return out
}

function withModel(body: Buffer, model: string): Buffer {
  try {
    const parsed = JSON.parse(body.toString('utf8')) as Record<string, unknown>
    return Buffer.from(JSON.stringify({ ...parsed, model }))
  } catch {
    return body
  }
}

/** Anthropic's error shape, so the CLI reads it as it reads the endpoint's own. */
export function sendError(
  res: http.ServerResponse,
  status: number,
  type: string,
  message: string,
  headers: http.OutgoingHttpHeaders = {}
): void {
  if (res.headersSent || res.destroyed) return
  res.writeHead(status, { 'content-type': 'application/json', ...headers })
  res.end(JSON.stringify({ type: 'error', error: { type, message } }))
}

/**
 * Streams an accepted answer to the worker as it arrives (no buffering beyond one chunk), reading
 * its usage on the way. A worker that goes away aborts `signal`, which cancels the upstream body.
 */
async function relay(
  response: Dispatcher.ResponseData,
  res: http.ServerResponse,
  signal: AbortSignal,
  record: boolean
): Promise<{ reply?: ReplyUsage; body?: string; error?: string }> {
  res.writeHead(response.statusCode, downstreamHeaders(response.headers))
  const type = String(response.headers['content-type'] ?? '')
  const reader = type.includes('text/event-stream') ? new SseUsageReader() : undefined
  const keep = record || (!reader && response.statusCode < 300)
  const chunks: Buffer[] = []
  try {
    for await (const chunk of response.body as AsyncIterable<Buffer>) {
      reader?.push(chunk)
      if (keep) chunks.push(chunk)
      if (!res.write(chunk)) await once(res, 'drain', { signal })
    }
    res.end()
  } catch (error) {
    // Cut mid-stream (the worker left, or the endpoint dropped): cut the worker too; what the
    // stream had reported so far (message_start's usage, the last message_delta's, even one
    // that lost only its closing blank line) was spent all the same.
    res.destroy()
    const reply = reader?.endReply()
    return {
      reply: reader?.reported ? reply : undefined,
      error: signal.aborted ? 'the worker went away mid-answer' : String(error)
    }
  }
  const text = chunks.length > 0 ? Buffer.concat(chunks).toString('utf8') : undefined
  const reply = reader ? reader.endReply() : text ? jsonReply(text) : undefined
  return {
    reply: reader && !reader.reported ? undefined : reply,
    body: record ? text : undefined
  }
}

/** The request as it goes upstream; `payload` changes when a retry moves to the small model. */
interface Outgoing {
  path: string
  headers: Record<string, string>
  payload: Buffer
  started: number
  /** Whose request: the limiter's per-worker cap and turn. */
  worker: unknown
  /** The last attempt was refused for concurrency: the retry keeps its place in the queue. */
  requeued?: boolean
  queuedMs: number
  workerInFlight?: number
  sentAt?: number
  releasedAt?: number
}

/** Gives the attempt's slot back, noting when (the request log's end of its time upstream). */
function free(ctx: ForwardContext, out: Outgoing, ticket: Ticket, ending: Ending): void {
  out.releasedAt = Date.now()
  ctx.limiter.release(ticket, ending)
}

type End = Pick<Forwarded, 'status' | 'usage' | 'passes' | 'replyModel' | 'error' | 'responseBody'>

/** What one attempt came to: the worker's answer (counted as an attempt or not), or a retry. */
type Attempted =
  { end: End; uncounted?: true } | { again: { status: number; delayMs: number; model?: string } }

const GONE: End = { status: 0, error: 'the worker went away' }

/** No answer from the endpoint: retried as overload, else a 502 naming why. */
function unreachable(
  ctx: ForwardContext,
  out: Outgoing,
  res: http.ServerResponse,
  error: unknown,
  attempt: number
): Attempted {
  const code = (error as { code?: string }).code ?? String(error)
  const next = nextAttempt(attempt, 'overloaded', {
    policy: ctx.policy,
    elapsedMs: Date.now() - out.started,
    random: ctx.random
  })
  if (next.retry) return { again: { status: 0, delayMs: next.delayMs, model: next.model } }
  const message = `the gateway could not reach the model endpoint: ${code}`
  sendError(res, 502, 'api_error', message)
  return { end: { status: 502, error: message } }
}

/** A refusal or overload: retried, or once out of attempts given to the worker as it came. */
async function notPassed(
  ctx: ForwardContext,
  out: Outgoing,
  res: http.ServerResponse,
  response: Dispatcher.ResponseData,
  at: { attempt: number; ticket: Ticket; how: 'refused' | 'overloaded' }
): Promise<Attempted> {
  const text = await response.body.text().catch(() => '')
  const askedMs = askedDelayMs(response.headers, Date.now())
  // A 429 that names its wait is a rate limit: waiting is the cure. One without (z.ai's
  // "High concurrency usage of this API") refuses concurrency: the limiter learns from it.
  const concurrency = at.how === 'refused' && askedMs === undefined
  free(ctx, out, at.ticket, concurrency ? 'refused' : 'failed')
  // The limit now holds no more than the endpoint took: while others are in flight, the retry
  // waits in the queue for one of them to end, not for a backoff that would leave a slot idle.
  out.requeued = concurrency && ctx.limiter.active > 0
  const next = nextAttempt(at.attempt, at.how, {
    policy: ctx.policy,
    elapsedMs: Date.now() - out.started,
    askedMs: out.requeued ? 0 : askedMs,
    random: ctx.random
  })
  if (next.retry)
    return { again: { status: response.statusCode, delayMs: next.delayMs, model: next.model } }
  // Out of attempts: the worker gets the endpoint's own answer, and its own retry rules.
  if (!res.destroyed)
    res.writeHead(response.statusCode, downstreamHeaders(response.headers)).end(text)
  return { end: { status: response.statusCode, responseBody: text } }
}

/** One attempt: a limiter ticket, the request upstream, then its answer relayed or judged. */
async function attemptOnce(
  ctx: ForwardContext,
  out: Outgoing,
  res: http.ServerResponse,
  signal: AbortSignal,
  attempt: number
): Promise<Attempted> {
  const ask = { worker: out.worker, signal, first: out.requeued }
  const asked = Date.now()
  const ticket = await ctx.limiter.acquire(ask).catch(() => undefined)
  out.queuedMs += Date.now() - asked
  if (!ticket) return { end: GONE, uncounted: true }
  out.workerInFlight = ctx.limiter.activeFor(out.worker)
  out.sentAt = Date.now()
  let response: Dispatcher.ResponseData
  try {
    response = await (
      await ctx.upstream.pool()
    ).request({
      path: out.path,
      method: 'POST',
      headers: out.headers,
      body: out.payload,
      signal
    })
  } catch (error) {
    free(ctx, out, ticket, 'failed')
    return signal.aborted ? { end: GONE } : unreachable(ctx, out, res, error, attempt)
  }
  const how = disposition(response.statusCode)
  if (how !== 'pass') return notPassed(ctx, out, res, response, { attempt, ticket, how })
  const relayed = await relay(response, res, signal, ctx.recordBodies)
  free(ctx, out, ticket, response.statusCode < 300 && !relayed.error ? 'ok' : 'failed')
  return {
    end: {
      status: response.statusCode,
      usage: relayed.reply?.usage,
      passes: relayed.reply?.passes,
      replyModel: relayed.reply?.model,
      error: relayed.error,
      responseBody: relayed.body
    }
  }
}

/**
 * Sends one worker request upstream through the limiter, retrying refusals and overload itself
 * while nothing has reached the worker yet; then streams the answer back.
 */
export async function forward(
  ctx: ForwardContext,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  body: Buffer,
  signal: AbortSignal,
  worker?: unknown
): Promise<Forwarded> {
  const url = new URL(req.url ?? '/', 'http://gateway')
  const { headers, dropped } = upstreamHeaders(req.headers, ctx.upstream.auth, ctx.betas)
  const out: Outgoing = {
    path: `${ctx.upstream.prefix}${url.pathname}${url.search}`,
    headers,
    payload: body,
    started: Date.now(),
    worker,
    queuedMs: 0
  }
  const retries: Forwarded['retries'] = []
  let model: string | undefined
  for (let attempt = 1; ; attempt++) {
    const step = await attemptOnce(ctx, out, res, signal, attempt)
    if ('end' in step) {
      const attempts = step.uncounted ? attempt - 1 : attempt
      const { queuedMs, workerInFlight, sentAt, releasedAt } = out
      const queue = { queuedMs, workerInFlight, sentAt, releasedAt }
      return { ...step.end, attempts, retries, model, dropped, ...queue }
    }
    const { status, delayMs } = step.again
    retries.push({ status, waitMs: delayMs })
    if (!(await wait(delayMs, signal)))
      return { ...GONE, attempts: attempt, retries, model, dropped }
    if (step.again.model)
      [out.payload, model] = [withModel(out.payload, step.again.model), step.again.model]
  }
}

/** Waits, unless the worker goes away first (then false). */
async function wait(ms: number, signal: AbortSignal): Promise<boolean> {
  try {
    await sleep(ms, undefined, { signal })
    return true
  } catch {
    return false
  }
}
