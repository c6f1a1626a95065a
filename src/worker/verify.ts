import { killGroup, markerOf, reapGroup, spawnGroup } from './spawn.js'
import type { VerifyResult } from '../domain.js'

const TAIL_LINES = 40

export function tailOf(text: string, lines = TAIL_LINES): string {
  return text.trimEnd().split('\n').slice(-lines).join('\n').slice(-4000)
}

/**
 * Runs the verify command in a worktree with the worker's secret-free environment minus the model
 * key, killing its process group at the timeout, and what it left behind once it exits (the
 * worker's guarded kill: see reapGroup).
 */
export async function runVerify(
  command: string,
  cwd: string,
  env: Record<string, string>,
  timeoutMs: number,
  /** How to start it: `sh -c` here, or a container (isolation: container). */
  launch: { file: string; args: string[]; onTimeout?: () => void } = {
    file: 'sh',
    args: ['-c', command]
  }
): Promise<VerifyResult> {
  const child = spawnGroup(launch.file, launch.args, { cwd, env })
  let output = ''
  const collect = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-64_000)
  }
  child.stdout.on('data', collect)
  child.stderr.on('data', collect)
  let timedOut = false
  const timer = setTimeout(() => {
    timedOut = true
    launch.onTimeout?.()
    if (child.pid) killGroup(child.pid, 'SIGKILL')
  }, timeoutMs)
  const closed = new Promise<void>(resolve => child.once('close', () => resolve()))
  // 'exit', not 'close': a daemon the command left (`setsid x &`) may hold its stdout for good.
  const exitCode = await new Promise<number | null>(resolve => {
    child.once('error', error => {
      output += `\n${error.message}`
      resolve(null)
    })
    child.once('exit', code => resolve(code))
  })
  clearTimeout(timer)
  await reapGroup(child.pid, markerOf(env), closed, 2000)
  return { command, exitCode, timedOut, tail: tailOf(output) }
}
