// Recorded Messages streams (test/fixtures/sse/) through the real gateway: a small upstream on
// loopback replays each transcript, whole or cut at a byte, and the gateway's own usage reading and
// pricing say what the task spent. An advisor's pass is priced at the advisor's model, a reply an
// endpoint answered on another model at that model, cached tokens counted inside input_tokens are
// counted once, and a stream cut short counts what it had reported before the cut.
import { readFile, rm, mkdtemp } from 'node:fs/promises'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ZERO_USAGE, type Usage } from '../../src/domain.js'
import { type Gateway, startGateway } from '../../src/gateway/gateway.js'
import { costOf, type Price } from '../../src/prices.js'

const FIXTURES = path.join(import.meta.dirname, '..', 'fixtures', 'sse')
const fixture = (name: string) => readFile(path.join(FIXTURES, name))

const PRICES: Record<string, Price> = {
  'claude-sonnet-4-6': { input: 3, output: 15 },
  'claude-opus-4-7': { input: 5, output: 25 },
  'glm-4.6': { input: 0.6, output: 2.2 },
  'glm-4.5-air': { input: 0.2, output: 1.1 },
  'kimi-k2': { input: 0.6, output: 2.5 }
}

/** Each event of a transcript: its JSON, and the byte just after its data (a cut there keeps it). */
function events(bytes: Buffer): Array<{ json: Record<string, unknown>; dataEnd: number }> {
  const text = bytes.toString('utf8')
  const out: Array<{ json: Record<string, unknown>; dataEnd: number }> = []
  for (const m of text.matchAll(/^data: (.*)$/gm)) {
    const line = m[1] ?? ''
    out.push({
      json: JSON.parse(line) as Record<string, unknown>,
      dataEnd: Buffer.byteLength(text.slice(0, (m.index ?? 0) + 'data: '.length + line.length))
    })
  }
  return out
}

const FIELDS = [
  'input_tokens',
  'output_tokens',
  'cache_read_input_tokens',
  'cache_creation_input_tokens'
] as const
const fields = FIELDS

const u = (raw: unknown): Usage => ({ ...ZERO_USAGE, ...(raw as Partial<Usage>) })

// One upstream: each request answers with the next transcript, cut where it says.
let answer: { bytes: Buffer; cut?: number } = { bytes: Buffer.alloc(0) }
let server: http.Server
let upstream: string
let gateway: Gateway
let logs: string
let n = 0

