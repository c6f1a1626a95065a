// One Prism per test process, shared by every GitHub mock in it. Prism validates requests against
// GitHub's OpenAPI description; loading even the trimmed spec takes ~2 s, so it is started lazily,
// kept while mocks use it (and briefly after, so back-to-back tests reuse it), and never orphaned.
import { type ChildProcess, spawn } from 'node:child_process'
import { Agent, request } from 'node:http'
import { existsSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const SPEC = fileURLToPath(new URL('./github-api.trimmed.json', import.meta.url))
// Preloaded into Prism: it exits when our end of its stdin closes, i.e. when this process dies,
// however it dies (SIGKILL from a test runner included).
const EXIT_WITH_PARENT =
  'data:text/javascript,process.stdin.on("end",()=>process.exit(0)).on("error",()=>process.exit(0)).resume()'
const IDLE_MS = 1500
// Prism's start line: "Prism is listening on http://127.0.0.1:40215".
const LISTENING = /Prism is listening on (http:\/\/127\.0\.0\.1:\d+)/

export interface PrismResponse {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: Buffer
}

export interface Prism {
  url: string
  startupMs: number
  forward(
    method: string,
    path: string,
    headers: Record<string, string>,
    body: Buffer
  ): Promise<PrismResponse>
}

interface Running extends Prism {
  child: ChildProcess
}

let starting: Promise<Running> | undefined
let users = 0
let idle: NodeJS.Timeout | undefined

export async function acquirePrism(): Promise<Prism> {
  users++
  clearTimeout(idle)
  starting ??= start()
  try {
    return await starting
  } catch (error) {
    users--
    starting = undefined
    throw error
  }
}

export function releasePrism(): void {
  users = Math.max(users - 1, 0)
  if (users > 0) return
  clearTimeout(idle)
  idle = setTimeout(() => void stopPrism(), IDLE_MS).unref()
}

/** Stops Prism now (and waits for it), whatever still uses it. */
export async function stopPrism(): Promise<void> {
  clearTimeout(idle)
  const current = starting
  starting = undefined
  if (!current) return
  const prism = await current.catch(() => undefined)
  if (prism) await kill(prism.child)
}

async function start(): Promise<Running> {
  const began = performance.now()
  // Port 0: the kernel gives Prism a free port as it binds, and Prism names it in its start line.
  // (A port found free beforehand could be taken by another test's server before Prism, which
  // reads its spec for seconds first, binds it.) Info level is the lowest that prints that line.
  const child = spawn(
    process.execPath,
    [
      '--import',
      EXIT_WITH_PARENT,
      prismCli(),
      'mock',
      SPEC,
      '-p',
      '0',
      '-h',
      '127.0.0.1',
      '-v',
      'info'
    ],
    { detached: true, stdio: ['pipe', 'pipe', 'pipe'] }
  )
  // Its own process group, killed whole at exit; the pipes are drained so Prism never blocks.
  const killAtExit = () => signalGroup(child, 'SIGKILL')
  process.once('exit', killAtExit)
  child.once('exit', () => process.off('exit', killAtExit))
  let output = ''
  let announced: (url: string) => void = () => undefined
  const listening = new Promise<string>(resolve => (announced = resolve))
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-4000)
    const url = LISTENING.exec(output)?.[1]
    if (url) announced(url)
  }
  child.stdout?.on('data', keep)
  child.stderr?.on('data', keep)
  child.unref()
  for (const stream of [child.stdin, child.stdout, child.stderr])
    (stream as { unref?: () => void } | null)?.unref?.()

  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code, signal) =>
      reject(new Error(`Prism exited (${code ?? signal}) before listening:\n${output}`))
    )
  )
  exited.catch(() => undefined)
  // Prism reads a large spec at start: ~2.5 s idle, but minutes' worth of seconds on a machine
  // loaded with other suites. Its exit ends the wait at once; only a hung start waits this long.
  const url = await Promise.race([listening, exited, timeout(100_000, () => output)]).catch(
    async (error: unknown) => {
      await kill(child)
      throw error
    }
  )
  // A Prism that dies under us is started afresh by the next mock rather than reused.
  const current = starting
  child.once('exit', () => {
    if (starting === current) starting = undefined
  })
  const agent = new Agent({ keepAlive: true })
  const exit = new Promise<void>(resolve => child.once('exit', () => resolve()))
  // A reset connection can come before Prism's exit is seen: wait a moment for it.
  const gone = async () => {
    await Promise.race([exit, new Promise(resolve => setTimeout(resolve, 2000).unref())])
    return child.exitCode === null && child.signalCode === null
      ? undefined
      : `Prism (${url}) exited (${child.exitCode ?? child.signalCode}); its last output:\n${output}`
  }
  return {
    child,
    url,
    startupMs: Math.round(performance.now() - began),
    forward: (method, path, headers, body) =>
      send(agent, url, method, path, headers, body).catch(async (error: unknown) => {
        const why = await gone()
        throw why ? new Error(why, { cause: error }) : error
      })
  }
}

function send(
  agent: Agent,
  base: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body: Buffer
): Promise<PrismResponse> {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, base), { method, headers, agent }, res => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) })
      )
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end(body.length > 0 ? body : undefined)
  })
}

function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return
  try {
    process.kill(-child.pid, signal)
  } catch {
    // the group is already gone
  }
}

async function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  const gone = new Promise<void>(resolve => child.once('exit', () => resolve()))
  signalGroup(child, 'SIGTERM')
  const timer = setTimeout(() => signalGroup(child, 'SIGKILL'), 3000)
  await gone
  clearTimeout(timer)
}

/**
 * Found at run time rather than through a literal path, so that when the demo bundles this file
 * (ncc) the CLI is still run from node_modules instead of being copied away from its own modules.
 */
function prismCli(): string {
  for (const start of [path.dirname(fileURLToPath(import.meta.url)), process.cwd()]) {
    for (let dir = start; ; dir = path.dirname(dir)) {
      const cli = path.join(dir, 'node_modules', '@stoplight', 'prism-cli', 'dist', 'index.js')
      if (existsSync(cli)) return cli
      if (path.dirname(dir) === dir) break
    }
  }
  throw new Error('@stoplight/prism-cli (a devDependency) is not installed: run npm ci')
}

function timeout(ms: number, output: () => string): Promise<never> {
  return new Promise((_, reject) => {
    setTimeout(
      () => reject(new Error(`Prism did not listen within ${ms} ms:\n${output()}`)),
      ms
    ).unref()
  })
}
