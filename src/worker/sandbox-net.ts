/**
 * The host side of a sandbox's network. Inside, the network namespace has only its own loopback;
 * two unix sockets are bound in and served on loopback ports by socat (sandbox.ts):
 * - the model endpoint: a byte pipe to exactly that one host:port (today `base-url`, the gateway
 *   once it exists), so its loopback address works unchanged inside;
 * - an HTTP proxy (CONNECT and plain forwarding) that lets through only the allowlist.
 * Both run in the action's event loop: never block it with a synchronous child process.
 */
import { mkdir, rm } from 'node:fs/promises'
import http from 'node:http'
import net from 'node:net'
import path from 'node:path'
import { type AllowRule, isAllowed, isLoopback, normaliseHost } from './sandbox-allow.js'

export interface SandboxNetwork {
  proxySocket: string
  proxyPort: number
  modelSocket?: string
  modelPort?: number
  close(): Promise<void>
}

export interface NetworkOptions {
  /** A fresh directory for the sockets, outside anything a caged command can write. */
  dir: string
  /** The URL the worker's ANTHROPIC_BASE_URL holds; none for verify and setup. */
  modelUrl?: string
  allowed: readonly AllowRule[]
  /** Told each refused destination, once. */
  log: (message: string) => void
}

/** The proxy's port inside; any free one will do, the namespace is the sandbox's own. */
const PROXY_PORT = 3128

function endpointOf(url: string): { host: string; port: number } {
  const u = new URL(url)
  const port = u.port ? Number(u.port) : u.protocol === 'https:' ? 443 : 80
  return { host: normaliseHost(u.hostname), port }
}

function listen(server: net.Server, socket: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(socket, () => resolve())
  })
}

function pipeBoth(a: net.Socket, b: net.Socket): void {
  a.on('close', () => b.destroy())
  b.on('close', () => a.destroy())
  a.on('error', () => b.destroy())
  b.on('error', () => a.destroy())
  a.pipe(b)
  b.pipe(a)
}

/** The model endpoint's pipe: every connection goes to that one host:port, whatever it sends. */
function modelForward(host: string, port: number): net.Server {
  return net.createServer(client => {
    const upstream = net.connect({ host, port })
    pipeBoth(client, upstream)
  })
}

function refuse(socket: net.Socket, target: string): void {
  const body = `fleet sandbox: ${target} is not in allowed-domains\n`
  socket.end(
    `HTTP/1.1 403 Forbidden\r\ncontent-type: text/plain\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`
  )
}

/** The allowlisting proxy: CONNECT host:port for TLS, absolute-URI requests for plain HTTP. */
function allowProxy(rules: readonly AllowRule[], log: (m: string) => void): http.Server {
  const refused = new Set<string>()
  const deny = (target: string) => {
    if (!refused.has(target)) log(`sandbox network: refused ${target} (not in allowed-domains)`)
    refused.add(target)
  }
  const server = http.createServer((req, res) => {
    const url = URL.canParse(req.url ?? '') ? new URL(req.url ?? '') : undefined
    if (url?.protocol !== 'http:') {
      res.writeHead(400).end('fleet sandbox: the proxy takes absolute http:// URLs\n')
      return
    }
    const { host, port } = endpointOf(url.href)
    if (!isAllowed(rules, host, port)) {
      deny(`${host}:${port}`)
      res.writeHead(403, { 'content-type': 'text/plain' })
      res.end(`fleet sandbox: ${host}:${port} is not in allowed-domains\n`)
      return
    }
    const headers = { ...req.headers }
    delete headers['proxy-connection']
    delete headers['proxy-authorization']
    const upstream = http.request(
      { host, port, method: req.method, path: url.pathname + url.search, headers },
      reply => {
        res.writeHead(reply.statusCode ?? 502, reply.headers)
        reply.pipe(res)
      }
    )
    upstream.on('error', error => {
      if (!res.headersSent) res.writeHead(502)
      res.end(`fleet sandbox: ${host}:${port}: ${error.message}\n`)
    })
    req.pipe(upstream)
  })
  server.on('connect', (req: http.IncomingMessage, client: net.Socket, head: Buffer) => {
    const m = /^(\[[^\]]+\]|[^:]+):(\d{1,5})$/.exec(req.url ?? '')
    const host = normaliseHost(m?.[1] ?? '')
    const port = Number(m?.[2] ?? 0)
    if (!m || !isAllowed(rules, host, port)) {
      deny(req.url ?? '?')
      refuse(client, req.url ?? '?')
      return
    }
    const upstream = net.connect({ host, port }, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n')
      if (head.length) upstream.write(head)
      pipeBoth(client, upstream)
    })
    upstream.once('error', error => {
      if (client.writable) client.end(`HTTP/1.1 502 Bad Gateway\r\n\r\n${error.message}\n`)
    })
  })
  return server
}

/**
 * Opens the two sockets for one caged command. A model endpoint off loopback (Anthropic's own,
 * or z.ai) is reached through the proxy instead, allowed by name.
 */
export async function openSandboxNetwork(o: NetworkOptions): Promise<SandboxNetwork> {
  await rm(o.dir, { recursive: true, force: true })
  await mkdir(o.dir, { recursive: true, mode: 0o700 })
  const endpoint = o.modelUrl ? endpointOf(o.modelUrl) : undefined
  const forwarded = endpoint && isLoopback(endpoint.host) ? endpoint : undefined
  const rules: AllowRule[] = [...o.allowed]
  if (endpoint && !forwarded)
    rules.push({ host: endpoint.host, wildcard: false, ports: [endpoint.port] })
  const servers: net.Server[] = []
  const open = new Set<net.Socket>()
  const track = (server: net.Server) => {
    servers.push(server)
    server.on('connection', (socket: net.Socket) => {
      open.add(socket)
      socket.once('close', () => open.delete(socket))
    })
  }
  const proxySocket = path.join(o.dir, 'proxy.sock')
  const proxy = allowProxy(rules, o.log)
  track(proxy)
  await listen(proxy, proxySocket)
  let modelSocket: string | undefined
  if (forwarded) {
    modelSocket = path.join(o.dir, 'model.sock')
    const forward = modelForward(forwarded.host, forwarded.port)
    track(forward)
    await listen(forward, modelSocket)
  }
  const proxyPort = forwarded?.port === PROXY_PORT ? PROXY_PORT + 1 : PROXY_PORT
  return {
    proxySocket,
    proxyPort,
    modelSocket,
    modelPort: forwarded?.port,
    async close() {
      for (const socket of open) socket.destroy()
      await Promise.all(servers.map(s => new Promise(resolve => s.close(resolve))))
      await rm(o.dir, { recursive: true, force: true })
    }
  }
}
