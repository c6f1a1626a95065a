/**
 * The one way src/ starts a child process: git, npm, sudo, chown, the container runtime, a worker,
 * its verify and setup commands. Every child gets the environment its caller chose (never the
 * action's own by default: that one holds the tokens and the model key), leads a process group of
 * its own, carries this action's stray marker, honours the run's AbortSignal and its timeout with
 * one kill (SIGTERM to the group, SIGKILL one grace period later), and ends in one result shape.
 * A small wrapper over spawn rather than execa: execa would add ~360 KB to the bundle and merges
 * process.env into the child's environment by default.
 */
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import type { Readable, Writable } from 'node:stream'
import { huntStrays, signalGroup, startTicks } from './process/hunt.js'
import { below, lowerGroups } from './process/priority.js'

export { huntStrays, signalGroup } from './process/hunt.js'

/** Between SIGTERM and SIGKILL of a child's group, whatever stopped it (timeout or cancel). */
export const KILL_GRACE_MS = 2000

/**
 * The variable that marks every process this action started, and their descendants: a daemon
 * that left the group (`setsid`, a double fork) still inherits it, so the stray hunt finds it in
 * /proc/<pid>/environ. Its value is `<action token>.<child number>`.
 */
export const STRAY_MARKER = 'FLEET_WORKER_RUN'

/** One per action process: its children's markers, apart from any other run's on the machine. */
export const ACTION_TOKEN = `${process.pid}-${randomBytes(4).toString('hex')}`
let children = 0
/** When this process started (clock ticks since boot): every child of it is younger. */
const ACTION_START = startTicks('self')

/** What the child ends with, however it ended. */
export interface ChildResult {
  /** Its own exit code; null when a signal ended it or it never started. */
  exitCode: number | null
  /** The signal that ended it, when one did. */
  signal: NodeJS.Signals | null
  /** Stopped at its timeout. */
  timedOut: boolean
  /** The run's stop reason, when the run's signal stopped it (or it was not started for it). */
  cancelled?: string
  durationMs: number
  /** The end of each stream (maxOutput characters). */
  stdout: string
  stderr: string
  /** Why it could not be started (ENOENT, EACCES), when it could not. */
  startError?: string
}

export interface ChildOptions {
  /** The child's whole environment: required, nothing is taken from process.env. */
  env: Record<string, string | undefined>
  cwd?: string
  stdin?: string | Uint8Array
  /**
   * Keep stdin open (`stdin` ignored) and hand it to the caller: a child that must not outlive
   * the action reads it to its end, which comes when the caller ends it or the action dies.
   */
  holdStdin?: boolean
  /** 0 or absent: no timeout. */
  timeoutMs?: number
  /** The run's stop: a child is not started after it, and a running one is stopped. */
  signal?: AbortSignal
  /** Hunt the group and the marked descendants once the child exited (default true). */
  hunt?: boolean
  /** Called once before the group is signalled, when a timeout or a cancel stops the child. */
  onStop?: (why: 'timeout' | 'cancel') => void
  /** How much of each stream to keep (characters, default 64 000). */
  maxOutput?: number
  /** A task's own command: run below the action's priority (process/priority.ts). */
  below?: boolean
}

/** What keeps the event loop alive, and can stop. */
interface Handle {
  ref(): unknown
  unref(): unknown
}

/** A running child: its pid, its output streams as they come, and its end. */
export interface Child {
  pid?: number
  marker: string
  /** Only with holdStdin: end it to let the child finish. */
  stdin?: Writable
  /**
   * Only with holdStdin: whether the child and its pipes keep the action's process alive (they do
   * at the start). A child kept open between requests holds it only while one is answered; the
   * action may then end while it idles, and its end closes the child's stdin.
   */
  hold?: (on: boolean) => void
  stdout?: Readable
  stderr?: Readable
  result: Promise<ChildResult>
}

/** The end of a stream, at most `limit` characters, without copying the whole on every chunk. */
function tailOf(stream: Readable | undefined, limit: number): () => string {
  const chunks: Buffer[] = []
  let size = 0
  stream?.on('data', (chunk: Buffer) => {
    chunks.push(chunk)
    size += chunk.length
    while (chunks.length > 1 && size - (chunks[0]?.length ?? 0) >= limit)
      size -= chunks.shift()?.length ?? 0
  })
  return () => Buffer.concat(chunks).toString('utf8').slice(-limit)
}

