/**
 * The host side of a sandbox's network. Inside, the network namespace has only its own loopback;
 * two unix sockets are bound in and served on loopback ports by socat (sandbox.ts):
 * - the model endpoint: a byte pipe to exactly that one host:port (today `base-url`, the gateway
 *   once it exists), so its loopback address works unchanged inside;
 * - an HTTP proxy (CONNECT and plain forwarding) that lets through only the allowlist.
 * Both run in the action's event loop: never block it with a synchronous child process.
 */
import { mkdir, rm } from 'node:fs/promises'
import net from 'node:net'
import path from 'node:path'
import { type AllowRule, isLoopback, normaliseHost } from './sandbox-allow.js'
import { classifyHost } from './sandbox-ip.js'
import { allowProxy, type Blocked, pipeBoth } from './sandbox-proxy.js'

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
  /** The run's refused destinations, for the summary. */
  blocked?: Map<string, Blocked>
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

/** The model endpoint's pipe: every connection goes to that one host:port, whatever it sends. */
function modelForward(host: string, port: number): net.Server {
  return net.createServer(client => {
    const upstream = net.connect({ host, port })
    pipeBoth(client, upstream)
  })
}

/** The model endpoint's own rule: set by the workflow, so its name may resolve anywhere. */
function endpointRule(host: string): Omit<AllowRule, 'ports'> {
  const kind = classifyHost(host)
  return kind.kind === 'ip'
    ? { host: kind.address, wildcard: false, ip: true }
    : { host, wildcard: false, anyAddress: true }
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
  if (endpoint && !forwarded) rules.push({ ...endpointRule(endpoint.host), ports: [endpoint.port] })
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
  const proxy = allowProxy({ rules, log: o.log, blocked: o.blocked })
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
