// The gateway's server against a small real upstream on loopback: routes, the key swap, headers.
import http from 'node:http'
import net, { type AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { type Gateway, startGateway } from '../../src/gateway/gateway.js'
import { closeAfterAnswer } from '../../src/gateway/linger.js'

interface Seen {
  method?: string
  url?: string
  headers: http.IncomingHttpHeaders
  body: string
}

async function upstream(answer: (res: http.ServerResponse) => void) {
  const seen: Seen[] = []
  const server = http.createServer((req, res) => {
    const entry: Seen = { method: req.method, url: req.url, headers: req.headers, body: '' }
    seen.push(entry)
    req.on('data', (c: Buffer) => (entry.body += c.toString('utf8')))
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

/** A gateway on key 'k' over x-api-key: two at a time, one attempt each, and `more`. */
async function oneAttempt(more: Partial<Parameters<typeof startGateway>[0]>) {
  const up = await upstream(reply)
  const gateway = await startGateway({
    upstream: up.url,
    key: 'k',
    authHeader: 'x-api-key',
    concurrency: 2,
    maxAttempts: 1,
    ...more
  })
  cleanup.push(() => gateway.close(), up.close)
  return { up, gateway }
}

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

const post = (
  url: string,
  headers: Record<string, string>,
  body = '{"model":"m","max_tokens":5}'
) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body })

describe('the model gateway server', () => {
  it('swaps a worker token for the real key, passes only allowlisted headers and betas, forwards path and query', async () => {
    const { up, gateway } = await setup('bearer', '/api/anthropic')
    const pass = gateway.register('t1')
    const res = await post(`${gateway.url}/v1/messages?beta=true`, {
      'x-api-key': pass.token,
      'anthropic-version': '2023-06-01',
      'anthropic-beta': 'context-1m-2025-08-07, claude-code-20250219',
      cookie: 'session=1',
      'x-portkey-provider': 'openai',
      'x-stainless-os': 'Linux'
    })
    expect(res.status).toBe(200)
    expect(res.headers.get('x-upstream')).toBe('yes')
    await res.text()
    const [seen] = up.seen
    expect(seen?.url).toBe('/api/anthropic/v1/messages?beta=true')
    expect(seen?.headers.authorization).toBe('Bearer sk-real-key')
    expect(seen?.headers['x-api-key']).toBeUndefined()
    expect(seen?.headers['anthropic-beta']).toBe('claude-code-20250219')
    expect(seen?.headers['anthropic-version']).toBe('2023-06-01')
    expect(Object.keys(seen?.headers ?? {}).sort()).toEqual([
      'accept',
      'accept-encoding',
      'anthropic-beta',
      'anthropic-version',
      'authorization',
      'connection',
      'content-length',
      'content-type',
      'host',
      'user-agent'
    ])
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

  it("reserves each request's worst case: max_tokens lowered to what is left, refused once even one output token cannot fit", async () => {
    const { up, gateway } = await oneAttempt({ budgets: { taskTokens: 60 } })
    const pass = gateway.register('t5')
    // A 31-byte body: its input is at most 31 tokens, so 29 of the 60 are left for output.
    const body = '{"model":"m","max_tokens":1000}'
    const send = () => post(`${gateway.url}/v1/messages`, { 'x-api-key': pass.token }, body)
    expect((await send()).status).toBe(200)
    expect(JSON.parse(up.seen[0]?.body ?? '{}')).toEqual({ model: 'm', max_tokens: 29 })
    // 10 spent (7 + 3): 50 left, 19 for output.
    expect((await send()).status).toBe(200)
    expect(JSON.parse(up.seen[1]?.body ?? '{}')).toMatchObject({ max_tokens: 19 })
    await send() // 20 spent: 9 for output
    const refused = await send() // 30 spent: 30 left, under 31 + 1
    expect(refused.status).toBe(400)
    expect(refused.headers.get('x-should-retry')).toBe('false')
    expect(await refused.json()).toMatchObject({
      error: {
        message:
          'token budget too low for this request: it may use 32 tokens (its input at most 31 tokens), and 30 of 60 tokens are left (budgets: task-tokens)'
      }
    })
    expect(pass.stoppedBy?.input).toBe('budgets: task-tokens')
    expect(up.seen).toHaveLength(3)
    expect(gateway.runBudgetSpent()).toBeUndefined()
  })

  it('holds a burst: requests in flight together reserve, so the task never passes its budget', async () => {
    // The endpoint bills each request its worst case: the whole body as input, max_tokens out.
    const seen: string[] = []
    const server = http.createServer((req, res) => {
      let body = ''
      req.on('data', (c: Buffer) => (body += c.toString()))
      req.on('end', () => {
        seen.push(body)
        const max = (JSON.parse(body) as { max_tokens: number }).max_tokens
        const usage = { input_tokens: Buffer.byteLength(body), output_tokens: max }
        res.writeHead(200, { 'content-type': 'application/json' })
        // Held a little, so the burst's requests are all in flight together.
        setTimeout(() => res.end(JSON.stringify({ type: 'message', usage })), 50)
      })
    })
    await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
    const gateway = await startGateway({
      upstream: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      key: 'k',
      authHeader: 'x-api-key',
      concurrency: 100,
      maxAttempts: 1,
      budgets: { taskTokens: 500 }
    })
    cleanup.push(
      () => gateway.close(),
      () => new Promise(r => server.close(() => r()))
    )
    const pass = gateway.register('t6')
    const body = '{"model":"m","max_tokens":64000}'
    const statuses = await Promise.all(
      Array.from({ length: 12 }, () =>
        post(`${gateway.url}/v1/messages`, { 'x-api-key': pass.token }, body).then(r => r.status)
      )
    )
    expect(seen.length).toBeGreaterThanOrEqual(1)
    expect(statuses.filter(s => s === 200)).toHaveLength(seen.length)
    const billed = seen.reduce(
      (sum, b) => sum + Buffer.byteLength(b) + (JSON.parse(b) as { max_tokens: number }).max_tokens,
      0
    )
    expect(billed).toBeLessThanOrEqual(500)
    expect(gateway.taskSpend('t6').tokens).toBe(billed)
    expect(pass.stoppedBy?.input).toBe('budgets: task-tokens')
  })

  it('refuses a model the run did not configure before any upstream request', async () => {
    const { up, gateway } = await oneAttempt({ models: ['glm-4.6', 'glm-4.5-air'] })
    const token = gateway.register('t7').token
    const res = await post(
      `${gateway.url}/v1/messages`,
      { 'x-api-key': token },
      '{"model":"claude-opus-4-1","max_tokens":64000}'
    )
    expect(res.status).toBe(400)
    expect(await res.json()).toEqual({
      type: 'error',
      error: {
        type: 'invalid_request_error',
        message:
          "model 'claude-opus-4-1' is not one this run configured: the fleet's gateway forwards only 'glm-4.6', 'glm-4.5-air'"
      }
    })
    expect(up.seen).toEqual([])
    const ok = await post(
      `${gateway.url}/v1/messages`,
      { 'x-api-key': token },
      '{"model":"glm-4.6","max_tokens":9}'
    )
    expect(ok.status).toBe(200)
  })

  it('answers a body over 32 MiB with 413 before reading it, declared or streamed', async () => {
    const { up, gateway } = await setup('x-api-key')
    const token = gateway.register('t8').token
    const declared = await new Promise<number>((resolve, reject) => {
      const req = http.request(`${gateway.url}/v1/messages`, {
        method: 'POST',
        headers: { 'x-api-key': token, 'content-length': String(100 * 1024 * 1024) }
      })
      req.on('response', r => resolve(r.statusCode ?? 0)).on('error', reject)
      req.write('{"model":"m"') // and nothing more: the answer must not wait for the rest
    })
    expect(declared).toBe(413)
    const chunk = Buffer.alloc(1024 * 1024, 0x20)
    const streamed = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = http.request(`${gateway.url}/v1/messages`, {
        method: 'POST',
        headers: { 'x-api-key': token, 'transfer-encoding': 'chunked' }
      })
      req.on('response', r => {
        let body = ''
        r.on('data', (c: Buffer) => (body += c.toString()))
        r.on('end', () => resolve({ status: r.statusCode ?? 0, body }))
      })
      req.on('error', reject)
      const pump = () => {
        while (!req.destroyed && req.write(chunk));
        if (!req.destroyed) req.once('drain', pump)
      }
      pump()
    })
    expect(streamed.status).toBe(413)
    expect(JSON.parse(streamed.body)).toMatchObject({ error: { type: 'request_too_large' } })
    expect(up.seen).toEqual([])
  })

  // A client still sending when the 413 comes must read it, not a reset: closing a socket with
  // unread bytes sends RST, which can overtake the answer (EPIPE or 'other side closed').
  it('lets a client that is still sending read the 413: fetch, as the claude CLI sends', async () => {
    const { up, gateway } = await setup('x-api-key')
    const token = gateway.register('t9').token
    const chunk = new Uint8Array(1024 * 1024).fill(0x20)
    for (let round = 0; round < 4; round++) {
      let sent = 0
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (sent++ < 64) controller.enqueue(chunk)
          else controller.close()
        }
      })
      const res = await fetch(`${gateway.url}/v1/messages`, {
        method: 'POST',
        headers: { 'x-api-key': token, 'content-type': 'application/json' },
        body,
        duplex: 'half'
      })
      expect(res.status, `round ${round}`).toBe(413)
      expect(await res.json()).toMatchObject({ error: { type: 'request_too_large' } })
    }
    expect(up.seen).toEqual([])
  })
})

