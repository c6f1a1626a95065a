import { randomBytes } from 'node:crypto'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { Pool } from 'undici'
import type { Price } from '../report/cost.js'
import { addUsage, type Usage, ZERO_USAGE } from '../domain.js'
import { type Breach, breach, type Budgets } from './budgets.js'
import { forward, type ForwardContext, sendError } from './forward.js'
import { Limiter } from './limiter.js'
import { RequestLog } from './request-log.js'
import { GATEWAY_RETRY } from './retry.js'

export interface GatewayOptions {
  /** The real endpoint's base URL (no /v1), e.g. https://api.z.ai/api/anthropic. */
  upstream: string
  key: string
  authHeader: 'x-api-key' | 'bearer'
  budgets?: Budgets
  price?: Price
  /** Requests in flight upstream: a fixed number, or learnt from the endpoint's 429s. */
  concurrency: number | 'auto'
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

/** What one worker process holds: its token, and what it has spent so far. */
export interface WorkerPass {
  token: string
  taskId: string
  usage: Usage
  /** The budget that refused this worker a request, if one did: the worker's outcome says so. */
  stoppedBy?: Breach
}

export interface Gateway {
  /** http://HOST:PORT, no /v1: the workers' ANTHROPIC_BASE_URL. */
  url: string
  port: number
  /** A new worker process of `taskId`: a fresh token, its request log at `logFile`. */
  register(taskId: string, logFile?: string): WorkerPass
  /** Ends a pass: its token stops working; its request log is flushed. */
  retire(pass: WorkerPass): Promise<void>
  taskUsage(taskId: string): Usage
  runUsage(): Usage
  /** Why no new worker may start (a run budget is spent), else undefined. */
  runBudgetSpent(): string | undefined
  /** The upstream limiter's current limit (Infinity while auto has not met a refusal). */
  limit(): number
  close(): Promise<void>
}

const FORWARDED = new Set(['/v1/messages', '/v1/messages/count_tokens'])

function tokenOf(req: http.IncomingMessage): string | undefined {
  const key = req.headers['x-api-key']
  if (typeof key === 'string') return key
  return /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1]
}

function modelOf(body: Buffer): string | undefined {
  try {
    const model = (JSON.parse(body.toString('utf8')) as { model?: unknown }).model
    return typeof model === 'string' ? model : undefined
  } catch {
    return undefined
  }
}

function readBody(req: http.IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => resolve(Buffer.concat(chunks)))
    req.on('error', reject)
  })
}

/** The endpoint as the gateway forwards to it: one connection pool, the key, the limiter, retries. */
function forwardContext(opts: GatewayOptions): ForwardContext {
  const base = new URL(opts.upstream)
  return {
    upstream: {
      pool: new Pool(base.origin, {
        connections: 128,
        keepAliveTimeout: 30_000,
        // The CLI's own request timeout (API_TIMEOUT_MS) is 10 minutes: never cut before it.
        headersTimeout: 600_000,
        bodyTimeout: 600_000
      }),
      prefix: base.pathname.replace(/\/+$/, ''),
      auth:
        opts.authHeader === 'bearer'
          ? { authorization: `Bearer ${opts.key}` }
          : { 'x-api-key': opts.key }
    },
    limiter: new Limiter(opts.concurrency === 'auto' ? {} : { fixed: opts.concurrency }),
    policy: {
      ...GATEWAY_RETRY,
      ...(opts.retryBaseMs !== undefined ? { baseDelayMs: opts.retryBaseMs } : {}),
      maxAttempts: opts.maxAttempts,
      smallModel: opts.smallModel
    },
    random: opts.random ?? Math.random,
    recordBodies: opts.recordBodies ?? false
  }
}

/** The workers' passes and request logs, and what each task and the run have spent. */
class Ledger {
  readonly passes = new Map<string, WorkerPass>()
  readonly logs = new Map<WorkerPass, RequestLog>()
  private readonly tasks = new Map<string, Usage>()
  run = ZERO_USAGE

  constructor(
    private readonly budgets: Budgets,
    private readonly price: Price | undefined,
    private readonly warn: (message: string) => void
  ) {}

  register(taskId: string, logFile?: string): WorkerPass {
    const pass: WorkerPass = {
      token: `fleet-${randomBytes(24).toString('base64url')}`,
      taskId,
      usage: ZERO_USAGE
    }
    this.passes.set(pass.token, pass)
    if (logFile) this.logs.set(pass, new RequestLog(logFile, this.warn))
    return pass
  }

