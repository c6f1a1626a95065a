import { startChild } from '../process.js'
import type { VerifyResult } from '../domain.js'

const TAIL_LINES = 40

export function tailOf(text: string, lines = TAIL_LINES): string {
  return text.trimEnd().split('\n').slice(-lines).join('\n').slice(-4000)
}

/** How a cage command is started, and what stops it besides the group kill. */
export interface Launch {
  file: string
  args: string[]
  /** Called once when its timeout or the run's stop ends it (a container's kill). */
  onStop?: (why: 'timeout' | 'cancel') => void
  /** Hunt its strays by the marker (default true; not for a container runtime's CLI). */
  hunt?: boolean
  /** Run it below the action's priority (process/priority.ts): a task's own command. */
  below?: boolean
}

/**
 * Runs a shell command (verify, setup) in a worktree with the environment it is given, through
 * src/process.ts: its timeout and the run's stop (`signal`) end its whole group (SIGTERM, SIGKILL
 * after the grace), and what it left running is hunted down once it exits.
 */
export async function runVerify(
  command: string,
  cwd: string,
  env: Record<string, string>,
  timeoutMs: number,
  /** How to start it: `sh -c` here, or bwrap, or a container runtime. */
  launch: Launch = { file: 'sh', args: ['-c', command] },
  signal?: AbortSignal
): Promise<VerifyResult> {
  const child = startChild(launch.file, launch.args, {
    env,
    cwd,
    timeoutMs,
    signal,
    onStop: launch.onStop,
    hunt: launch.hunt,
    below: launch.below,
    maxOutput: 16_000
  })
  // One tail of both streams, in the order the command wrote them.
  let output = ''
  const collect = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-64_000)
  }
  child.stdout?.on('data', collect)
  child.stderr?.on('data', collect)
  const end = await child.result
  if (end.startError) output += `\n${end.startError}`
  return {
    command,
    exitCode: end.exitCode,
    timedOut: end.timedOut,
    tail: tailOf(output),
    ...(end.signal ? { signal: end.signal } : {}),
    ...(end.cancelled !== undefined ? { cancelled: end.cancelled } : {})
  }
}
