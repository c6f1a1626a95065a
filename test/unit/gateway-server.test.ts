// The gateway's server against a small real upstream on loopback: routes, the key swap, headers.
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { type Gateway, startGateway } from '../../src/gateway/gateway.js'

interface Seen {
  method?: string
  url?: string
  headers: http.IncomingHttpHeaders
}

async function upstream(answer: (res: http.ServerResponse) => void) {
  const seen: Seen[] = []
  const server = http.createServer((req, res) => {
    seen.push({ method: req.method, url: req.url, headers: req.headers })
    req.resume()
    req.on('end', () => answer(res))
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return { url, seen, close: () => new Promise<void>(resolve => server.close(() => resolve())) }
}

const reply = (res: http.ServerResponse) => {
  res.writeHead(200, { 'content-type': 'application/json', 'x-upstream': 'yes' })
  res.end(JSON.stringify({ type: 'message', usage: { input_tokens: 7, output_tokens: 3 } }))
}

const cleanup: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const c of cleanup.splice(0)) await c()
})

async function setup(authHeader: 'bearer' | 'x-api-key', prefix = '') {
  const up = await upstream(reply)
  const gateway: Gateway = await startGateway({
    upstream: `${up.url}${prefix}`,
    key: 'sk-real-key',
    authHeader,
    concurrency: 'auto',
    maxAttempts: 3
  })
  cleanup.push(() => gateway.close(), up.close)
  return { up, gateway }
}

const post = (url: string, headers: Record<string, string>) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: '{"model":"m"}'
  })

describe('the model gateway server', () => {
  it('swaps a worker token for the real key, keeps the other headers, forwards path and query', async () => {
    const { up, gateway } = await setup('bearer', '/api/anthropic')
    const pass = gateway.register('t1')
    const res = await post(`${gateway.url}/v1/messages?beta=true`, {
      'x-api-key': pass.token,
      'anthropic-version': '2023-06-01',
      'anthropic-beta': 'fine-grained-tool-streaming-2025-05-14'
    })
    expect(res.status).toBe(200)
    expect(res.headers.get('x-upstream')).toBe('yes')
    await res.text()
    const [seen] = up.seen
    expect(seen?.url).toBe('/api/anthropic/v1/messages?beta=true')
    expect(seen?.headers.authorization).toBe('Bearer sk-real-key')
    expect(seen?.headers['x-api-key']).toBeUndefined()
    expect(seen?.headers['anthropic-beta']).toBe('fine-grained-tool-streaming-2025-05-14')
    expect(seen?.headers['anthropic-version']).toBe('2023-06-01')
    expect(JSON.stringify(seen?.headers)).not.toContain(pass.token)
    expect(gateway.taskUsage('t1')).toMatchObject({ input_tokens: 7, output_tokens: 3 })
    expect(pass.usage).toMatchObject({ input_tokens: 7, output_tokens: 3 })
  })

  it('sends x-api-key when configured, forwards count_tokens, accepts a bearer token from the worker', async () => {
    const { up, gateway } = await setup('x-api-key')
    const pass = gateway.register('t2')
    const res = await post(`${gateway.url}/v1/messages/count_tokens?beta=true`, {
      authorization: `Bearer ${pass.token}`
    })
    expect(res.status).toBe(200)
    expect(up.seen[0]?.url).toBe('/v1/messages/count_tokens?beta=true')
    expect(up.seen[0]?.headers['x-api-key']).toBe('sk-real-key')
    expect(up.seen[0]?.headers.authorization).toBeUndefined()
  })

  it('401s unknown and retired tokens, answers other paths itself, and never forwards them', async () => {
    const { up, gateway } = await setup('x-api-key')
    expect((await post(`${gateway.url}/v1/messages`, { 'x-api-key': 'sk-real-key' })).status).toBe(
      401
    )
    const pass = gateway.register('t3')
    await gateway.retire(pass)
    const retired = await post(`${gateway.url}/v1/messages`, { 'x-api-key': pass.token })
    expect(retired.status).toBe(401)
    expect(await retired.json()).toMatchObject({
      type: 'error',
      error: { type: 'authentication_error' }
    })
    expect((await fetch(`${gateway.url}/api/hello`, { method: 'HEAD' })).status).toBe(200)
    const other = await post(`${gateway.url}/v1/models`, {
      'x-api-key': gateway.register('t4').token
    })
    expect(other.status).toBe(404)
    expect(up.seen).toEqual([])
  })

  it('refuses a request past a budget with x-should-retry: false and records which budget', async () => {
    const up = await upstream(reply)
    const gateway = await startGateway({
      upstream: up.url,
      key: 'k',
      authHeader: 'x-api-key',
      concurrency: 2,
      maxAttempts: 1,
      budgets: { taskTokens: 10 }
    })
    cleanup.push(() => gateway.close(), up.close)
    const pass = gateway.register('t5')
    expect((await post(`${gateway.url}/v1/messages`, { 'x-api-key': pass.token })).status).toBe(200)
    const refused = await post(`${gateway.url}/v1/messages`, { 'x-api-key': pass.token })
    expect(refused.status).toBe(400)
    expect(refused.headers.get('x-should-retry')).toBe('false')
    expect(await refused.json()).toMatchObject({
      error: { message: 'token budget spent: 10 of 10 tokens (max-task-tokens)' }
    })
    expect(pass.stoppedBy?.input).toBe('max-task-tokens')
    expect(up.seen).toHaveLength(1)
    expect(gateway.runBudgetSpent()).toBeUndefined()
  })
})

describe('what the limiter learns from a 429', () => {
  async function limitAfter(headers: http.OutgoingHttpHeaders): Promise<number> {
    let calls = 0
    const up = await upstream(res => {
      if (calls++ === 0) {
        res.writeHead(429, { 'content-type': 'application/json', ...headers })
        return void res.end('{"type":"error","error":{"type":"rate_limit_error","message":"x"}}')
      }
      reply(res)
    })
    const gateway = await startGateway({
      upstream: up.url,
      key: 'k',
      authHeader: 'x-api-key',
      concurrency: 'auto',
      maxAttempts: 3,
      retryBaseMs: 1
    })
    cleanup.push(() => gateway.close(), up.close)
    const res = await post(`${gateway.url}/v1/messages`, {
      'x-api-key': gateway.register('t').token
    })
    expect(res.status).toBe(200)
    expect(up.seen).toHaveLength(2)
    return gateway.limit()
  }

  it('a concurrency refusal (no retry-after, as z.ai) cuts the limit; a rate limit with retry-after does not', async () => {
    expect(await limitAfter({})).toBe(1)
    expect(await limitAfter({ 'retry-after': '0' })).toBe(Infinity)
    expect(await limitAfter({ 'retry-after-ms': '5' })).toBe(Infinity)
  })
})
