// The model gateway's cost per request on loopback: added latency (p50/p95) and its CPU.
// Three processes: a minimal SSE upstream, the gateway (src/gateway, as the action runs it), and
// this client, which alternates requests sent straight to the upstream and through the gateway.
// Run: npm run bench:gateway (bundles this file with ncc, then runs it). BENCH_REQUESTS (2000).
import { fork } from 'node:child_process'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { startGateway } from '../src/gateway/gateway.js'

const N = Number(process.env.BENCH_REQUESTS ?? 2000)
const KEY = 'sk-bench-upstream-key'
const role = process.argv[2] ?? 'main'

/** A reply like a short model turn: message_start, 20 text deltas, message_delta, message_stop. */
function sseReply(): string {
  const ev = (type: string, data: object) =>
    `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`
  const usage = {
    input_tokens: 1200,
    output_tokens: 1,
    cache_read_input_tokens: 300,
    cache_creation_input_tokens: 0
  }
  const parts = [
    ev('message_start', {
      message: { id: 'msg_bench', type: 'message', role: 'assistant', content: [], usage }
    })
  ]
  parts.push(ev('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }))
  for (let i = 0; i < 20; i++)
    parts.push(
      ev('content_block_delta', { index: 0, delta: { type: 'text_delta', text: `word${i} ` } })
    )
  parts.push(ev('content_block_stop', { index: 0 }))
  parts.push(
    ev('message_delta', { delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 42 } })
  )
  parts.push(ev('message_stop', {}))
  return parts.join('')
}

function listen(server: http.Server): Promise<string> {
  return new Promise(resolve =>
    server.listen(0, '127.0.0.1', () =>
      resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)
    )
  )
}

async function upstream(): Promise<void> {
  const reply = sseReply()
  const server = http.createServer((req, res) => {
    if (req.headers['x-api-key'] !== KEY) return void res.writeHead(401).end()
    req.resume()
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      res.end(reply)
    })
  })
  server.keepAliveTimeout = 60_000
  process.send?.({ url: await listen(server) })
}

async function gateway(url: string): Promise<void> {
  const gw = await startGateway({
    upstream: url,
    key: KEY,
    authHeader: 'x-api-key',
    concurrency: 'auto',
    maxAttempts: 3
  })
  const pass = gw.register('bench')
  process.on('message', (m: { cpu?: boolean }) => {
    if (m.cpu) process.send?.({ cpu: process.cpuUsage(), usage: gw.taskUsage('bench') })
  })
  process.send?.({ url: gw.url, token: pass.token })
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 8 })
const BODY = JSON.stringify({
  model: 'bench',
  stream: true,
  max_tokens: 1024,
  // ~19 kB, the size of a turn with --tools Bash,Edit,Read,Write.
  messages: [{ role: 'user', content: 'x'.repeat(19_000) }]
})

function request(base: string, key: string): Promise<number> {
  const started = process.hrtime.bigint()
  return new Promise((resolve, reject) => {
    const req = http.request(`${base}/v1/messages?beta=true`, {
      method: 'POST',
      agent,
      headers: {
        'content-type': 'application/json',
        'x-api-key': key,
        'anthropic-version': '2023-06-01'
      }
    })
    req.on('response', res => {
      if (res.statusCode !== 200) reject(new Error(`status ${res.statusCode}`))
      res.resume()
      res.on('end', () => resolve(Number(process.hrtime.bigint() - started) / 1e6))
    })
    req.on('error', reject)
    req.end(BODY)
  })
}

const q = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil(p * xs.length) - 1)] ?? NaN
const f = (ms: number) => `${ms.toFixed(2)} ms`

function child<T>(args: string[]): Promise<{ proc: ReturnType<typeof fork>; first: T }> {
  const proc = fork(process.argv[1] ?? '', args, { stdio: 'inherit' })
  return new Promise(resolve => proc.once('message', m => resolve({ proc, first: m as T })))
}

async function main(): Promise<void> {
  const up = await child<{ url: string }>(['upstream'])
  const gw = await child<{ url: string; token: string }>(['gateway', up.first.url])
  for (let i = 0; i < 200; i++) {
    await request(up.first.url, KEY)
    await request(gw.first.url, gw.first.token)
  }
  const askCpu = () =>
    new Promise<{ cpu: NodeJS.CpuUsage; usage: object }>(resolve => {
      gw.proc.once('message', m => resolve(m as { cpu: NodeJS.CpuUsage; usage: object }))
      gw.proc.send({ cpu: true })
    })
  const direct: number[] = []
  const via: number[] = []
  const before = await askCpu()
  for (let i = 0; i < N; i++) {
    direct.push(await request(up.first.url, KEY))
    via.push(await request(gw.first.url, gw.first.token))
  }
  const sequential = await askCpu()
  // Six workers at once: the gateway's CPU per request when requests overlap.
  const wall = Date.now()
  let sent = 0
  await Promise.all(
    Array.from({ length: 6 }, async () => {
      while (sent < N) {
        sent++
        await request(gw.first.url, gw.first.token)
      }
    })
  )
  const parallelMs = Date.now() - wall
  const after = await askCpu()
  const cpuMs = (a: NodeJS.CpuUsage, b: NodeJS.CpuUsage) =>
    (b.user + b.system - a.user - a.system) / 1000
  const added = direct.map((d, i) => (via[i] ?? d) - d)
  const rows = {
    requests: N,
    'direct p50 / p95': `${f(q(direct, 0.5))} / ${f(q(direct, 0.95))}`,
    'via gateway p50 / p95': `${f(q(via, 0.5))} / ${f(q(via, 0.95))}`,
    'added p50 / p95 (paired)': `${f(q(added, 0.5))} / ${f(q(added, 0.95))}`,
    'gateway CPU per request, sequential': f(cpuMs(before.cpu, sequential.cpu) / N),
    'gateway CPU per request, 6 at once': f(cpuMs(sequential.cpu, after.cpu) / N),
    '6 at once: requests/s': Math.round((N / parallelMs) * 1000),
    'usage counted (input tokens)': (after.usage as { input_tokens: number }).input_tokens
  }
  console.table(rows)
  up.proc.kill()
  gw.proc.kill()
  agent.destroy()
}

if (role === 'upstream') await upstream()
else if (role === 'gateway') await gateway(process.argv[3] ?? '')
else await main()