describe('closing after an early answer', () => {
  it('drops the rest of the body, then closes a client that never stops sending', async () => {
    let dropped = 0
    // Timed on the server's side: the client's own clock is late by however busy its loop is.
    let answeredAt = 0
    let closedAt = 0
    const server = http.createServer((req, res) => {
      req.once('data', () => {
        req.pause()
        closeAfterAnswer(req, res, 300)
        res.on('finish', () => (answeredAt = Date.now()))
        req.socket.on('close', () => (closedAt = Date.now()))
        res.writeHead(413).end('too large')
        req.socket.on('data', (c: Buffer) => (dropped += c.length))
      })
    })
    await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
    cleanup.push(() => new Promise<void>(resolve => server.close(() => resolve())))
    const { port } = server.address() as AddressInfo
    const chunk = Buffer.alloc(256 * 1024, 0x20)
    // A raw client that keeps its side open and writes on after the server's FIN.
    const seen = await new Promise<{ text: string; finAt: number }>(resolve => {
      const socket = net.connect({ port, host: '127.0.0.1', allowHalfOpen: true })
      let text = ''
      let finAt = 0
      socket.on('data', (c: Buffer) => (text += c.toString('latin1')))
      socket.on('end', () => (finAt = Date.now()))
      socket.on('error', () => undefined)
      socket.on('close', () => resolve({ text, finAt }))
      socket.write('POST / HTTP/1.1\r\nhost: x\r\ncontent-length: 100000000000\r\n\r\n')
      const pump = () => {
        while (!socket.destroyed && socket.write(chunk));
        if (!socket.destroyed) socket.once('drain', pump)
      }
      pump()
    })
    expect(seen.text.split('\r\n')[0]).toBe('HTTP/1.1 413 Payload Too Large')
    expect(seen.text.toLowerCase()).toContain('connection: close')
    expect(seen.finAt, 'the answer is followed by a FIN').toBeGreaterThan(0)
    expect(dropped, 'the rest of the body is read').toBeGreaterThan(0)
    // Closed by the linger time (300 ms), not at once and not never.
    await expect.poll(() => closedAt).toBeGreaterThan(0)
    expect(closedAt - answeredAt).toBeGreaterThanOrEqual(290)
    expect(closedAt - answeredAt).toBeLessThan(60_000)
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