/** The stop of one child: SIGTERM to its group, SIGKILL one grace period later. */
function stopper(pid: number | undefined, opts: ChildOptions) {
  const state: { timedOut: boolean; cancelled?: string } = { timedOut: false }
  let kill: NodeJS.Timeout | undefined
  const stop = (why: 'timeout' | 'cancel') => {
    if (pid === undefined || state.timedOut || state.cancelled !== undefined) return
    if (why === 'timeout') state.timedOut = true
    else state.cancelled = String(opts.signal?.reason)
    opts.onStop?.(why)
    signalGroup(pid, 'SIGTERM')
    kill = setTimeout(() => signalGroup(pid, 'SIGKILL'), KILL_GRACE_MS).unref()
  }
  const onAbort = () => stop('cancel')
  opts.signal?.addEventListener('abort', onAbort, { once: true })
  const timer = opts.timeoutMs ? setTimeout(() => stop('timeout'), opts.timeoutMs) : undefined
  return {
    state,
    [Symbol.dispose]: () => {
      opts.signal?.removeEventListener('abort', onAbort)
      clearTimeout(timer)
      clearTimeout(kill)
    }
  }
}

const NOT_STARTED = { exitCode: null, signal: null, timedOut: false, stdout: '', stderr: '' }

/** The child's end: exit, the group and its strays hunted, then the pipes (bounded) closed. */
async function ending(
  child: ReturnType<typeof spawn>,
  marker: string,
  opts: ChildOptions,
  started: number
): Promise<ChildResult> {
  // Its start, for the hunt (only processes no older are its strays): read before it is reaped.
  const since = opts.hunt !== false ? startTicks(child.pid) : undefined
  const limit = opts.maxOutput ?? 64_000
  const out = tailOf(child.stdout ?? undefined, limit)
  const err = tailOf(child.stderr ?? undefined, limit)
  using stop = stopper(child.pid, opts)
  const closed = new Promise<void>(resolve => child.once('close', () => resolve()))
  // 'exit', not 'close': a daemon the command left (`setsid x &`) may hold its stdout for good.
  const exit = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>(
    (resolve, reject) => {
      child.once('error', reject)
      child.once('exit', (code, signal) => resolve({ code, signal }))
    }
  ).catch((error: Error) => ({ code: null, signal: null, error }))
  // It ended: a cancel or a timeout from now on is not what ended it.
  stop[Symbol.dispose]()
  if ('error' in exit)
    return { ...NOT_STARTED, durationMs: Date.now() - started, startError: exit.error.message }
  // What it left running dies with it; then its pipes close (or are abandoned after a grace).
  if (opts.hunt !== false) await huntStrays({ group: child.pid, marker, since })
  else if (child.pid !== undefined) signalGroup(child.pid, 'SIGKILL')
  await Promise.race([closed, new Promise(r => setTimeout(r, KILL_GRACE_MS).unref())])
  return {
    exitCode: exit.code,
    signal: exit.signal,
    timedOut: stop.state.timedOut,
    ...(stop.state.cancelled !== undefined ? { cancelled: stop.state.cancelled } : {}),
    durationMs: Date.now() - started,
    stdout: out(),
    stderr: err()
  }
}

/**
 * Starts `file args` as the leader of its own process group, marked as this action's. Never
 * throws: a child that cannot start ends with `startError`; one the run's stop came before is
 * not started and ends `cancelled`.
 */
export function startChild(file: string, args: readonly string[], opts: ChildOptions): Child {
  const marker = `${ACTION_TOKEN}.${++children}`
  const started = Date.now()
  if (opts.signal?.aborted) {
    const cancelled = String(opts.signal.reason)
    return { marker, result: Promise.resolve({ ...NOT_STARTED, cancelled, durationMs: 0 }) }
  }
  const argv = opts.below ? below([file, ...args]) : [file, ...args]
  const child = spawn(argv[0] ?? file, argv.slice(1), {
    cwd: opts.cwd,
    env: { ...opts.env, [STRAY_MARKER]: marker },
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe']
  })
  child.stdin.on('error', () => undefined) // a child that dies early closes its stdin: not our error
  if (!opts.holdStdin) child.stdin.end(opts.stdin ?? '')
  const result = ending(child, marker, opts, started)
  if (opts.below) lowerGroups(child.pid, result)
  return {
    pid: child.pid,
    marker,
    ...(opts.holdStdin
      ? {
          stdin: child.stdin,
          hold: (on: boolean) => {
            // With stdio 'pipe' each stream is a net.Socket, which can stop holding the loop too.
            const handles = [child, child.stdin, child.stdout, child.stderr] as Handle[]
            for (const handle of handles)
              if (on) handle.ref()
              else handle.unref()
          }
        }
      : {}),
    stdout: child.stdout,
    stderr: child.stderr,
    result
  }
}

