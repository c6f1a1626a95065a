/**
 * A push in one HTTP request: smart HTTP's receive-pack service (git's gitprotocol-pack and
 * gitprotocol-http), posted without the ref advertisement `git push` asks for first, so one round
 * trip to the remote instead of two, and no git client processes but the pack's. Each command
 * names the value its ref must have on the remote (the lease; the zero id: it must not exist),
 * which receive-pack enforces itself, under the ref's lock. Only a clear `ok` for a ref is taken
 * from here: a refusal, an answer that cannot be read or none at all is for `git push` to do again
 * and word as it always has (FleetRepo.pushMany).
 */
import { request as httpRequest } from 'node:http'
import { request as httpsRequest } from 'node:https'
import { type Git, tokenForms } from './git.js'
import type { RefReader, RefWriter } from './ref-writer.js'

/** A ref to set on the remote: from `old` (undefined: it must not exist) to `new`. */
export interface RefUpdate {
  ref: string
  old: string | undefined
  new: string
}

/**
 * What this client asks of receive-pack: a status per ref, that status and the remote's messages on
 * side bands, no progress. An unknown capability is ignored by a server, never refused.
 */
const CAPABILITIES = 'report-status side-band-64k quiet agent=fleet-worker'

const FLUSH = Buffer.from('0000')

/** One pkt-line: four hex digits of its whole length, then the payload. */
export function pktLine(payload: string | Buffer): Buffer {
  const data = typeof payload === 'string' ? Buffer.from(payload) : payload
  return Buffer.concat([Buffer.from((data.length + 4).toString(16).padStart(4, '0')), data])
}

/**
 * The pkt-lines of `data`: each payload, null for a flush; undefined when the framing is broken (a
 * length that is not hex, shorter than its header or past the end).
 */
export function pktLines(data: Buffer): (Buffer | null)[] | undefined {
  const lines: (Buffer | null)[] = []
  for (let at = 0; at < data.length;) {
    const head = data.toString('latin1', at, at + 4)
    if (!/^[0-9a-f]{4}$/.test(head)) return undefined
    const length = parseInt(head, 16)
    if (length === 0) {
      lines.push(null)
      at += 4
      continue
    }
    if (length < 4 || at + length > data.length) return undefined
    lines.push(data.subarray(at + 4, at + length))
    at += length
  }
  return lines
}

/** The request's body: the commands (capabilities on the first), a flush, then the pack. */
export function pushRequest(updates: RefUpdate[], pack: Buffer): Buffer {
  const commands = updates.map((u, i) => {
    const command = `${u.old ?? '0'.repeat(u.new.length)} ${u.new} ${u.ref}`
    return pktLine(i === 0 ? `${command}\0${CAPABILITIES}` : command)
  })
  return Buffer.concat([...commands, FLUSH, pack])
}

/**
 * receive-pack's report (side band 1, itself pkt-lines): `unpack ok`, then `ok <ref>` or
 * `ng <ref> <reason>` for each command. Each ref's verdict: true, or the remote's reason. Undefined
 * when the pack was not unpacked, a fatal error came on band 3, or the answer cannot be read.
 */
export function readReport(answer: Buffer): Map<string, true | string> | undefined {
  const bands = pktLines(answer)
  if (!bands) return undefined
  const report: Buffer[] = []
  for (const line of bands) {
    if (line === null) continue
    if (line[0] === 1) report.push(line.subarray(1))
    else if (line[0] !== 2) return undefined
  }
  const status = pktLines(Buffer.concat(report))
  if (!status) return undefined
  const [unpack, ...refs] = status
    .filter((l): l is Buffer => l !== null)
    .map(l => l.toString('utf8').replace(/\n$/, ''))
  if (unpack !== 'unpack ok') return undefined
  const verdicts = new Map<string, true | string>()
  for (const line of refs) {
    const m = /^(ok|ng) (\S+)(?: (.*))?$/.exec(line)
    if (!m?.[2]) return undefined
    verdicts.set(m[2], m[1] === 'ok' ? true : (m[3] ?? 'refused'))
  }
  return verdicts
}

/** How long the remote may send nothing during one push before `git push` is asked instead. */
const POST_TIMEOUT_MS = 5 * 60_000

/** The remote's verdict on each ref, or why there is none to read. */
export type Answer = { verdicts: Map<string, true | string> } | { why: string }

/**
 * Posts the push to `<url>/git-receive-pack` and reads the report, or says why there is none to
 * read: the remote unreachable, a status other than 200 (a redirect among them: never followed),
 * another content type, an answer that is not a report. The token goes in this request alone, to
 * this URL alone. Through node:http(s), not fetch: the first fetch of a process costs about 11 ms
 * more (its client is set up on first use), and each one after about 2 ms more (measured).
 */
export async function postPush(
  url: string,
  authorization: string,
  body: Buffer,
  timeoutMs = POST_TIMEOUT_MS
): Promise<Answer> {
  try {
    const { status, type, bytes } = await post(
      `${url.replace(/\/+$/, '')}/git-receive-pack`,
      {
        authorization,
        'content-type': 'application/x-git-receive-pack-request',
        accept: 'application/x-git-receive-pack-result',
        'user-agent': 'fleet-worker',
        'content-length': String(body.length)
      },
      body,
      timeoutMs
    )
    if (status !== 200 || !type.startsWith('application/x-git-receive-pack-result'))
      return { why: `the remote answered ${status}${type ? ` (${type.split(';')[0]})` : ''}` }
    const verdicts = readReport(bytes)
    return verdicts ? { verdicts } : { why: 'its answer held no report to read' }
  } catch (error) {
    return { why: error instanceof Error ? error.message : String(error) }
  }
}

