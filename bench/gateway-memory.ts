// The model gateway's memory against a worker posting huge bodies: the gateway runs in its own
// process (as in the action), a minimal upstream beside it; three requests of 100 MiB each are
// posted at once (curl, two declaring their length, one chunked). Reported: the gateway
// process's peak RSS (VmHWM) when idle after one ordinary request, and after the three.
// Run: npm run bench:gateway-memory (bundles this file with ncc, then runs it).
import { execFile, fork } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { writeFile, rm } from 'node:fs/promises'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { startGateway } from '../src/gateway/gateway.js'

const role = process.argv[2] ?? 'main'
const MiB = 1024 * 1024

const peakKb = () => Number(/VmHWM:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1])

async function gatewayRole(): Promise<void> {
  const upstream = http.createServer((req, res) => {
    req.resume()
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ type: 'message', usage: { input_tokens: 1, output_tokens: 1 } }))
    })
  })
  await new Promise<void>(resolve => upstream.listen(0, '127.0.0.1', resolve))
  const gateway = await startGateway({
    upstream: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`,
    key: 'k',
    authHeader: 'x-api-key',
    concurrency: 'auto',
    maxAttempts: 1
  })
  const token = gateway.register('bench').token
  process.send?.({ url: gateway.url, token })
  process.on('message', () => process.send?.({ peakKb: peakKb() }))
}

const run = promisify(execFile)

function curl(url: string, token: string, args: string[]): Promise<string> {
  return run('curl', [
    '-s',
    '-o',
    '/dev/null',
    '-w',
    '%{http_code}',
    '-H',
    `x-api-key: ${token}`,
    '-H',
    'content-type: application/json',
    ...args,
    `${url}/v1/messages`
  ]).then(r => r.stdout)
}

async function main(): Promise<void> {
  const child = fork(process.argv[1] ?? '', ['gateway'])
  const next = () => new Promise<Record<string, unknown>>(resolve => child.once('message', resolve))
  const { url, token } = (await next()) as { url: string; token: string }
  const ask = async () => {
    const reply = next()
    child.send('peak')
    return Number((await reply).peakKb) / 1024
  }
  const small = await curl(url, token, ['-d', '{"model":"m","max_tokens":5}'])
  const idle = await ask()
  const file = path.join(tmpdir(), 'fleet-bench-100mib.json')
  await writeFile(file, Buffer.alloc(100 * MiB, 0x20))
  const t0 = Date.now()
  const statuses = await Promise.all([
    curl(url, token, ['-X', 'POST', '-T', file]),
    curl(url, token, ['--data-binary', `@${file}`]),
    curl(url, token, ['-X', 'POST', '-H', 'transfer-encoding: chunked', '-T', file])
  ])
  const ms = Date.now() - t0
  const after = await ask()
  await rm(file, { force: true })
  child.kill()
  console.log(
    JSON.stringify({
      small,
      statuses,
      idlePeakMiB: idle,
      afterPeakMiB: after,
      growthMiB: after - idle,
      ms
    })
  )
}

if (role === 'gateway') void gatewayRole()
else void main()
