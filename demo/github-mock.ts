// A stateful stand-in for GitHub's REST API on loopback. Every request is first validated by Prism
// against GitHub's official OpenAPI description (trimmed: scripts/trim-github-spec.mjs); a request
// Prism rejects is answered with Prism's verdict and recorded in `invalid`. Valid requests are
// answered from in-memory state (github-state.ts, github-routes.ts), or with Prism's example for a
// valid route the mock does not model.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { acquirePrism, releasePrism, type Prism, type PrismResponse } from './prism.js'
import { JOB_LOG_PATH, type Reply, route } from './github-routes.js'
import { graphqlAnswer } from './github-graphql.js'
import { MERGE_ROUTES } from './github-merge.js'
import { MockGit } from './github-git.js'
import {
  GitHubState,
  type IssueSeed,
  type MockComment,
  type MockIssue,
  type MockPull,
  type PullSeed,
  type Role,
  TOKEN_USER
} from './github-state.js'

export type {
  MockComment,
  MockIssue,
  MockLabel,
  MockPull,
  MockJob,
  MockReaction,
  MockReviewComment,
  Role
} from './github-state.js'
export { GitHubState } from './github-state.js'

export interface GitHubMockOptions {
  owner: string
  repo: string
  defaultBranch?: string
  collaborators?: Record<string, Role>
  issues?: IssueSeed[]
  /** When set, requests without `authorization: token|bearer <token>` get 401. */
  token?: string
  /**
   * More tokens and what each may do to the repository. A 'read' token (contents: read and
   * nothing else, as a job with `permissions: contents: read` gets) reads; its writes get
   * GitHub's 403 "Resource not accessible by integration" and are counted in `refused`.
   */
  tokens?: Record<string, 'read' | 'write'>
  /** Login that owns what the token creates (comments, PRs, reactions). */
  tokenUser?: string
  /** Base of `html_url` fields; GITHUB_SERVER_URL in a test. */
  serverUrl?: string
  /**
   * The bare repository the git remote serves: PRs' heads are read from it, and merges and
   * "Update branch" made in it, as GitHub does (the landing train). Unset: heads are as seeded.
   */
  repoDir?: string
}

export interface RecordedRequest {
  method: string
  path: string
  query: Record<string, string>
  status: number
  body: unknown
  /** When it was answered (epoch ms). */
  at: number
}

export interface InvalidRequest {
  method: string
  path: string
  status: number
  /** Prism's violations (or its problem document when it matched no route). */
  problem: unknown
}

export interface FaultRule {
  method: string
  path: RegExp
  status: number
  /** How many matching requests fail; default 1. */
  times?: number
  headers?: Record<string, string>
  body?: unknown
}

export interface GitHubMock {
  /** Base URL for Octokit's baseUrl / GITHUB_API_URL. */
  url: string
  state: GitHubState
  requests: RecordedRequest[]
  invalid: InvalidRequest[]
  /** Writes a read-only token attempted, each answered 403 as GitHub answers it. */
  refused: RecordedRequest[]
  /** How long the shared Prism took to start (0 when it was already running). */
  prismStartupMs: number
  fail(rule: FaultRule): void
  addIssue(seed: IssueSeed): MockIssue
  addPull(seed: PullSeed): MockPull
  addComment(issueNumber: number, body: string, user?: string): MockComment
  close(): Promise<void>
}

const DOCS = 'https://docs.github.com/rest'

/** What one request is answered from: the options, Prism, the state and what was seen. */
interface MockContext {
  opts: GitHubMockOptions
  prism: Prism
  state: GitHubState
  /** Login that owns what the token creates. */
  caller: string
  requests: RecordedRequest[]
  invalid: InvalidRequest[]
  refused: RecordedRequest[]
  faults: Array<FaultRule & { left: number }>
}

export async function startGitHubMock(opts: GitHubMockOptions): Promise<GitHubMock> {
  const prism = await acquirePrism()
  const firstUse = !started.has(prism)
  started.add(prism)
  // No request arrives before listen() resolves, so ctx is set by the time handle() reads it.
  const { server, url } = await listen((req, res) => handle(ctx, req, res))
  const ctx: MockContext = {
    opts,
    prism,
    state: seededState(opts, url),
    caller: opts.tokenUser ?? TOKEN_USER,
    requests: [],
    invalid: [],
    refused: [],
    faults: []
  }
  const { state } = ctx
  return {
    url,
    state,
    requests: ctx.requests,
    invalid: ctx.invalid,
    refused: ctx.refused,
    prismStartupMs: firstUse ? prism.startupMs : 0,
    fail: rule => void ctx.faults.push({ ...rule, left: rule.times ?? 1 }),
    addIssue: seed => state.addIssue(seed),
    addPull: seed => state.addPull(seed),
    addComment: (n, text, user) => state.addComment(n, text, user),
    close: async () => {
      server.closeAllConnections()
      await new Promise<void>(resolve => server.close(() => resolve()))
      releasePrism()
    }
  }
}

