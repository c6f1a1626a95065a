import { spawn } from 'node:child_process'
import type { VerifyResult } from './outcome.js'

const TAIL_LINES = 40

export function tailOf(text: string, lines = TAIL_LINES): string {
  return text.trimEnd().split('\n').slice(-lines).join('\n').slice(-4000)
}

/**
 * Runs the verify command in a worktree with the worker's secret-free environment minus the model
 * key, killing its process group at the timeout.
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
  const child = spawn(launch.file, launch.args, {
    cwd,
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe']
  })
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
    if (child.pid) process.kill(-child.pid, 'SIGKILL')
  }, timeoutMs)
  const exitCode = await new Promise<number | null>(resolve => {
    child.once('error', error => {
      output += `\n${error.message}`
      resolve(null)
    })
    child.once('close', code => resolve(code))
  })
  clearTimeout(timer)
  return { command, exitCode, timedOut, tail: tailOf(output) }
}
