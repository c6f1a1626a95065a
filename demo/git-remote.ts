// A real git smart-HTTP remote for end-to-end tests: `git http-backend` behind a token check, so
// pushes, auth failures, hook rejections and outages behave as they do against GitHub.
import { spawn } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { mkdirSync, writeFileSync } from 'node:fs'
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'

/** What a token may do, as a GitHub token's `contents` permission: read (fetch) or write (push). */
export type TokenPermission = 'read' | 'write'

export interface GitRemoteRequest {
  method: string
  path: string
  authorized: boolean
  /** The permission of the token the request carried, when it carried a known one. */
  permission?: TokenPermission
  service?: string
  /** For an upload-pack POST: the objects its pack held (the count in the pack's header), once answered. */
  objects?: number
  /** From the request's arrival to the end of the answer, in ms (once answered). */
  ms?: number
  /** When it arrived (performance.now() of the stand-in's process). */
  at?: number
}

export interface CommitInfo {
  sha: string
  subject: string
  body: string
  /** `Name <email>` */
  author: string
}

export interface GitRemote {
  /** Base URL with a trailing slash, e.g. http://127.0.0.1:PORT/ */
  url: string
  createRepo(
    name: string,
    opts?: { branch?: string; files?: Record<string, string> }
  ): Promise<string>
  /** The bare repository on disk, for assertions that read it directly. */
  repoPath(name: string): string
  branches(name: string): Promise<Record<string, string>>
  readFile(name: string, ref: string, path: string): Promise<string | undefined>
  log(name: string, ref: string, n?: number): Promise<CommitInfo[]>
  setPreReceive(name: string, script: string): Promise<void>
  setDown(down: boolean): void
  requests: GitRemoteRequest[]
  /** Pushes refused because the token may only read (each answered 403, as GitHub does). */
  refused: GitRemoteRequest[]
  close(): Promise<void>
}

interface GitResult {
  exitCode: number | null
  stdout: string
  stderr: string
}

/** The config file and variables that pin git's behaviour, independent of the machine's config. */
export function gitTestEnv(home: string): NodeJS.ProcessEnv {
  mkdirSync(home, { recursive: true })
  const globalConfig = join(home, '.gitconfig')
  writeFileSync(
    globalConfig,
    [
      '[user]',
      '\tname = Fleet Test',
      '\temail = fleet-test@example.com',
      '[init]',
      '\tdefaultBranch = main',
      '[advice]',
      '\tdetachedHead = false',
      ''
    ].join('\n')
  )
  return {
    PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
    HOME: home,
    LC_ALL: 'C',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: globalConfig,
    GIT_TERMINAL_PROMPT: '0'
  }
}

/** The header value actions/checkout persists for a token. */
export function extraheaderValue(token: string): string {
  return `AUTHORIZATION: basic ${Buffer.from(`x-access-token:${token}`).toString('base64')}`
}

export async function runGit(
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv
): Promise<GitResult> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] })
    const out: Buffer[] = []
    const err: Buffer[] = []
    child.stdout.on('data', (c: Buffer) => out.push(c))
    child.stderr.on('data', (c: Buffer) => err.push(c))
    child.on('error', reject)
    child.on('close', exitCode =>
      resolve({
        exitCode,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8')
      })
    )
  })
}