/** A loopback server on a free port; a handler that throws answers 500 with its error. */
async function listen(
  handler: (req: IncomingMessage, res: ServerResponse) => Promise<void>
): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    handler(req, res).catch((error: unknown) => {
      res.writeHead(500, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ message: `mock error: ${String(error)}` }))
    })
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }
}

function seededState(opts: GitHubMockOptions, url: string): GitHubState {
  const state = new GitHubState({
    owner: opts.owner,
    repo: opts.repo,
    defaultBranch: opts.defaultBranch ?? 'main',
    apiUrl: url,
    serverUrl: opts.serverUrl ?? 'https://github.com'
  })
  for (const [login, role] of Object.entries(opts.collaborators ?? {}))
    state.collaborators.set(login, role)
  for (const seed of opts.issues ?? []) state.addIssue(seed)
  if (opts.repoDir) state.git = new MockGit(opts.repoDir)
  return state
}

/** Answers one request and records it. */
async function handle(ctx: MockContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const raw = await readBody(req)
  const target = new URL(req.url ?? '/', ctx.state.repo.apiUrl)
  const method = (req.method ?? 'GET').toUpperCase()
  const body = parseJson(raw)
  const readOnly = permissionOf(ctx.opts, req.headers.authorization) === 'read'
  const refused = readOnly && isRepoWrite(method, target.pathname)
  const reply = refused
    ? notAccessible(target.pathname)
    : await answer(ctx, { req, method, target, raw, body })
  const seen = {
    method,
    path: target.pathname,
    query: Object.fromEntries(target.searchParams),
    status: reply.status,
    body,
    at: Date.now()
  }
  ctx.requests.push(seen)
  if (refused) ctx.refused.push(seen)
  send(res, reply)
}

interface Incoming {
  req: IncomingMessage
  method: string
  target: URL
  raw: Buffer
  body: unknown
}

/** In order: a job's log, the token check, an injected fault, Prism's verdict, the state. */
async function answer(ctx: MockContext, incoming: Incoming): Promise<Reply> {
  const { req, method, target, raw, body } = incoming
  // A job's log, behind the redirect of GET .../actions/jobs/{id}/logs: storage, not the API.
  if (method === 'GET' && target.pathname.startsWith(JOB_LOG_PATH))
    return jobLog(ctx.state, target.pathname)
  if (ctx.opts.token !== undefined && !permissionOf(ctx.opts, req.headers.authorization))
    return {
      status: 401,
      body: { message: 'Bad credentials', documentation_url: DOCS, status: '401' }
    }
  const fault = takeFault(ctx.faults, method, target.pathname)
  if (fault) return fault
  // GraphQL is not in the REST description: graphql-js checks it against GitHub's GraphQL schema.
  if (method === 'POST' && (target.pathname === '/graphql' || target.pathname === '/api/graphql'))
    return graphqlChecked(ctx, target.pathname, body)
  const verdict = await ctx.prism.forward(
    method,
    target.pathname + target.search,
    prismHeaders(req),
    raw
  )
  // Prism answers a valid request with a 2xx example; anything else is its rejection.
  if (verdict.status >= 400) {
    const problem = violations(verdict)
    ctx.invalid.push({ method, path: target.pathname, status: verdict.status, problem })
    return { status: verdict.status, body: rejection(problem) }
  }
  const modelled = route(
    ctx.state,
    {
      method,
      path: target.pathname,
      query: target.searchParams,
      body,
      caller: ctx.caller,
      url: target
    },
    MERGE_ROUTES
  )
  return modelled ?? { status: verdict.status, body: parseJson(verdict.body) }
}

/** GraphQL's answer; a document or variables GitHub's schema rejects is recorded as invalid. */
function graphqlChecked(ctx: MockContext, pathname: string, body: unknown): Reply {
  const reply = graphqlAnswer(ctx.state, body, ctx.caller)
  const errors = (reply.body as { errors?: Array<{ type?: string }> } | undefined)?.errors ?? []
  const invalid = reply.status >= 400 || errors.some(e => e.type === undefined)
  if (invalid)
    ctx.invalid.push({ method: 'POST', path: pathname, status: reply.status, problem: errors })
  return reply
}