/** Runs a child to its end: startChild, awaited. */
export function runChild(
  file: string,
  args: readonly string[],
  opts: ChildOptions
): Promise<ChildResult> {
  return startChild(file, args, opts).result
}

/** A short command's end, as its callers read it. */
export interface Ran extends ChildResult {
  /** Its exit code; 127 when it could not start, 128+N when signal N ended it (as a shell says). */
  exitCode: number
}

export interface RunOptions {
  cwd?: string
  /** The child's whole environment: required, nothing is taken from process.env. */
  env: Record<string, string | undefined>
  timeoutMs?: number
  /** How much of stdout and stderr to keep (characters, default 64 MiB). */
  maxBuffer?: number
  signal?: AbortSignal
  /** Its standard input (default: none). */
  stdin?: string | Uint8Array
}

const SIGNAL_NUMBERS: Partial<Record<NodeJS.Signals, number>> = {
  SIGHUP: 1,
  SIGINT: 2,
  SIGQUIT: 3,
  SIGABRT: 6,
  SIGKILL: 9,
  SIGSEGV: 11,
  SIGPIPE: 13,
  SIGTERM: 15
}

/** What a shell would call this end as an exit code. */
export function exitCodeOf(r: ChildResult): number {
  if (r.exitCode !== null) return r.exitCode
  if (r.startError !== undefined) return 127
  return 128 + (r.signal ? (SIGNAL_NUMBERS[r.signal] ?? 0) : 0)
}

/** How it ended, in words: `exit 3`, `killed by SIGTERM`, `could not start: ...`. */
export function endOf(r: ChildResult): string {
  if (r.cancelled !== undefined) return `stopped: ${r.cancelled}`
  if (r.timedOut) return 'stopped at its timeout'
  if (r.startError !== undefined) return `could not start: ${r.startError}`
  return r.signal ? `killed by ${r.signal}` : `exit ${r.exitCode}`
}

/** Runs `file args` to its end. Never throws: a failure is a non-zero exitCode and its stderr. */
export async function run(file: string, args: readonly string[], opts: RunOptions): Promise<Ran> {
  const r = await runChild(file, args, {
    env: opts.env,
    cwd: opts.cwd,
    timeoutMs: opts.timeoutMs,
    signal: opts.signal,
    stdin: opts.stdin,
    maxOutput: opts.maxBuffer ?? 64 * 1024 * 1024,
    // A short command's group is killed when it exits; the /proc hunt is for the long-lived.
    hunt: false
  })
  const exitCode = exitCodeOf(r)
  if (r.exitCode !== null) return { ...r, exitCode }
  const how = `${[file, ...args].join(' ').slice(0, 200)}: ${endOf(r)}`
  return { ...r, exitCode, stderr: `${r.stderr}${r.stderr ? '\n' : ''}${how}` }
}

export class CommandError extends Error {
  override name = 'CommandError'
  constructor(
    readonly command: string,
    readonly result: Ran
  ) {
    const tail = result.stderr.trim().split('\n').slice(-3).join(' ')
    super(`${command} failed (${endOf(result)})${tail ? `: ${tail}` : ''}`)
  }
}

/** Like run, but a non-zero exit throws a CommandError naming the command and its stderr's end. */
export async function runOk(file: string, args: readonly string[], opts: RunOptions): Promise<Ran> {
  const result = await run(file, args, opts)
  if (result.exitCode !== 0) throw new CommandError([file, ...args].join(' ').slice(0, 200), result)
  return result
}

/**
 * Every process this action started that is still alive (its children's strays included), killed:
 * called once as the action ends, whatever the outcome, so nothing it started outlives it.
 */
export function huntAllChildren(): Promise<number> {
  return huntStrays({ prefix: `${ACTION_TOKEN}.`, variable: STRAY_MARKER, since: ACTION_START })
}