async function gitOk(args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<string> {
  const r = await runGit(args, cwd, env)
  if (r.exitCode !== 0) {
    throw new Error(`git ${args.join(' ')} failed (${r.exitCode}): ${r.stderr.trim()}`)
  }
  return r.stdout
}

/** The token a request carries as GitHub accepts it: Basic with it as password (any user), or Bearer. */
function tokenOf(header: string | undefined): string | undefined {
  if (!header) return undefined
  const [scheme = '', credential = ''] = header.trim().split(/\s+/, 2)
  if (scheme.toLowerCase() === 'bearer') return credential
  if (scheme.toLowerCase() !== 'basic') return undefined
  const decoded = Buffer.from(credential, 'base64').toString('utf8')
  const colon = decoded.indexOf(':')
  return colon > 0 ? decoded.slice(colon + 1) : undefined
}

/** The permission of the token in `header`; undefined for none or an unknown one. */
function permissionOf(
  header: string | undefined,
  tokens: ReadonlyMap<string, TokenPermission>
): TokenPermission | undefined {
  const token = tokenOf(header)
  return token === undefined ? undefined : tokens.get(token)
}

/** `owner/repo.git` of a smart-HTTP path, as GitHub names it in a refusal. */
function repoNameOf(pathname: string): string {
  const match = /^\/(.+?\.git)(?:\/|$)/.exec(pathname) ?? /^\/([^/]+\/[^/]+)/.exec(pathname)
  const name = match?.[1] ?? pathname.replace(/^\//, '')
  return name.endsWith('.git') ? name : `${name}.git`
}

/**
 * GitHub's answer to a push with a token that may only read: 403 with a plain-text line, which git
 * prints as `remote: Permission to owner/repo.git denied to github-actions[bot].` before
 * `fatal: unable to access '...': The requested URL returned error: 403`.
 */
function refusePush(res: ServerResponse, pathname: string): void {
  res.writeHead(403, { 'content-type': 'text/plain; charset=utf-8' })
  res.end(`Permission to ${repoNameOf(pathname)} denied to github-actions[bot].\n`)
}

function serviceOf(pathname: string, query: URLSearchParams): string | undefined {
  const fromQuery = query.get('service')
  if (fromQuery) return fromQuery
  return /\/(git-upload-pack|git-receive-pack)$/.exec(pathname)?.[1]
}

function repoDir(root: string, name: string): string {
  if (!/^[\w.-]+(\/[\w.-]+)*$/.test(name) || name.split('/').includes('..')) {
    throw new Error(`Bad repository name '${name}'`)
  }
  return join(root, name.endsWith('.git') ? name : `${name}.git`)
}

/** The CGI environment `git http-backend` reads for one request. */
function cgiEnvOf(
  req: IncomingMessage,
  url: URL,
  base: { env: NodeJS.ProcessEnv; root: string }
): NodeJS.ProcessEnv {
  return {
    ...base.env,
    GIT_PROJECT_ROOT: base.root,
    GIT_HTTP_EXPORT_ALL: '1',
    GATEWAY_INTERFACE: 'CGI/1.1',
    REQUEST_METHOD: req.method ?? 'GET',
    PATH_INFO: decodeURIComponent(url.pathname),
    QUERY_STRING: url.search.replace(/^\?/, ''),
    CONTENT_TYPE: req.headers['content-type'] ?? '',
    REMOTE_ADDR: req.socket.remoteAddress ?? '127.0.0.1',
    // Only authorized requests reach the backend.
    REMOTE_USER: 'x-access-token',
    ...(req.headers['content-length'] ? { CONTENT_LENGTH: req.headers['content-length'] } : {}),
    ...(req.headers['content-encoding']
      ? { HTTP_CONTENT_ENCODING: req.headers['content-encoding'] }
      : {}),
    // Without this the backend speaks protocol v0 even when the client asked for v2.
    ...(typeof req.headers['git-protocol'] === 'string'
      ? { HTTP_GIT_PROTOCOL: req.headers['git-protocol'] }
      : {})
  }
}

/** Where a CGI response's headers end in `text`, or -1 while they have not yet. */
function headersEnd(text: string): number {
  const crlf = text.indexOf('\r\n\r\n')
  const lf = text.indexOf('\n\n')
  return crlf >= 0 && (lf < 0 || crlf < lf) ? crlf + 4 : lf >= 0 ? lf + 2 : -1
}

/** The CGI headers (with `Status:`) onto the response; returns the status. */
function writeCgiHead(res: ServerResponse, head: string): number {
  let status = 200
  for (const line of head.split(/\r?\n/)) {
    const colon = line.indexOf(':')
    if (colon <= 0) continue
    const key = line.slice(0, colon).trim()
    const value = line.slice(colon + 1).trim()
    if (key.toLowerCase() === 'status') status = Number.parseInt(value, 10)
    else res.setHeader(key, value)
  }
  return status
}

/**
 * The objects in the pack an upload-pack response carries (protocol v0 or v2, side-band): the
 * pkt-lines of band 1 joined, then the count in the pack's header. 0 when it carries no pack.
 */
export function packObjects(response: Buffer): number {
  const band: Buffer[] = []
  for (let at = 0; at + 4 <= response.length;) {
    const length = Number.parseInt(response.subarray(at, at + 4).toString('latin1'), 16)
    if (!Number.isFinite(length)) break
    if (length < 4) {
      at += 4
      continue
    }
    const line = response.subarray(at + 4, at + length)
    if (line[0] === 1) band.push(line.subarray(1))
    at += length
  }
  const pack = Buffer.concat(band)
  return pack.subarray(0, 4).toString('latin1') === 'PACK' && pack.length >= 12
    ? pack.readUInt32BE(8)
    : 0
}

/** One request through `git http-backend`: its CGI output relayed as the HTTP response. */
function serveBackend(
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  base: {
    env: NodeJS.ProcessEnv
    root: string
    backends: Set<ReturnType<typeof spawn>>
    seen: GitRemoteRequest
  }
): void {
  const child = spawn('git', ['http-backend'], {
    env: cgiEnvOf(req, url, base),
    stdio: ['pipe', 'pipe', 'pipe']
  })
  base.backends.add(child)
  child.on('close', () => base.backends.delete(child))
  // The backend may answer (e.g. 403) without reading the body: ignore the broken pipe.
  child.stdin.on('error', () => {})
  req.pipe(child.stdin)

  let head = Buffer.alloc(0)
  let headersSent = false
  const body: Buffer[] = []
  const counting = base.seen.service === 'git-upload-pack' && req.method === 'POST'
  child.stdout.on('data', (chunk: Buffer) => {
    if (counting) body.push(chunk)
    if (headersSent) {
      res.write(chunk)
      return
    }
    head = Buffer.concat([head, chunk])
    const text = head.toString('latin1')
    const end = headersEnd(text)
    if (end < 0) return
    res.writeHead(writeCgiHead(res, text.slice(0, end)))
    headersSent = true
    res.write(head.subarray(end))
  })
  const stderr: Buffer[] = []
  child.stderr.on('data', (c: Buffer) => stderr.push(c))
  child.on('close', code => {
    if (counting) {
      const whole = Buffer.concat(body).toString('latin1')
      const end = headersEnd(whole)
      if (end >= 0) base.seen.objects = packObjects(Buffer.from(whole.slice(end), 'latin1'))
    }
    if (!headersSent) {
      res.writeHead(500, { 'content-type': 'text/plain' })
      res.end(`git http-backend exited ${code}: ${Buffer.concat(stderr).toString()}`)
      return
    }
    res.end()
  })
}

/** Every request: recorded, then refused while down or without the token, else served. */
function answer(
  req: IncomingMessage,
  res: ServerResponse,
  state: {
    tokens: ReadonlyMap<string, TokenPermission>
    requests: GitRemoteRequest[]
    refused: GitRemoteRequest[]
    down: () => boolean
    env: NodeJS.ProcessEnv
    root: string
    backends: Set<ReturnType<typeof spawn>>
  }
): void {
  const url = new URL(req.url ?? '/', 'http://127.0.0.1')
  const permission = permissionOf(req.headers.authorization, state.tokens)
  const authorized = permission !== undefined
  const service = serviceOf(url.pathname, url.searchParams)
  const seen: GitRemoteRequest = {
    method: req.method ?? 'GET',
    path: url.pathname,
    authorized,
    ...(permission ? { permission } : {}),
    ...(service ? { service } : {})
  }
  state.requests.push(seen)
  const arrived = performance.now()
  seen.at = arrived
  res.once('finish', () => (seen.ms = Math.round((performance.now() - arrived) * 10) / 10))
  if (state.down()) {
    req.resume()
    res.writeHead(503, { 'content-type': 'text/plain' })
    res.end('Service Unavailable\n')
    return
  }
  if (!authorized) {
    req.resume()
    res.writeHead(401, {
      'www-authenticate': 'Basic realm="GitHub"',
      'content-type': 'text/plain'
    })
    res.end('Unauthorized\n')
    return
  }
  if (service === 'git-receive-pack' && permission !== 'write') {
    state.refused.push(seen)
    req.resume()
    refusePush(res, url.pathname)
    return
  }
  serveBackend(req, res, url, { ...state, seen })
}

/** A bare repository at `dir` whose `branch` holds one commit of `files`. */
async function createBare(
  dir: string,
  base: string,
  env: NodeJS.ProcessEnv,
  branch: string,
  files: Record<string, string>
): Promise<void> {
  await mkdir(dirname(dir), { recursive: true })
  await gitOk(['init', '--bare', '--quiet', `--initial-branch=${branch}`, dir], base, env)
  await gitOk(['config', 'http.receivepack', 'true'], dir, env)
  const seed = await mkdtemp(join(base, 'seed-'))
  try {
    await gitOk(['init', '--quiet', `--initial-branch=${branch}`], seed, env)
    // A big seed (thousands of loose objects) would start a detached auto gc that still writes
    // in .git/objects while the seed is removed (ENOTEMPTY).
    await gitOk(['config', 'gc.auto', '0'], seed, env)
    await gitOk(['config', 'maintenance.auto', 'false'], seed, env)
    for (const [path, content] of Object.entries(files)) {
      await mkdir(dirname(join(seed, path)), { recursive: true })
      await writeFile(join(seed, path), content)
    }
    await gitOk(['add', '--all'], seed, env)
    await gitOk(['commit', '--quiet', '--allow-empty', '-m', 'Initial commit'], seed, env)
    await gitOk(['push', '--quiet', dir, `HEAD:refs/heads/${branch}`], seed, env)
  } finally {
    await rm(seed, { recursive: true, force: true })
  }
  // As GitHub does: every pushed object is fscked, and a push carrying a broken one (a tree that
  // names `.git`, a malformed committer) is refused. After the seed, which needs no check.
  await gitOk(['config', 'receive.fsckObjects', 'true'], dir, env)
}

async function branchesOf(dir: string, env: NodeJS.ProcessEnv): Promise<Record<string, string>> {
  const format = '--format=%(refname:strip=2) %(objectname)'
  const out = await gitOk(['for-each-ref', format, 'refs/heads'], dir, env)
  const result: Record<string, string> = {}
  for (const line of out.split('\n')) {
    const space = line.lastIndexOf(' ')
    if (space > 0) result[line.slice(0, space)] = line.slice(space + 1)
  }
  return result
}

async function logOf(
  dir: string,
  ref: string,
  n: number,
  env: NodeJS.ProcessEnv
): Promise<CommitInfo[]> {
  const format = '--format=%H%x1f%s%x1f%b%x1f%an <%ae>%x1e'
  const out = await gitOk(['log', `-n${n}`, format, ref, '--'], dir, env)
  return out
    .split('\x1e')
    .map(record => record.replace(/^\n/, ''))
    .filter(record => record.length > 0)
    .map(record => {
      const [sha = '', subject = '', body = '', author = ''] = record.split('\x1f')
      return { sha, subject, body: body.replace(/\n+$/, ''), author }
    })
}

export interface GitRemoteOptions {
  /** A token that may push (contents: write). */
  token: string
  /** More tokens and what each may do: a read-only one fetches, and its pushes get GitHub's 403. */
  tokens?: Record<string, TokenPermission>
}

export async function startGitRemote(opts: GitRemoteOptions): Promise<GitRemote> {
  const base = await mkdtemp(join(tmpdir(), 'fleet-git-remote-'))
  const root = join(base, 'repos')
  await mkdir(root)
  const env = gitTestEnv(join(base, 'home'))
  const requests: GitRemoteRequest[] = []
  const refused: GitRemoteRequest[] = []
  const tokens = new Map<string, TokenPermission>([
    ...Object.entries(opts.tokens ?? {}),
    [opts.token, 'write']
  ])
  const backends = new Set<ReturnType<typeof spawn>>()
  let down = false

  const server = createServer((req, res) =>
    answer(req, res, { tokens, requests, refused, down: () => down, env, root, backends })
  )
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => resolve())
  })
  const port = (server.address() as AddressInfo).port
  const url = `http://127.0.0.1:${port}/`

  const bare = (name: string) => repoDir(root, name)

  return {
    url,
    requests,
    refused,
    async createRepo(name, repoOpts = {}) {
      await createBare(
        bare(name),
        base,
        env,
        repoOpts.branch ?? 'main',
        repoOpts.files ?? { 'README.md': `# ${name}\n` }
      )
      return `${url}${name.endsWith('.git') ? name : `${name}.git`}`
    },
    repoPath: bare,
    branches: name => branchesOf(bare(name), env),
    async readFile(name, ref, path) {
      const r = await runGit(['cat-file', 'blob', `${ref}:${path}`], bare(name), env)
      return r.exitCode === 0 ? r.stdout : undefined
    },
    log: (name, ref, n = 20) => logOf(bare(name), ref, n, env),
    async setPreReceive(name, script) {
      const hook = join(bare(name), 'hooks', 'pre-receive')
      await mkdir(dirname(hook), { recursive: true })
      await writeFile(hook, script.startsWith('#!') ? script : `#!/bin/sh\n${script}\n`)
      await chmod(hook, 0o755)
    },
    setDown(value) {
      down = value
    },
    async close() {
      for (const child of backends) child.kill('SIGKILL')
      server.closeAllConnections()
      await new Promise<void>(resolve => server.close(() => resolve()))
      await rm(base, { recursive: true, force: true })
    }
  }
}