function jobLog(state: GitHubState, pathname: string): Reply {
  const job = state.jobs.find(j => j.id === Number(pathname.slice(JOB_LOG_PATH.length)))
  return job ? { status: 200, text: job.log } : { status: 404, text: 'BlobNotFound' }
}

/** The first injected fault that matches, used once more; undefined when none does. */
function takeFault(
  faults: MockContext['faults'],
  method: string,
  pathname: string
): Reply | undefined {
  const fault = faults.find(
    f => f.left > 0 && sameMethod(f.method, method) && f.path.test(pathname)
  )
  if (!fault) return undefined
  fault.left--
  return {
    status: fault.status,
    body: fault.body ?? { message: `injected ${fault.status}`, documentation_url: DOCS },
    ...(fault.headers && { headers: fault.headers })
  }
}

const started = new WeakSet<Prism>()

const sameMethod = (rule: string, method: string) => rule === '*' || rule.toUpperCase() === method

/** What the request's token may do: `token` writes, `tokens` say; undefined for any other. */
function permissionOf(
  opts: GitHubMockOptions,
  header: string | undefined
): 'read' | 'write' | undefined {
  const given = /^(?:token|bearer)\s+(\S+)$/i.exec(header ?? '')?.[1]
  if (given === undefined) return undefined
  if (given === opts.token) return 'write'
  return opts.tokens?.[given]
}

/** A change to the repository's issues, pulls, labels, comments, reactions or contents. */
function isRepoWrite(method: string, pathname: string): boolean {
  return !['GET', 'HEAD', 'OPTIONS'].includes(method) && pathname.startsWith('/repos/')
}

/** GitHub's answer to a write with a token whose permissions do not cover it. */
function notAccessible(pathname: string): Reply {
  const area = /^\/repos\/[^/]+\/[^/]+\/([a-z-]+)/.exec(pathname)?.[1] ?? 'repos'
  return {
    status: 403,
    body: {
      message: 'Resource not accessible by integration',
      documentation_url: `${DOCS}/${area}`,
      status: '403'
    }
  }
}

/** Prism answers 406 to GitHub's vendor media types, which Octokit always sends. */
function prismHeaders(req: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {}
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || name === 'host' || name === 'connection') continue
    headers[name] = Array.isArray(value) ? value.join(', ') : value
  }
  if (/vnd\.github/i.test(headers.accept ?? '')) headers.accept = 'application/json'
  return headers
}

function violations(verdict: PrismResponse): unknown {
  const header = verdict.headers['sl-violations']
  if (typeof header === 'string') {
    const all = parseJson(Buffer.from(header)) as Array<{ location?: string[] }> | undefined
    const onRequest = all?.filter(v => v.location?.[0] === 'request')
    if (onRequest && onRequest.length > 0) return onRequest
  }
  return parseJson(verdict.body)
}

/** A GitHub-shaped error body that says why, so Octokit's error message names the violation. */
function rejection(problem: unknown): Record<string, unknown> {
  const list = Array.isArray(problem) ? (problem as Array<{ message?: string }>) : undefined
  const detail = list
    ? list.map(v => v.message).join('; ')
    : ((problem as { title?: string; detail?: string } | undefined)?.detail ?? 'invalid request')
  return {
    message: `Request does not match GitHub's OpenAPI description: ${detail}`,
    documentation_url: DOCS,
    ...(list && { errors: list })
  }
}

function send(res: ServerResponse, reply: Reply): void {
  if (reply.text !== undefined) {
    res.writeHead(reply.status, { 'content-type': 'text/plain; charset=utf-8' })
    res.end(reply.text)
    return
  }
  const payload = reply.body === undefined ? '' : JSON.stringify(reply.body)
  const reset = Math.floor(Date.now() / 1000) + 3600
  res.writeHead(reply.status, {
    'content-type': 'application/json; charset=utf-8',
    'x-github-media-type': 'github.v3; format=json',
    'x-ratelimit-limit': '5000',
    'x-ratelimit-remaining': '4999',
    'x-ratelimit-reset': String(reset),
    'x-ratelimit-resource': 'core',
    ...reply.headers
  })
  res.end(payload)
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => resolve(Buffer.concat(chunks)))
    req.on('error', reject)
  })
}

function parseJson(raw: Buffer): unknown {
  if (raw.length === 0) return undefined
  try {
    return JSON.parse(raw.toString('utf8')) as unknown
  } catch {
    return raw.toString('utf8')
  }
}
