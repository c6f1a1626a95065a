import { spawn } from 'node:child_process'
import { createWriteStream } from 'node:fs'
import { readdir, readFile } from 'node:fs/promises'
import { createInterface } from 'node:readline'
import { ResultSchema, type WorkerExit, type WorkerResult } from './result.js'

export interface Progress {
  turn: number
  outputTokens: number
}

export interface SpawnOptions {
  file: string
  args: string[]
  env: Record<string, string>
  cwd: string
  stdin: string
  timeoutMs: number
  transcriptPath: string
  onProgress?: (progress: Progress) => void
  /** Grace between SIGTERM and SIGKILL of the worker's process group. */
  killGraceMs?: number
  /**
   * The run's stop (aborted on a cancel, with its reason): no worker starts after it, and a
   * running one is stopped, its outcome saying why.
   */
  signal?: AbortSignal
}

/**
 * Starts a long-lived child as the leader of its own process group, so killGroup reaches every
 * tool it starts: a worker, or its verify command. Short commands go through src/process.ts.
 */
export function spawnGroup(
  file: string,
  args: string[],
  opts: { cwd: string; env: Record<string, string>; stdin?: string }
) {
  const child = spawn(file, args, {
    cwd: opts.cwd,
    env: opts.env,
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe']
  })
  child.stdin.on('error', () => undefined) // a child that dies early closes its stdin: not our error
  child.stdin.end(opts.stdin ?? '')
  return child
}

/**
 * Signals a whole process group. ESRCH (the group is gone: its leader exited and a `setsid` child
 * left it) is what we wanted; anything else (EPERM) is logged to stderr with its cause, never thrown
 * from a timer where nothing could catch it.
 */
export function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH')
      console.error(`could not send ${signal} to process group ${pid}:`, error)
  }
}

/**
 * After a process group's leader exited: its group killed, its escaped descendants (those still
 * carrying `marker` in their environment) killed, then at most `graceMs` for its pipes to close.
 * A child that kept stdout open must not hold the task: it is dead or abandoned by then.
 */
export async function reapGroup(
  pid: number | undefined,
  marker: string | undefined,
  closed: Promise<void>,
  graceMs = 5000
): Promise<void> {
  if (pid !== undefined) killGroup(pid, 'SIGKILL')
  if (marker) await killStrays(marker)
  await Promise.race([closed, new Promise(r => setTimeout(r, graceMs).unref())])
}

/** What the runner sends a step it cancels: SIGINT first, SIGTERM 7.5 s later. */
export const CANCEL_SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM']

/**
 * A cancelled run stops its running workers: SIGTERM to the group, SIGKILL 2 s later unless it
 * exited first. `reason` says why, once it did.
 */
function stopOnAbort(pid: number | undefined, signal: AbortSignal | undefined) {
  let reason: string | undefined
  let timer: NodeJS.Timeout | undefined
  const onAbort = () => {
    if (pid === undefined) return
    reason = String(signal?.reason)
    killGroup(pid, 'SIGTERM')
    timer = setTimeout(() => killGroup(pid, 'SIGKILL'), 2000).unref()
  }
  signal?.addEventListener('abort', onAbort, { once: true })
  return {
    reason: () => reason,
    [Symbol.dispose]: () => {
      signal?.removeEventListener('abort', onAbort)
      clearTimeout(timer)
    }
  }
}

/**
 * Processes still carrying `marker` (NAME=value) in their environment. A tool that started a
 * daemon in a new session (`setsid cmd &`) has left the worker's process group, so the group
 * kill misses it, but it still inherits the worker's environment. Linux only (/proc); a process
 * that also wipes its environment (`env -i`) escapes this too: the container mode bounds that.
 */
async function strays(marker: string): Promise<number[]> {
  const needle = Buffer.from(`\0${marker}\0`)
  const names = await readdir('/proc').catch(() => [] as string[])
  const pids = names
    .filter(n => /^\d+$/.test(n))
    .map(Number)
    .filter(p => p !== process.pid)
  const found = await Promise.all(
    pids.map(async p => {
      const env = await readFile(`/proc/${p}/environ`).catch(() => undefined)
      return env && Buffer.concat([Buffer.from('\0'), env]).includes(needle) ? p : undefined
    })
  )
  return found.filter((p): p is number => p !== undefined)
}

/** Kills the worker's escaped descendants; again, in case one forked while being found. */
async function killStrays(marker: string): Promise<void> {
  for (let round = 0; round < 3; round++) {
    const pids = await strays(marker)
    if (pids.length === 0) return
    for (const p of pids) {
      try {
        process.kill(p, 'SIGKILL')
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ESRCH')
          console.error(`could not kill stray process ${p}:`, error)
      }
    }
  }
}

