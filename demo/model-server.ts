// A scripted Anthropic-compatible Messages server for end-to-end tests, the bench and the demo.
//
// The script travels inside the task prompt ([[fleet-script]] {json} [[/fleet-script]]), so any
// number of workers can share one server and each still plays its own script deterministically.
// Which step to play is derived from the conversation (the number of assistant messages already
// in the request), never from server state; only fault counters live in the server, per key, so
// they survive the action re-running a worker.
//
// Measured against the real claude CLI 2.1.332 (-p, stream-json, --tools Bash,Edit,Read,Write):
// - Every request is `POST /v1/messages?beta=true`, stream: true, ~18 kB body, headers include
//   anthropic-version 2023-06-01, user-agent `claude-cli/2.1.332 (external, sdk-cli)`, x-app cli.
// - The working directory is not in `system`: it is in a `role: "system"` entry of `messages`
//   (after the first user message), as the line ` - Primary working directory: /abs/path`.
// - The first user message has several text blocks: <system-reminder> blocks (git status,
//   attribution) come first and the prompt is the last one.
// - After a tool step the CLI sends back ONE assistant message holding text + tool_use, so
//   "assistant messages so far" is the step index.
// - result.usage is the plain sum, over every response, of the usage this server reported;
//   within one response the last value of each field wins (message_delta over message_start),
//   so output_tokens is message_delta's, not start + delta. HTTP errors add nothing, but a
//   dropped stream's message_start usage IS added (input, cache, output_tokens 1) before the
//   retry's. usageFor(key) computes exactly that sum from the recorded requests.
//   (Measured with the cut 100 ms after message_start on a quiet machine; under load the CLI
//   has often not read message_start by then and adds nothing for the dropped stream: racy.)
// - A 200 with a non-SSE body (garbage) makes the CLI retry that turn at once with
//   stream: false; garbage again there ends the run (exit 1). A dropped stream is retried
//   (~0.5 s later) with stream: true.
// - faults 529 x3 with CLAUDE_CODE_MAX_RETRIES=2: 3 attempts ~0.6 s and ~1.1 s apart, then
//   exit 1, is_error true, subtype "success", terminal_reason "api_error", num_turns 1,
//   api_error_status 529, api_error_type "overloaded_error", result "API Error: 529 <our
//   message>. This is a server-side issue, usually temporary — try again in a moment.", usage 0.
// - 401 with CLAUDE_CODE_MAX_RETRIES=0: one attempt, exit 1, api_error_status 401,
//   api_error_type "authentication_error", result "Invalid API key · Fix external API key".
// - hang with API_TIMEOUT_MS=1500, no retries: exit 1 after ~1.6 s, api_error_status null,
//   result "Request timed out. If the API is slow to answer, ... set API_TIMEOUT_MS above 1500."
// - Spawned with a piped stdin the CLI waits 3 s for input ("no stdin data received"): give it
//   stdin 'ignore'.
// - Structured output (--json-schema, the planner): the CLI offers a `StructuredOutput` tool whose
//   input_schema is the schema; a scripted step { tool: 'StructuredOutput', input: {...} } calls
//   it, and the run ends after that one request, with `structured_output` (and `result` as its
//   JSON text) in the result. An input that fails the schema comes back as a tool error
//   ("Output does not match required schema: /tasks: must NOT have more than 2 items"). A plain
//   text answer gets ONE more request ("[structured-output-enforce] You MUST call the
//   StructuredOutput tool..."); if that is text too, the run ends exit 0 with it as `result`.

import { createHash } from 'node:crypto'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { z } from 'zod'
import {
  RICH_BILLED,
  RICH_START_USAGE,
  RICH_WIRE_USAGE,
  richSse,
  sideUsage,
  withinMaxTokens
} from './model-billing.js'

const repeat = z.union([z.boolean(), z.number().int().nonnegative()])