beforeAll(async () => {
  server = http.createServer((req, res) => {
    req.resume()
    req.on('end', () => {
      const { bytes, cut } = answer
      res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' })
      if (cut === undefined) return void res.end(bytes)
      res.write(bytes.subarray(0, cut), () => res.socket?.destroy())
    })
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  upstream = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  logs = await mkdtemp(path.join(tmpdir(), 'fleet-replies-'))
  gateway = await startGateway({
    upstream,
    key: 'k',
    authHeader: 'x-api-key',
    concurrency: 4,
    maxAttempts: 1,
    prices: { models: PRICES }
  })
})
afterAll(async () => {
  await gateway?.close()
  await new Promise<void>(resolve => server.close(() => resolve()))
  await rm(logs, { recursive: true, force: true })
})

/** One request of a fresh task through the gateway, answered with `bytes` (cut at `cut`). */
async function through(bytes: Buffer, model: string, cut?: number) {
  answer = { bytes, cut }
  const task = `t${++n}`
  const log = path.join(logs, `${task}.jsonl`)
  const pass = gateway.register(task, log)
  const res = await fetch(`${gateway.url}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': pass.token },
    body: JSON.stringify({ model, max_tokens: 4096, stream: true })
  })
  await res.text().catch(() => '')
  // The request is settled before its log line is written.
  for (let i = 0; i < 200; i++) {
    if ((await readFile(log, 'utf8').catch(() => '')).length > 0) break
    await new Promise(resolve => setTimeout(resolve, 10))
  }
  await gateway.retire(pass)
  const record = JSON.parse((await readFile(log, 'utf8')).split('\n')[0] ?? '{}') as object
  return { usage: gateway.taskUsage(task), cost: gateway.taskSpend(task).cost, record }
}

describe('recorded replies through the gateway', () => {
  it('prices an advisor pass at the advisor’s model and the executor’s passes at the executor’s', async () => {
    const bytes = await fixture('advisor.sse')
    const delta = events(bytes).find(e => e.json.type === 'message_delta')?.json as {
      usage: { iterations: Array<Record<string, unknown>> }
    }
    const passes = delta.usage.iterations
    const executor = passes.filter(p => p.type === 'message').map(u)
    const advisor = passes.filter(p => p.type === 'advisor_message')
    expect(advisor.map(p => p.model)).toEqual(['claude-opus-4-7'])
    const sum = (list: Usage[], f: (typeof fields)[number]) => list.reduce((s, x) => s + x[f], 0)
    const ownUsage: Usage = { ...ZERO_USAGE }
    for (const f of fields) ownUsage[f] = sum(executor, f)
    const advice = u(advisor[0])
    const price = (model: string) => PRICES[model] as Price
    const expected =
      costOf(ownUsage, price('claude-sonnet-4-6')) + costOf(advice, price('claude-opus-4-7'))

    const got = await through(bytes, 'claude-sonnet-4-6')
    expect(got.cost).toBeCloseTo(expected, 12)
    // All of it at the executor's price would be less: the advisor's tokens cost more.
    const flat = costOf(got.usage, price('claude-sonnet-4-6'))
    expect(got.cost).toBeGreaterThan(flat)
    // Every pass's tokens count toward the budgets, once.
    for (const f of fields) expect(got.usage[f], f).toBe(ownUsage[f] + advice[f])
    expect(got.record).toMatchObject({
      passes: [
        { usage: { input_tokens: ownUsage.input_tokens } },
        { model: 'claude-opus-4-7', usage: { output_tokens: advice.output_tokens } }
      ]
    })
  })

  it('prices a reply at the model the endpoint says answered, when the prices know it', async () => {
    const bytes = await fixture('fallback.sse')
    const [start] = events(bytes)
    const message = start?.json.message as { model: string; usage: object }
    expect(message.model).toBe('glm-4.5-air')
    const got = await through(bytes, 'glm-4.6')
    expect(got.usage).toEqual({ ...u(message.usage), output_tokens: 240 })
    expect(got.cost).toBeCloseTo(costOf(got.usage, PRICES['glm-4.5-air'] as Price), 12)
    expect(got.cost).not.toBeCloseTo(costOf(got.usage, PRICES['glm-4.6'] as Price), 12)
    expect(got.record).toMatchObject({ model: 'glm-4.6', replyModel: 'glm-4.5-air' })
  })

  it('counts cached tokens once when the endpoint counts them inside input_tokens (and says so)', async () => {
    const bytes = await fixture('cache-inclusive.sse')
    const last = events(bytes).find(e => e.json.type === 'message_delta')?.json.usage as Record<
      string,
      number
    >
    const got = await through(bytes, 'kimi-k2')
    expect(got.usage).toEqual({
      ...ZERO_USAGE,
      input_tokens: (last.input_tokens ?? 0) - (last.cache_read_input_tokens ?? 0),
      cache_read_input_tokens: last.cache_read_input_tokens,
      output_tokens: last.output_tokens
    })
    // The whole input is what the endpoint said it was, not that plus the cache reads again.
    const input = got.usage.input_tokens + got.usage.cache_read_input_tokens
    expect(input).toBe(last.input_tokens)
  })

  it('reads an Anthropic reply’s cache fields beside input_tokens, as Anthropic counts them', async () => {
    const bytes = await fixture('tool-use.sse')
    const got = await through(bytes, 'claude-sonnet-4-6')
    expect(got.usage).toEqual({
      input_tokens: 6,
      output_tokens: 97,
      cache_read_input_tokens: 18840,
      cache_creation_input_tokens: 1187,
      cache_creation: { ephemeral_5m_input_tokens: 1187, ephemeral_1h_input_tokens: 0 }
    })
  })

  it('a stream cut short counts what it had reported: message_start’s usage, the last message_delta’s', async () => {
    const bytes = await fixture('tool-use.sse')
    const all = events(bytes)
    const start = all.find(e => e.json.type === 'message_start')
    const delta = all.find(e => e.json.type === 'message_delta')
    if (!start || !delta) throw new Error('the fixture lost its usage events')
    const startUsage = u((start.json.message as { usage: unknown }).usage)
    const cuts = all.flatMap(e => [e.dataEnd - 1, e.dataEnd, e.dataEnd + 1])
    for (const cut of [5, ...cuts]) {
      const got = await through(bytes, 'claude-sonnet-4-6', cut)
      const expected =
        cut >= delta.dataEnd
          ? { ...startUsage, ...(delta.json.usage as object) }
          : cut >= start.dataEnd
            ? startUsage
            : ZERO_USAGE
      const plain = (x: object) => {
        const o = x as Record<string, unknown>
        return Object.fromEntries(fields.map(f => [f, o[f] ?? 0]))
      }
      expect(plain(got.usage), `cut at byte ${cut} of ${bytes.length}`).toEqual(plain(expected))
    }
  })
})