/** The environment entry that marks one worker attempt's processes (and its verify's). */
export function markerOf(env: Record<string, string | undefined>): string | undefined {
  const configDir = env.CLAUDE_CONFIG_DIR
  return configDir ? `CLAUDE_CONFIG_DIR=${configDir}` : undefined
}

function parseLine(line: string): Record<string, unknown> | undefined {
  if (!line.startsWith('{')) return undefined
  try {
    return JSON.parse(line) as Record<string, unknown>
  } catch {
    return undefined
  }
}

/**
 * stream-json prints one `assistant` event per content block (text, then tool_use), each with the
 * message's id and its usage so far: a turn is a new message id, and its output tokens are the
 * last value seen for that id.
 */
function messageOf(event: Record<string, unknown>): { id?: string; outputTokens: number } {
  const message = event.message as { id?: string; usage?: { output_tokens?: number } } | undefined
  return { id: message?.id, outputTokens: message?.usage?.output_tokens ?? 0 }
}

/** Reads the worker's stream-json as it arrives: into the transcript, as turn progress, its result. */
function readStream(
  stdout: NodeJS.ReadableStream,
  transcript: NodeJS.WritableStream,
  onProgress: SpawnOptions['onProgress']
): { result: () => WorkerResult | undefined } {
  let result: WorkerResult | undefined
  const progress: Progress = { turn: 0, outputTokens: 0 }
  const tokensById = new Map<string, number>()
  const lines = createInterface({ input: stdout })
  lines.on('line', line => {
    transcript.write(`${line}\n`)
    const event = parseLine(line)
    if (!event) return
    if (event.type === 'assistant') {
      const { id, outputTokens } = messageOf(event)
      const key = id ?? `anonymous-${tokensById.size}`
      const isNewTurn = !tokensById.has(key)
      tokensById.set(key, outputTokens)
      progress.turn = tokensById.size
      progress.outputTokens = [...tokensById.values()].reduce((a, b) => a + b, 0)
      if (isNewTurn) onProgress?.({ ...progress })
    } else if (event.type === 'result') {
      const parsed = ResultSchema.safeParse(event)
      if (parsed.success) result = parsed.data
    }
  })
  return { result: () => result }
}

/**
 * Runs one worker in its own process group, reading its stream-json output as it arrives (kept
 * as a transcript), and kills the whole group — SIGTERM, then SIGKILL — at the timeout, so the
 * tools it started die with it.
 */
export async function spawnWorker(opts: SpawnOptions): Promise<WorkerExit> {
  if (opts.signal?.aborted) {
    return {
      exitCode: null,
      signal: null,
      timedOut: false,
      stopped: String(opts.signal.reason),
      stderrTail: ''
    }
  }
  const child = spawnGroup(opts.file, opts.args, opts)
  const transcript = createWriteStream(opts.transcriptPath)
  let stderr = ''
  child.stderr.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000)
  })
  const stream = readStream(child.stdout, transcript, opts.onProgress)
  const pid = child.pid
  using stop = stopOnAbort(pid, opts.signal)
  let timedOut = false
  const timer = setTimeout(() => {
    timedOut = true
    if (pid === undefined) return
    killGroup(pid, 'SIGTERM')
    setTimeout(() => killGroup(pid, 'SIGKILL'), opts.killGraceMs ?? 3000).unref()
  }, opts.timeoutMs)

  const closed = new Promise<void>(resolve => child.once('close', () => resolve()))
  const exit = await new Promise<{
    code: number | null
    signal: string | null
    spawnError?: Error
  }>(resolve => {
    child.once('error', error => resolve({ code: null, signal: null, spawnError: error }))
    child.once('exit', (code, signal) => resolve({ code, signal }))
  })
  clearTimeout(timer)
  stop[Symbol.dispose]()
  // Tools the worker left running in the background die with it, and release its stdout. The
  // config dir is unique to this worker attempt, so its variable marks exactly its processes.
  await reapGroup(pid, markerOf(opts.env), exit.spawnError ? Promise.resolve() : closed)
  await new Promise<void>(resolve => transcript.end(resolve))
  if (exit.spawnError) stderr += `\n${exit.spawnError.message}`
  const stopped = stop.reason()
  return {
    exitCode: exit.code,
    signal: exit.signal,
    timedOut,
    result: stream.result(),
    stderrTail: stderr,
    ...(stopped ? { stopped } : {})
  }
}