const scriptSchema = z.object({
  key: z.string().min(1).optional(),
  steps: z.array(
    z.union([
      z.object({
        tool: z.string().min(1),
        input: z.record(z.string(), z.unknown()),
        text: z.string().optional(),
        // More tool calls in the same answer (parallel tool use, e.g. several subagents at once).
        also: z
          .array(z.object({ tool: z.string().min(1), input: z.record(z.string(), z.unknown()) }))
          .optional()
      }),
      z.object({ text: z.string() })
    ])
  ),
  delayMs: z.number().int().nonnegative().optional(),
  // The answer to the request at this step (and later ones) waits until the test calls
  // release(key): a test acts while the worker is known to be mid-task, not after a fixed time.
  holdAt: z.number().int().nonnegative().optional(),
  faults: z
    .array(
      z.object({
        status: z.number().int().min(400).max(599),
        times: z.number().int().nonnegative(),
        retryAfter: z.number().nonnegative().optional()
      })
    )
    .optional(),
  // true = every request of this key; a number n = the next n requests after the faults.
  hang: repeat.optional(),
  // Like drop, but the stream then stays open, silent, until the client goes away.
  stall: repeat.optional(),
  drop: repeat.optional(),
  garbage: repeat.optional(),
  // rich: every answer carries the usage shapes of model-billing.ts (iterations, cache split,
  // web searches), framed as strict SSE; the recorded usage is what that shape bills.
  billing: z.literal('rich').optional()
})

export type Script = z.infer<typeof scriptSchema>
export type Step = Script['steps'][number]

export interface Usage {
  input_tokens: number
  output_tokens: number
  cache_read_input_tokens: number
  cache_creation_input_tokens: number
  cache_creation?: { ephemeral_5m_input_tokens: number; ephemeral_1h_input_tokens: number }
  server_tool_use?: { web_search_requests: number }
}

export type Outcome =
  | 'reply' // a scripted turn was answered
  | 'side' // a request outside any script (no tools): short text answer
  | 'fault' // scripted HTTP error
  | 'unauthorized' // credential not in acceptKeys
  | 'bad-request' // unparseable body or script
  | 'hang'
  | 'stall'
  | 'refused' // over maxConcurrent: 429 as z.ai answers it
  | 'drop'
  | 'garbage'

export interface RecordedRequest {
  key: string | undefined
  step: number
  model: string | undefined
  path: string
  headers: Record<string, string>
  body: unknown
  bodyBytes: number
  stream: boolean
  cwd: string | undefined
  toolResults: string[]
  outcome: Outcome
  /** HTTP status answered; 0 while unanswered (a hang). */
  status: number
  /** Usage reported to the client; undefined when none was (errors, hang, drop, garbage). */
  usage: Usage | undefined
  at: number
  /** When the answer ended or the client went away. */
  closedAt?: number
}

export interface ModelServerOptions {
  /** Script for prompts that carry no [[fleet-script]] block. */
  defaultScript?: (promptText: string) => Script | undefined
  /** Default per-response delay when a script sets none. */
  delayMs?: number
  /** If set, requests whose x-api-key / bearer token is not listed get 401. */
  acceptKeys?: string[]
  /**
   * Messages requests answered at once; one more gets 429 "High concurrency usage of this API",
   * without retry-after, as z.ai's GLM plans answer.
   */
  maxConcurrent?: number
}

export interface ModelServer extends AsyncDisposable {
  /** http://127.0.0.1:PORT, no /v1: what ANTHROPIC_BASE_URL wants. */
  url: string
  requests: RecordedRequest[]
  requestsFor(key: string): RecordedRequest[]
  /** The totals the CLI's result.usage should show for a run (or runs) of this key. */
  usageFor(key: string): Usage
  /** Messages requests whose answer has not ended and whose client is still connected. */
  open(): number
  /** Changes `maxConcurrent` from the next request on (undefined: no limit). */
  setMaxConcurrent(n: number | undefined): void
  /** Lets the answers a script's `holdAt` holds go, now and from now on. */
  release(key: string): void
  close(): Promise<void>
}

const OPEN = '[[fleet-script]]'
const CLOSE = '[[/fleet-script]]'
const BLOCK = /\[\[fleet-script\]\]([\s\S]*?)\[\[\/fleet-script\]\]/
const CWD_LINE = /^\s*-?\s*(?:Primary working directory|Working directory):\s*(\S.*?)\s*$/m
const PATH_KEYS = ['file_path', 'notebook_path']
const DROP_AFTER_MS = 100

/** Renders the block to put in a prompt. */
export function script(s: Script): string {
  return `${OPEN} ${JSON.stringify(s)} ${CLOSE}`
}

/** The key the server files a script under: its own key, else a hash of its text. */
export function scriptKey(s: Script): string {
  return s.key ?? hashKey(JSON.stringify(s))
}

function hashKey(text: string): string {
  return 'h' + createHash('sha256').update(text.trim()).digest('hex').slice(0, 12)
}

/** Deterministic usage: distinct per step so a sum can be told from a max or a last value. */
export function usageForStep(step: number): Usage {
  return {
    input_tokens: 100 + step,
    output_tokens: 10 + step,
    cache_read_input_tokens: 5,
    cache_creation_input_tokens: 2
  }
}