/** One POST: the status, the content type, and the body of a 200 (others are not read). */
function post(
  url: string,
  headers: Record<string, string>,
  body: Buffer,
  timeoutMs: number
): Promise<{ status: number; type: string; bytes: Buffer }> {
  const send = url.startsWith('https:') ? httpsRequest : httpRequest
  return new Promise((resolve, reject) => {
    const req = send(url, { method: 'POST', headers, timeout: timeoutMs }, res => {
      // An answer cut short rejects (an 'error', or a close before its end), never throws unheard.
      res.on('error', reject)
      res.on('close', () => {
        if (!res.complete)
          reject(new Error('the remote closed the connection before its answer ended'))
      })
      const status = res.statusCode ?? 0
      const type = res.headers['content-type'] ?? ''
      if (status !== 200) {
        res.resume()
        resolve({ status, type, bytes: Buffer.alloc(0) })
        return
      }
      const chunks: Buffer[] = []
      res.on('data', (chunk: Buffer) => chunks.push(chunk))
      res.on('end', () => resolve({ status, type, bytes: Buffer.concat(chunks) }))
    })
    req.on('timeout', () =>
      req.destroy(new Error(`the remote sent nothing for ${timeoutMs / 1000} s`))
    )
    req.on('error', reject)
    req.end(body)
  })
}

/**
 * Settings, in the environment, that send git to the remote another way than straight: a proxy,
 * or config on the command line (an `http.proxy` there). TLS settings are not among them: where
 * this client cannot verify the remote as git would (a CA of the runner's own), its request fails
 * and `git push` does the push.
 */
const ROUTED = /^(?:(?:https?|all)_proxy|GIT_PROXY_\w+|GIT_CONFIG_PARAMETERS)$/i

/**
 * The Authorization header for a push in one request, when git itself would go straight to the
 * remote with nothing but its URL and this token (an https or http URL, no proxy, no `http.*`
 * config in the environment); otherwise undefined, and `git push` does it. The action's git reads
 * no system or global config (git.ts HARDENED_ENV), so the environment is all there is to read.
 */
export function oneRequestAuth(
  url: string,
  token: string | undefined,
  env: NodeJS.ProcessEnv
): string | undefined {
  if (!token || !/^https?:\/\/[^@/]+\//.test(url)) return undefined
  for (const [name, value] of Object.entries(env)) {
    if (!value) continue
    if (ROUTED.test(name)) return undefined
    if (/^GIT_CONFIG_KEY_\d+$/.test(name) && /^http\./i.test(value)) return undefined
  }
  return `Basic ${tokenForms(token)[1] ?? ''}`
}

/** Where the branches go: the remote's URL and token, and the environment git would run with. */
export interface PushTarget {
  url: string
  token: string | undefined
  env: NodeJS.ProcessEnv
}

/** The clone's refs as a push in one request reads and writes them, and its base branch. */
export interface CloneRefs {
  writer: RefWriter
  reader: RefReader
  base?: string
}

/**
 * The clone's `branches` pushed to the same names on origin in one request, each with its lease:
 * the value `leases` gives it (undefined: it must not exist), else its remote-tracking ref (as
 * `git push --force-with-lease=<ref>` reads it). The pack is thin against what the remote-tracking
 * refs of the base and of these branches say the remote has (what their work starts from).
 * Returns the branches the remote answered `ok` for, their remote-tracking refs moved (as `git
 * push` does); every other branch, and every branch when this way cannot be taken (oneRequestAuth)
 * or the request got no report (`why`), is left for `git push`.
 */
export async function pushInOneRequest(
  git: Git,
  refs: CloneRefs,
  target: PushTarget,
  branches: string[],
  leases = new Map<string, string | undefined>()
): Promise<{ landed: Set<string>; why?: string }> {
  const authorization = oneRequestAuth(target.url, target.token, target.env)
  if (!authorization || branches.length === 0) return { landed: new Set() }
  const tracking = [...new Set([...(refs.base ? [refs.base] : []), ...branches])]
  const sha = await refs.reader.read([
    ...branches.map(b => `refs/heads/${b}`),
    ...tracking.map(b => `${TRACKING}${b}`)
  ])
  const updates = branches.map(b => ({
    branch: b,
    ref: `refs/heads/${b}`,
    old: leases.has(b) ? leases.get(b) : sha.get(`${TRACKING}${b}`),
    new: sha.get(`refs/heads/${b}`) ?? ''
  }))
  if (updates.some(u => !/^[0-9a-f]{40}$/.test(u.new))) return { landed: new Set() }
  const has = [...new Set(tracking.map(b => sha.get(`${TRACKING}${b}`)))].filter(
    s => s !== undefined
  )
  const pack = await git.bytes(
    ['pack-objects', '--stdout', '--thin', '--revs', '--delta-base-offset', '-q'],
    [...updates.map(u => u.new), '--not', ...has, ''].join('\n')
  )
  const answer = await postPush(target.url, authorization, pushRequest(updates, pack))
  if ('why' in answer) return { landed: new Set(), why: answer.why }
  const landed = updates.filter(u => answer.verdicts.get(u.ref) === true)
  if (landed.length > 0)
    await refs.writer.set(landed.map(u => ({ ref: `${TRACKING}${u.branch}`, sha: u.new })))
  return { landed: new Set(landed.map(u => u.branch)) }
}

/** Where the clone keeps what it last saw of the remote's branches. */
const TRACKING = 'refs/remotes/origin/'
