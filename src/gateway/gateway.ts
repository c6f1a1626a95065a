import http from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Pool } from 'undici'
import type { Usage } from '../domain.js'
import type { Price, PriceBook } from '../prices.js'
import type { Budgets } from './budgets.js'
import { type ForwardContext, sendError } from './forward.js'
import { handle } from './handle.js'
import { CLI_BETAS } from './headers.js'
import { Ledger, type WorkerPass } from './ledger.js'
import { Limiter } from './limiter.js'
import type { Spend } from './budgets.js'
import { declaredTooLarge } from './request.js'
import { GATEWAY_RETRY } from './retry.js'

export interface GatewayOptions {
  /** The real endpoint's base URL (no /v1), e.g. https://api.z.ai/api/anthropic. */
  upstream: string
  key: string
  authHeader: 'x-api-key' | 'bearer'
  budgets?: Budgets
  /** Prices by model; `price` alone prices every model. Cost budgets need one or the other. */
  prices?: PriceBook
  price?: Price
  /** The models the run configured: any other is refused before it goes upstream. */
  models?: readonly string[]
  /** anthropic-beta values passed besides the pinned CLI's own (the allowed-betas input). */
  allowedBetas?: readonly string[]
  /** Requests in flight upstream: a fixed number, or learnt from the endpoint's 429s. */
  concurrency: number | 'auto'
  /** Requests in flight per worker (max-requests-per-worker); undefined: no cap of its own. */
  perWorker?: number
  /** Attempts per request on refusal or overload (then one more on smallModel, if set). */
  maxAttempts: number
  smallModel?: string
  recordBodies?: boolean
  /** Address to listen on: 127.0.0.1, or a container bridge's address for container workers. */
  host?: string
  retryBaseMs?: number
  random?: () => number
  log?: (message: string) => void
}

export type { WorkerPass } from './ledger.js'

export interface Gateway {
  /** http://HOST:PORT, no /v1: the workers' ANTHROPIC_BASE_URL. */
  url: string
  port: number
  /** A new worker process of `taskId`: a fresh token, its request log at `logFile`. */
  register(taskId: string, logFile?: string): WorkerPass
  /** Ends a pass: its token stops working; its request log is written on, and close awaits it. */
  retire(pass: WorkerPass): Promise<void>
  taskUsage(taskId: string): Usage
  runUsage(): Usage
  /** Tokens and cost (each request at its own model's price) a task has spent. */
  taskSpend(taskId: string): Spend
  runSpend(): Spend
  /** Why no new worker may start (a run budget is spent, or too low for a request), else undefined. */
  runBudgetSpent(): string | undefined
  /** The upstream limiter's current limit (Infinity while auto has not met a refusal). */
  limit(): number
  /** When each worker now waiting on the endpoint (a request in flight or queued) began to wait. */
  modelWaits(): number[]
  close(): Promise<void>
}

/**
 * The endpoint's connection pool, made on the first request: undici (a quarter of the bundle) is
 * loaded then, while the first worker starts, not before it. `close` ends it if it was made.
 */
function lazyPool(origin: string): { pool: () => Promise<Pool>; close: () => Promise<void> } {
  let made: Promise<Pool> | undefined
  const pool = () =>
    (made ??= import('undici').then(
      ({ Pool }) =>
        new Pool(origin, {
          connections: 128,
          keepAliveTimeout: 30_000,
          // The CLI's own request timeout (API_TIMEOUT_MS) is 10 minutes: never cut before it.
          headersTimeout: 600_000,
          bodyTimeout: 600_000
        })
    ))
  const close = async () => {
    const p = await made?.catch(() => undefined)
    await p?.close().catch(() => p.destroy())
  }
  return { pool, close }
}