const SIDE_USAGE: Usage = {
  input_tokens: 20,
  output_tokens: 2,
  cache_read_input_tokens: 0,
  cache_creation_input_tokens: 0
}

export function sumUsage(usages: readonly (Usage | undefined)[]): Usage {
  const total: Usage = {
    input_tokens: 0,
    output_tokens: 0,
    cache_read_input_tokens: 0,
    cache_creation_input_tokens: 0
  }
  for (const u of usages) {
    if (!u) continue
    total.input_tokens += u.input_tokens
    total.output_tokens += u.output_tokens
    total.cache_read_input_tokens += u.cache_read_input_tokens
    total.cache_creation_input_tokens += u.cache_creation_input_tokens
  }
  return total
}

// ---- reading a request -------------------------------------------------------------------

interface Message {
  role?: unknown
  content?: unknown
}

function texts(content: unknown): string[] {
  if (typeof content === 'string') return [content]
  if (!Array.isArray(content)) return []
  return content.flatMap((b: { type?: unknown; text?: unknown }) =>
    b?.type === 'text' && typeof b.text === 'string' ? [b.text] : []
  )
}

function toolResultTexts(content: unknown): string[] {
  if (!Array.isArray(content)) return []
  return content.flatMap((b: { type?: unknown; content?: unknown }) =>
    b?.type === 'tool_result' ? [texts(b.content).join('\n')] : []
  )
}

function messagesOf(body: Record<string, unknown>): Message[] {
  return Array.isArray(body.messages) ? (body.messages as Message[]) : []
}

function findCwd(body: Record<string, unknown>): string | undefined {
  const all = [...texts(body.system), ...messagesOf(body).flatMap(m => texts(m.content))]
  for (const t of all) {
    const m = CWD_LINE.exec(t)
    if (m?.[1]) return m[1]
  }
  return undefined
}

/** The user's own prompt: text blocks of the first user message, minus CLI reminders. */
function promptText(first: Message | undefined): string {
  return texts(first?.content)
    .map(t => t.replace(/<system-reminder>[\s\S]*?<\/system-reminder>/g, '').trim())
    .filter(t => t !== '')
    .join('\n')
}

type Resolved = { key: string; script: Script } | { error: string } | undefined

function resolveScript(first: Message | undefined, opts: ModelServerOptions): Resolved {
  for (const t of texts(first?.content)) {
    const m = BLOCK.exec(t)
    if (!m) continue
    const raw = m[1] ?? ''
    let json: unknown
    try {
      json = JSON.parse(raw)
    } catch (e) {
      return { error: `fleet-script is not JSON: ${String(e)}` }
    }
    const parsed = scriptSchema.safeParse(json)
    if (!parsed.success) return { error: `fleet-script is invalid: ${parsed.error.message}` }
    return { key: parsed.data.key ?? hashKey(raw), script: parsed.data }
  }
  if (!first) return undefined
  const prompt = promptText(first)
  const s = opts.defaultScript?.(prompt) ?? { steps: [] }
  return { key: s.key ?? hashKey(prompt), script: s }
}

function credential(headers: http.IncomingHttpHeaders): string | undefined {
  const apiKey = headers['x-api-key']
  if (typeof apiKey === 'string') return apiKey
  const m = /^Bearer\s+(.+)$/i.exec(headers.authorization ?? '')
  return m?.[1]
}

// ---- answering ---------------------------------------------------------------------------

type Block =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> }

interface Reply {
  content: Block[]
  stopReason: 'end_turn' | 'tool_use'
  usage: Usage
  /** billing: rich — the usage as sent (model-billing.ts), and the strict SSE framing. */
  rich?: true
}

type Misbehaviour =
  | { kind: 'fault'; status: number; retryAfter?: number | undefined }
  | { kind: 'hang' | 'stall' | 'drop' | 'garbage' }

/** Faults first, in order, then drop, stall, garbage, hang: each phase covers its next n requests. */
function misbehaviourAt(s: Script, ordinal: number): Misbehaviour | undefined {
  const count = (r: boolean | number | undefined) =>
    r === true ? Infinity : r === false ? 0 : (r ?? 0)
  const phases: [number, Misbehaviour][] = [
    ...(s.faults ?? []).map((f): [number, Misbehaviour] => [
      f.times,
      { kind: 'fault', status: f.status, retryAfter: f.retryAfter }
    ]),
    [count(s.drop), { kind: 'drop' }],
    [count(s.stall), { kind: 'stall' }],
    [count(s.garbage), { kind: 'garbage' }],
    [count(s.hang), { kind: 'hang' }]
  ]
  let left = ordinal
  for (const [times, m] of phases) {
    if (left < times) return m
    left -= times
  }
  return undefined
}