  async retire(pass: WorkerPass): Promise<void> {
    this.passes.delete(pass.token)
    await this.logs.get(pass)?.flushed()
    this.logs.delete(pass)
  }

  spend(pass: WorkerPass, usage: Usage): void {
    pass.usage = addUsage(pass.usage, usage)
    this.tasks.set(pass.taskId, addUsage(this.taskUsage(pass.taskId), usage))
    this.run = addUsage(this.run, usage)
  }

  taskUsage(taskId: string): Usage {
    return this.tasks.get(taskId) ?? ZERO_USAGE
  }

  /** The budget a next request of `taskId` would break (a run budget when taskId is undefined). */
  over(taskId: string | undefined): Breach | undefined {
    const task = taskId === undefined ? ZERO_USAGE : this.taskUsage(taskId)
    return breach(this.budgets, this.price, { task, run: this.run })
  }
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

/** One worker request: refused when a budget is spent, else forwarded, counted and logged. */
async function handle(
  ctx: ForwardContext,
  ledger: Ledger,
  req: http.IncomingMessage,
  res: http.ServerResponse
): Promise<void> {
  const pass = admit(ledger, req, res)
  if (!pass) return
  const at = new Date()
  const path = new URL(req.url ?? '/', 'http://gateway').pathname
  const body = await readBody(req)
  const model = modelOf(body)
  const log = ledger.logs.get(pass)
  const blocked = ledger.over(pass.taskId)
  if (blocked) {
    // The CLI obeys x-should-retry: the worker ends at once, and its outcome names the budget.
    pass.stoppedBy = blocked
    sendError(res, 400, 'invalid_request_error', blocked.message, { 'x-should-retry': 'false' })
    const record = { at: at.toISOString(), path, model, status: 400, attempts: 0, retries: [] }
    return log?.write({ ...record, ms: 0, error: blocked.message })
  }
  const gone = new AbortController()
  res.on('close', () => {
    if (!res.writableFinished) gone.abort()
  })
  const done = await forward(ctx, req, res, body, gone.signal)
  if (done.usage) ledger.spend(pass, done.usage)
  log?.write({
    at: at.toISOString(),
    path,
    model: done.model ?? model,
    status: done.status,
    attempts: done.attempts,
    retries: done.retries,
    usage: done.usage,
    ms: Date.now() - at.getTime(),
    ...(done.error ? { error: done.error } : {}),
    ...(ctx.recordBodies
      ? { requestBody: body.toString('utf8'), responseBody: done.responseBody }
      : {})
  })
}

/** The HTTP server on `host`, an ephemeral port; a request that throws is a 500 (or a cut stream). */
async function serve(
  host: string,
  onRequest: (req: http.IncomingMessage, res: http.ServerResponse) => Promise<void>,
  warn: (message: string) => void
): Promise<{ server: http.Server; port: number }> {
  const server = http.createServer((req, res) => {
    onRequest(req, res).catch((error: unknown) => {
      warn(`model gateway: ${String(error)}`)
      if (!res.headersSent) sendError(res, 500, 'api_error', 'the model gateway failed')
      else res.destroy()
    })
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
 * forwarded request. Usage is counted per task and run, budgets are checked before every request,
 * and one limiter keeps the fleet's requests in flight within what the endpoint accepts.
 */
export async function startGateway(opts: GatewayOptions): Promise<Gateway> {
  const ctx = forwardContext(opts)
  const warn = opts.log ?? (() => undefined)
  const ledger = new Ledger(opts.budgets ?? {}, opts.price, warn)
  const host = opts.host ?? '127.0.0.1'
  const { server, port } = await serve(host, (req, res) => handle(ctx, ledger, req, res), warn)
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    register: (taskId, logFile) => ledger.register(taskId, logFile),
    retire: pass => ledger.retire(pass),
    taskUsage: taskId => ledger.taskUsage(taskId),
    runUsage: () => ledger.run,
    runBudgetSpent: () => {
      const b = ledger.over(undefined)
      return b?.scope === 'run' ? b.message : undefined
    },
    limit: () => ctx.limiter.limit,
    async close() {
      const closed = new Promise<void>(resolve => server.close(() => resolve()))
      server.closeAllConnections()
      await closed
      await ctx.upstream.pool.close().catch(() => ctx.upstream.pool.destroy())
      await Promise.all([...ledger.logs.values()].map(l => l.flushed()))
    }
  }
}
