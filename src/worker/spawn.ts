/**
 * A worker attempt as a child process: started through src/process.ts (its own process group, the
 * run's stop, one kill, the stray hunt), its stream-json read as it arrives (stream.ts).
 */
import { createWriteStream } from 'node:fs'
import { startChild } from '../process.js'
import type { WorkerExit } from './result.js'
import { type Progress, readStream } from './stream.js'

export type { Progress } from './stream.js'

export interface SpawnOptions {
  file: string
  args: string[]
  env: Record<string, string>
  cwd: string
  stdin: string
  timeoutMs: number
  transcriptPath: string
  onProgress?: (progress: Progress) => void
  /**
   * The run's stop (aborted on a cancel, with its reason): no worker starts after it, and a
   * running one is stopped, its outcome saying why.
   */
  signal?: AbortSignal
  /** Called once when the timeout or the run's stop ends the worker (a container's kill). */
  onStop?: (why: 'timeout' | 'cancel') => void
  /** Hunt its strays by the marker (default true; not for a container runtime's CLI). */
  hunt?: boolean
  /** Run it below the action's priority (process/priority.ts). */
  below?: boolean
}

/** What the runner sends a step it cancels: SIGINT first, SIGTERM 7.5 s later. */
export const CANCEL_SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM']

/**
 * Runs one worker in its own process group, reading its stream-json output as it arrives (kept
 * as a transcript). Its timeout and the run's stop end the whole group the one way every child
 * ends (SIGTERM, SIGKILL after the grace), and what it left running is hunted down.
 */
export async function spawnWorker(opts: SpawnOptions): Promise<WorkerExit> {
  const child = startChild(opts.file, opts.args, {
    env: opts.env,
    cwd: opts.cwd,
    stdin: opts.stdin,
    timeoutMs: opts.timeoutMs,
    signal: opts.signal,
    onStop: opts.onStop,
    hunt: opts.hunt,
    below: opts.below,
    maxOutput: 4000
  })
  const transcript = createWriteStream(opts.transcriptPath)
  const stream = child.stdout && readStream(child.stdout, transcript, opts.onProgress)
  const end = await child.result
  await new Promise<void>(resolve => transcript.end(resolve))
  return {
    exitCode: end.exitCode,
    signal: end.signal,
    timedOut: end.timedOut,
    result: stream?.result(),
    stderrTail: end.startError ? `${end.stderr}\n${end.startError}` : end.stderr,
    ...(end.cancelled !== undefined ? { stopped: end.cancelled } : {})
  }
}
