/**
 * The sandbox's allowlisting HTTP proxy: CONNECT host:port for TLS, absolute-URI requests for plain
 * HTTP. Each target is judged (sandbox-allow.ts), a name resolved once, and the connection made to
 * that very address, so a second lookup cannot point it elsewhere.
 */
import { lookup } from 'node:dns/promises'
import http from 'node:http'
import net from 'node:net'
import { type AllowRule, judgeAddresses, judgeTarget, NOT_ALLOWED } from './sandbox-allow.js'

/** A refused target, as the summary lists it. */
export interface Blocked {
  /** Completes "<target> …". */
  says: string
  /** The `allowed-domains` entry that would allow it, if one would. */
  allow?: string
}

export interface ProxyOptions {
  rules: readonly AllowRule[]
  log: (message: string) => void
  /** The run's refused targets, shared by every sandbox of the run (for the summary). */
  blocked?: Map<string, Blocked>
}

type Decided = { ip: string } | { refused: Blocked } | { failed: string }

/** The address to connect to, or why not. */
async function decide(rules: readonly AllowRule[], host: string, port: number): Promise<Decided> {
  const target = judgeTarget(rules, host, port)
  if (!target.ok) return { refused: { says: target.says, allow: target.allow } }
  if ('ip' in target) return { ip: target.ip }
  let addresses: string[]
  try {
    addresses = (await lookup(target.name, { all: true, verbatim: true })).map(a => a.address)
  } catch (error) {
    return { failed: `cannot resolve ${target.name}: ${(error as Error).message}` }
  }
  if (target.anyAddress && addresses[0]) return { ip: addresses[0] }
  const judged = judgeAddresses(rules, port, addresses)
  if (!judged.ok) return { refused: { says: judged.says, allow: judged.allow } }
  return 'ip' in judged ? { ip: judged.ip } : { failed: `cannot resolve ${target.name}` }
}

/** A target as a worker wrote it, safe for a log line and a summary's code span. */
function shown(target: string): string {
  return target.replace(/[^\w.:%[\]-]/g, '?').slice(0, 200)
}

function forbidden(target: string, why: Blocked): string {
  return why.says === NOT_ALLOWED
    ? `fleet sandbox: ${target} is not in allowed-domains\n`
    : `fleet sandbox: ${target} ${why.says}\n`
}

export function pipeBoth(a: net.Socket, b: net.Socket): void {
  a.on('close', () => b.destroy())
  b.on('close', () => a.destroy())
  a.on('error', () => b.destroy())
  b.on('error', () => a.destroy())
  a.pipe(b)
  b.pipe(a)
}

function plainHttp(o: ProxyOptions, deny: (t: string, w: Blocked) => void) {
  return async (req: http.IncomingMessage, res: http.ServerResponse) => {
    const url = URL.canParse(req.url ?? '') ? new URL(req.url ?? '') : undefined
    if (url?.protocol !== 'http:') {
      res.writeHead(400).end('fleet sandbox: the proxy takes absolute http:// URLs\n')
      return
    }
    const port = url.port ? Number(url.port) : 80
    const target = `${url.hostname}:${port}`
    const to = await decide(o.rules, url.hostname, port)
    if (!('ip' in to)) {
      if ('refused' in to) deny(target, to.refused)
      const body = 'refused' in to ? forbidden(target, to.refused) : `fleet sandbox: ${to.failed}\n`
      res.writeHead('refused' in to ? 403 : 502, {
        'content-type': 'text/plain',
        'content-length': Buffer.byteLength(body),
        connection: 'close'
      })
      res.end(body)
      return
    }
    const headers: http.OutgoingHttpHeaders = { ...req.headers, host: url.host }
    delete headers['proxy-connection']
    delete headers['proxy-authorization']
    const upstream = http.request(
      { host: to.ip, port, method: req.method, path: url.pathname + url.search, headers },
      reply => {
        res.writeHead(reply.statusCode ?? 502, reply.headers)
        reply.pipe(res)
      }
    )
    upstream.on('error', error => {
      if (!res.headersSent) res.writeHead(502)
      res.end(`fleet sandbox: ${target}: ${error.message}\n`)
    })
    req.pipe(upstream)
  }
}

function tunnel(o: ProxyOptions, deny: (t: string, w: Blocked) => void) {
  return async (req: http.IncomingMessage, client: net.Socket, head: Buffer) => {
    const target = shown(req.url ?? '?')
    const m = /^(\[[^\]]+\]|[^:]+):(\d{1,5})$/.exec(req.url ?? '')
    const port = Number(m?.[2] ?? 0)
    const to = m
      ? await decide(o.rules, m[1] ?? '', port)
      : { refused: { says: 'is not host:port' } }
    if (!('ip' in to)) {
      if ('refused' in to) deny(target, to.refused)
      const [status, body] =
        'refused' in to
          ? ['403 Forbidden', forbidden(target, to.refused)]
          : ['502 Bad Gateway', `fleet sandbox: ${to.failed}\n`]
      client.end(
        `HTTP/1.1 ${status}\r\ncontent-type: text/plain\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`
      )
      return
    }
    const upstream = net.connect({ host: to.ip, port }, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n')
      if (head.length) upstream.write(head)
      pipeBoth(client, upstream)
    })
    upstream.once('error', error => {
      if (client.writable) client.end(`HTTP/1.1 502 Bad Gateway\r\n\r\n${error.message}\n`)
    })
  }
}

export function allowProxy(o: ProxyOptions): http.Server {
  const logged = new Set<string>()
  const deny = (target: string, why: Blocked) => {
    if (!logged.has(target)) o.log(`allowed-domains proxy: refused ${target}: it ${why.says}`)
    logged.add(target)
    o.blocked?.set(target, why)
  }
  const server = http.createServer((req, res) => void plainHttp(o, deny)(req, res))
  server.on('connect', (req: http.IncomingMessage, client: net.Socket, head: Buffer) => {
    client.on('error', () => client.destroy())
    void tunnel(o, deny)(req, client, head)
  })
  return server
}

/** The summary's lines for the run's refused targets, with the entry that would allow each. */
export function blockedLines(blocked: ReadonlyMap<string, Blocked> | undefined): string[] {
  return [...(blocked ?? [])].map(
    ([target, why]) =>
      `\`${target}\` ${why.says}` +
      (why.allow ? `; to allow it, add \`${why.allow}\` to \`allowed-domains\`` : '')
  )
}