export interface WorkspaceOptions {
  /** Where to check out; a fresh temp dir by default (the caller removes it). */
  dir?: string
  /** actions/checkout `fetch-depth`: 1 by default, 0 for all branches and tags. */
  fetchDepth?: number
  /** Check out the commit detached (checkout's behaviour for a bare SHA ref) instead of the branch. */
  detach?: boolean
  /**
   * Where the token lives. 'config' (checkout v4/v5): `http.<origin>/.extraheader` in .git/config.
   * 'includeIf' (checkout v6): a separate file, included from .git/config by
   * `includeIf.gitdir:<dir>/.git.path` and `includeIf.gitdir:<dir>/.git/worktrees/*.path`.
   * 'none': `persist-credentials: false`, the token used to fetch, then removed from the checkout.
   */
  credentials?: 'config' | 'includeIf' | 'none'
  /** For credentials 'includeIf': the directory of the credentials file (RUNNER_TEMP in Actions). */
  credentialsDir?: string
}

/** The token where actions/checkout puts it: .git/config, or a file included from it (v6). */
async function addCredentials(
  dir: string,
  env: NodeJS.ProcessEnv,
  cloneUrl: string,
  token: string,
  opts: WorkspaceOptions
): Promise<void> {
  const git = (...args: string[]) => gitOk(args, dir, env)
  const headerKey = `http.${new URL(cloneUrl).origin}/.extraheader`
  if (opts.credentials !== 'includeIf') {
    await git('config', '--local', headerKey, extraheaderValue(token))
    return
  }
  const credDir = opts.credentialsDir ?? join(dir, '.git')
  const credFile = join(credDir, `git-credentials-${randomUUID()}.config`)
  await mkdir(credDir, { recursive: true })
  await git('config', '--file', credFile, headerKey, extraheaderValue(token))
  const gitDir = join(dir, '.git')
  await git('config', '--local', `includeIf.gitdir:${gitDir}.path`, credFile)
  await git('config', '--local', `includeIf.gitdir:${gitDir}/worktrees/*.path`, credFile)
}