/** The endpoint as the gateway forwards to it: one connection pool, the key, the limiter, retries. */
function forwardContext(
  opts: GatewayOptions,
  base: URL,
  pool: () => Promise<Pool>
): ForwardContext {
  return {
    upstream: {
      pool,
      prefix: base.pathname.replace(/\/+$/, ''),
      auth:
        opts.authHeader === 'bearer'
          ? { authorization: `Bearer ${opts.key}` }
          : { 'x-api-key': opts.key }
    },
    limiter: new Limiter({
      ...(opts.concurrency === 'auto' ? {} : { fixed: opts.concurrency }),
      perWorker: opts.perWorker
    }),
    policy: {
      ...GATEWAY_RETRY,
      ...(opts.retryBaseMs !== undefined ? { baseDelayMs: opts.retryBaseMs } : {}),
      maxAttempts: opts.maxAttempts,
      smallModel: opts.smallModel
    },
    random: opts.random ?? Math.random,
    recordBodies: opts.recordBodies ?? false,
    betas: new Set([...CLI_BETAS, ...(opts.allowedBetas ?? [])])
  }
}

/** The HTTP server on `host`, an ephemeral port; a request that throws is a 500 (or a cut stream). */
async function serve(
  host: string,
  onRequest: (req: http.IncomingMessage, res: http.ServerResponse) => Promise<void>,
  warn: (message: string) => void
): Promise<{ server: http.Server; port: number }> {
  const onError = (res: http.ServerResponse) => (error: unknown) => {
    warn(`model gateway: ${String(error)}`)
    if (!res.headersSent) sendError(res, 500, 'api_error', 'the model gateway failed')
    else res.destroy()
  }
  const server = http.createServer((req, res) => {
    onRequest(req, res).catch(onError(res))
  })
  // `Expect: 100-continue` (curl's way with a large body): a body declared too large gets no
  // 100 Continue, so the client never sends it.
  server.on('checkContinue', (req: http.IncomingMessage, res: http.ServerResponse) => {
    // The request is handled (and logged) as any other; it answers 413 without reading.
    if (!declaredTooLarge(req)) res.writeContinue()
    onRequest(req, res).catch(onError(res))
  })
  server.keepAliveTimeout = 60_000
  await new Promise<void>((resolve, reject) =>
    server.once('error', reject).listen(0, host, resolve)
  )
  return { server, port: (server.address() as AddressInfo).port }
}

/**
 * The model gateway: a loopback HTTP server in the action's own process between the workers and
 * the endpoint. Workers hold a per-worker token; the real key stays here and is put on each
 * forwarded request. Only the run's models pass; usage is counted per task and run, each request's
 * worst case is reserved against the budgets before it goes upstream, and one limiter keeps the fleet's requests in flight within what the endpoint accepts.
 */
export async function startGateway(opts: GatewayOptions): Promise<Gateway> {
  const base = new URL(opts.upstream)
  const upstream = lazyPool(base.origin)
  const ctx = forwardContext(opts, base, upstream.pool)
  const warn = opts.log ?? (() => undefined)
  const prices = opts.prices ?? (opts.price ? { models: {}, fallback: opts.price } : undefined)
  const ledger = new Ledger(opts.budgets ?? {}, prices, warn)
  const rules = { models: opts.models ? new Set(opts.models) : undefined }
  const host = opts.host ?? '127.0.0.1'
  const { server, port } = await serve(
    host,
    (req, res) => handle(ctx, ledger, rules, req, res),
    warn
  )
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    register: (taskId, logFile) => ledger.register(taskId, logFile),
    retire: pass => ledger.retire(pass),
    taskUsage: taskId => ledger.taskUsage(taskId),
    runUsage: () => ledger.run.usage,
    taskSpend: taskId => ledger.taskSpend(taskId),
    runSpend: () => ledger.run.spent,
    runBudgetSpent: () => {
      const b = ledger.over(undefined)
      return b?.scope === 'run' ? b.message : ledger.runRefused
    },
    limit: () => ctx.limiter.limit,
    modelWaits: () => ctx.limiter.waitsSince(),
    async close() {
      const closed = new Promise<void>(resolve => server.close(() => resolve()))
      server.closeAllConnections()
      await closed
      await upstream.close()
      await Promise.all([...ledger.logs.values()].map(l => l.flushed()))
    }
  }
}