const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  529: 'overloaded_error'
}

function sendError(res: http.ServerResponse, status: number, message: string, retryAfter?: number) {
  const headers: http.OutgoingHttpHeaders = { 'content-type': 'application/json' }
  if (retryAfter !== undefined) headers['retry-after'] = String(retryAfter)
  res.writeHead(status, headers)
  const type = ERROR_TYPES[status] ?? 'api_error'
  res.end(JSON.stringify({ type: 'error', error: { type, message } }))
}

function absolutize(input: Record<string, unknown>, cwd: string | undefined) {
  if (!cwd) return input
  const out = { ...input }
  for (const k of PATH_KEYS) {
    const v = out[k]
    if (typeof v === 'string' && !path.isAbsolute(v)) out[k] = path.resolve(cwd, v)
  }
  return out
}

function plainSse(res: http.ServerResponse, type: string, data: Record<string, unknown>) {
  res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`)
}

function messageHead(id: string, model: string | undefined, usage: Usage) {
  return {
    id,
    type: 'message',
    role: 'assistant',
    model: model ?? 'unknown',
    content: [],
    stop_reason: null,
    stop_sequence: null,
    usage: { ...usage, output_tokens: 1 }
  }
}

function streamReply(res: http.ServerResponse, id: string, model: string | undefined, r: Reply) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
  const sse = r.rich ? richSse : plainSse
  const head = messageHead(id, model, r.usage)
  sse(res, 'message_start', { message: r.rich ? { ...head, usage: RICH_START_USAGE } : head })
  r.content.forEach((block, index) => {
    if (block.type === 'text') {
      sse(res, 'content_block_start', { index, content_block: { type: 'text', text: '' } })
      sse(res, 'content_block_delta', { index, delta: { type: 'text_delta', text: block.text } })
    } else {
      const start = { ...block, input: {} }
      sse(res, 'content_block_start', { index, content_block: start })
      // Two chunks, so the client really has to join partial JSON.
      const json = JSON.stringify(block.input)
      const cut = Math.floor(json.length / 2)
      for (const part of [json.slice(0, cut), json.slice(cut)]) {
        sse(res, 'content_block_delta', {
          index,
          delta: { type: 'input_json_delta', partial_json: part }
        })
      }
    }
    sse(res, 'content_block_stop', { index })
  })
  sse(res, 'message_delta', {
    delta: { stop_reason: r.stopReason, stop_sequence: null },
    usage: r.rich ? RICH_WIRE_USAGE : r.usage
  })
  sse(res, 'message_stop', {})
  res.end()
}

function jsonReply(res: http.ServerResponse, id: string, model: string | undefined, r: Reply) {
  res.writeHead(200, { 'content-type': 'application/json' })
  res.end(
    JSON.stringify({
      ...messageHead(id, model, r.usage),
      content: r.content,
      stop_reason: r.stopReason,
      usage: r.rich ? RICH_WIRE_USAGE : r.usage
    })
  )
}

// ---- the server --------------------------------------------------------------------------

/** What one server holds across requests. */
interface ServerState {
  opts: ModelServerOptions
  requests: RecordedRequest[]
  /** Requests seen per script key: where in its misbehaviour phases the next one falls. */
  ordinals: Map<string, number>
  closing: AbortController
  ids: number
  openNow: number
  /** Per script key: resolved once the test releases its held answers. */
  released: Map<string, { at: Promise<void>; go: () => void }>
}

function releaseOf(state: ServerState, key: string) {
  let gate = state.released.get(key)
  if (!gate) {
    let go = () => undefined as void
    const at = new Promise<void>(resolve => (go = resolve))
    gate = { at, go }
    state.released.set(key, gate)
  }
  return gate
}

/** Waits while `s` holds the answer at this step: until released, or the server closes. */
async function held(state: ServerState, s: Script, key: string, step: number): Promise<void> {
  if (s.holdAt === undefined || step < s.holdAt) return
  const closed = new Promise<void>(resolve =>
    state.closing.signal.addEventListener('abort', () => resolve(), { once: true })
  )
  await Promise.race([releaseOf(state, key).at, closed])
}

function replyFor(state: ServerState, s: Script, step: number, cwd: string | undefined): Reply {
  if (s.billing === 'rich')
    return { ...plainReplyFor(state, s, step, cwd), usage: RICH_BILLED, rich: true }
  return plainReplyFor(state, s, step, cwd)
}

function plainReplyFor(
  state: ServerState,
  s: Script,
  step: number,
  cwd: string | undefined
): Reply {
  const usage = usageForStep(step)
  const planned = s.steps[step]
  if (planned && 'tool' in planned) {
    const use = (call: { tool: string; input: Record<string, unknown> }): Block => ({
      type: 'tool_use',
      id: `toolu_fleet_${String(++state.ids).padStart(6, '0')}`,
      name: call.tool,
      input: absolutize(call.input, cwd)
    })
    return {
      content: [
        { type: 'text', text: planned.text ?? `Using ${planned.tool}.` },
        use(planned),
        ...(planned.also ?? []).map(use)
      ],
      stopReason: 'tool_use',
      usage
    }
  }
  return {
    content: [{ type: 'text', text: planned?.text ?? 'Done.' }],
    stopReason: 'end_turn',
    usage
  }
}

function headersOf(req: http.IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {}
  for (const [k, v] of Object.entries(req.headers)) {
    if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : v
  }
  return headers
}

/** The request as the tests read it back, before it is answered. */
function recordOf(
  req: http.IncomingMessage,
  raw: Buffer,
  body: Record<string, unknown>,
  resolved: Resolved
): RecordedRequest {
  const messages = messagesOf(body)
  const last = messages.at(-1)
  return {
    key: resolved && 'key' in resolved ? resolved.key : undefined,
    step: messages.filter(m => m.role === 'assistant').length,
    model: typeof body.model === 'string' ? body.model : undefined,
    path: req.url ?? '',
    headers: headersOf(req),
    body,
    bodyBytes: raw.length,
    stream: body.stream === true,
    cwd: findCwd(body),
    toolResults: last?.role === 'user' ? toolResultTexts(last.content) : [],
    outcome: 'reply',
    status: 0,
    usage: undefined,
    at: Date.now()
  }
}

/** A scripted misbehaviour other than a fault, played on the response. */
async function misbehave(
  state: ServerState,
  kind: 'hang' | 'stall' | 'drop' | 'garbage',
  rec: RecordedRequest,
  req: http.IncomingMessage,
  res: http.ServerResponse
): Promise<void> {
  if (kind === 'hang') return void (rec.outcome = 'hang')
  if (kind === 'garbage') {
    Object.assign(rec, { outcome: 'garbage', status: 200 })
    res.writeHead(200, { 'content-type': 'text/html' })
    return void res.end('<html><body>502 Bad Gateway (not really)</body></html>\n')
  }
  // The CLI counts a dropped stream's message_start usage in its totals: record it too.
  const head = messageHead(`msg_${kind}_${++state.ids}`, rec.model, usageForStep(rec.step))
  Object.assign(rec, { outcome: kind, status: 200, usage: head.usage })
  res.writeHead(200, { 'content-type': 'text/event-stream' })
  plainSse(res, 'message_start', { message: head })
  plainSse(res, 'content_block_start', { index: 0, content_block: { type: 'text', text: '' } })
  if (kind === 'stall') return
  // Cut only after the client has surely parsed message_start: cutting in the same tick
  // made the CLI count the partial usage in some runs and not in others.
  plainSse(res, 'content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'Wor' } })
  await sleep(DROP_AFTER_MS, undefined, { signal: state.closing.signal })
  req.socket.destroy()
}

/** The request body as JSON, or why it is not. */
function parseBody(raw: Buffer): { body: Record<string, unknown>; parseError?: string } {
  try {
    return { body: JSON.parse(raw.toString('utf8')) as Record<string, unknown> }
  } catch (e) {
    return { body: {}, parseError: `body is not JSON: ${String(e)}` }
  }
}

/**
 * A request refused before its script plays (over maxConcurrent, a wrong key, a bad body), or
 * counted as open until its response closes.
 */
function refusal(
  state: ServerState,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  rec: RecordedRequest,
  resolved: Resolved
): [Outcome, number, string] | undefined {
  const { opts } = state
  if (opts.maxConcurrent !== undefined && state.openNow >= opts.maxConcurrent) {
    const busy =
      'High concurrency usage of this API, please reduce concurrency or contact customer service to increase limits'
    return ['refused', 429, busy]
  }
  state.openNow++
  res.once('close', () => {
    state.openNow--
    rec.closedAt = Date.now()
  })
  if (opts.acceptKeys && !opts.acceptKeys.includes(credential(req.headers) ?? '')) {
    return ['unauthorized', 401, 'invalid x-api-key']
  }
  if (resolved && 'error' in resolved) return ['bad-request', 400, resolved.error]
  return undefined
}

async function handle(
  state: ServerState,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  raw: Buffer
): Promise<void> {
  const { opts } = state
  const pathname = new URL(req.url ?? '/', 'http://x').pathname
  if (req.method === 'HEAD' || req.method === 'GET') return void res.writeHead(200).end()
  if (pathname !== '/v1/messages' && pathname !== '/v1/messages/count_tokens') {
    return sendError(res, 404, `no route for ${pathname}`)
  }
  const { body, parseError } = parseBody(raw)
  if (pathname === '/v1/messages/count_tokens') {
    res.writeHead(200, { 'content-type': 'application/json' })
    return void res.end(JSON.stringify({ input_tokens: Math.ceil(raw.length / 4) }))
  }
  const first = messagesOf(body).find(m => m.role === 'user')
  const resolved = parseError ? { error: parseError } : resolveScript(first, opts)
  const rec = recordOf(req, raw, body, resolved)
  state.requests.push(rec)
  const fail = (outcome: Outcome, status: number, message: string, retryAfter?: number) => {
    Object.assign(rec, { outcome, status })
    sendError(res, status, message, retryAfter)
  }
  const refused = refusal(state, req, res, rec, resolved)
  if (refused) return fail(...refused)

  // A refusal above answered a body that had no script.
  const play = resolved && 'script' in resolved ? resolved : undefined
  const s = play?.script
  await sleep(s?.delayMs ?? opts.delayMs ?? 0, undefined, { signal: state.closing.signal })
  if (s && play) await held(state, s, play.key, rec.step)
  // The client gave up while we held the answer (its own timeout): nothing to send.
  if (req.socket.destroyed) return

  let reply: Reply
  const hasTools = Array.isArray(body.tools) && body.tools.length > 0
  if (!s || !play || !hasTools) {
    rec.outcome = 'side'
    const usage = sideUsage(body, raw, SIDE_USAGE)
    reply = { content: [{ type: 'text', text: 'OK.' }], stopReason: 'end_turn', usage }
  } else {
    const ordinal = state.ordinals.get(play.key) ?? 0
    state.ordinals.set(play.key, ordinal + 1)
    const bad = misbehaviourAt(s, ordinal)
    if (bad?.kind === 'fault') {
      const message = `scripted ${bad.status} (request ${ordinal + 1})`
      return fail('fault', bad.status, message, bad.retryAfter)
    }
    if (bad) return misbehave(state, bad.kind, rec, req, res)
    reply = replyFor(state, s, rec.step, rec.cwd)
  }
  reply = { ...reply, usage: withinMaxTokens(body, reply.usage) }
  Object.assign(rec, { status: 200, usage: reply.usage })
  const id = `msg_fleet_${String(++state.ids).padStart(6, '0')}`
  if (rec.stream) streamReply(res, id, rec.model, reply)
  else jsonReply(res, id, rec.model, reply)
}

export async function startModelServer(opts: ModelServerOptions = {}): Promise<ModelServer> {
  const state: ServerState = {
    // A copy: setMaxConcurrent changes this server's limit, never the caller's object.
    opts: { ...opts },
    requests: [],
    ordinals: new Map(),
    closing: new AbortController(),
    ids: 0,
    openNow: 0,
    released: new Map()
  }
  const { requests, closing } = state
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      handle(state, req, res, Buffer.concat(chunks)).catch((e: unknown) => {
        if (closing.signal.aborted) return
        if (!res.headersSent) sendError(res, 500, `model-server bug: ${String(e)}`)
        else res.destroy()
      })
    })
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo

  const close = async () => {
    if (closing.signal.aborted) return
    closing.abort()
    const closed = new Promise<void>(resolve => server.close(() => resolve()))
    server.closeAllConnections()
    await closed
  }
  const requestsFor = (key: string) => requests.filter(r => r.key === key)
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    requestsFor,
    usageFor: key => sumUsage(requestsFor(key).map(r => r.usage)),
    open: () => state.openNow,
    setMaxConcurrent: n => {
      state.opts.maxConcurrent = n
    },
    release: key => releaseOf(state, key).go(),
    close,
    [Symbol.asyncDispose]: close
  }
}