/** Clone `cloneUrl` into a workspace laid out exactly as actions/checkout leaves one. */
export async function makeWorkspace(
  cloneUrl: string,
  token: string,
  opts: WorkspaceOptions = {}
): Promise<string> {
  const dir = opts.dir ?? (await mkdtemp(join(tmpdir(), 'fleet-workspace-')))
  await mkdir(dir, { recursive: true })
  // Setup needs no identity: keep the machine's config out without a home of its own.
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
    HOME: dir,
    LC_ALL: 'C',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_TERMINAL_PROMPT: '0'
  }
  const git = (...args: string[]) => gitOk(args, dir, env)

  await git('-c', 'init.defaultBranch=main', 'init', '--quiet')
  await git('remote', 'add', 'origin', cloneUrl)
  await git('config', '--local', 'gc.auto', '0')
  await addCredentials(dir, env, cloneUrl, token, opts)

  // checkout gets ref and sha from the event (GITHUB_REF, GITHUB_SHA): here, the remote's HEAD.
  const symref = await git('ls-remote', '--symref', 'origin', 'HEAD')
  const branch = /^ref: refs\/heads\/(\S+)\tHEAD$/m.exec(symref)?.[1]
  const sha = /^([0-9a-f]{40})\tHEAD$/m.exec(symref)?.[1]
  if (!branch || !sha) throw new Error(`Cannot read the default branch of ${cloneUrl}: ${symref}`)

  const depth = opts.fetchDepth ?? 1
  const fetch = ['-c', 'protocol.version=2', 'fetch']
  if (depth > 0) {
    const refspec = opts.detach ? sha : `+${sha}:refs/remotes/origin/${branch}`
    await git(
      ...fetch,
      '--no-tags',
      '--prune',
      '--no-recurse-submodules',
      `--depth=${depth}`,
      'origin',
      refspec
    )
  } else {
    await git(
      ...fetch,
      '--prune',
      '--no-recurse-submodules',
      'origin',
      '+refs/heads/*:refs/remotes/origin/*',
      '+refs/tags/*:refs/tags/*'
    )
  }
  if (opts.detach) await git('checkout', '--quiet', '--force', sha)
  else await git('checkout', '--quiet', '--force', '-B', branch, `refs/remotes/origin/${branch}`)
  if (opts.credentials === 'none')
    await git('config', '--local', '--unset-all', `http.${new URL(cloneUrl).origin}/.extraheader`)
  return dir
}
