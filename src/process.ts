/**
 * The one way src/ runs a command to its end (git, npm, the container runtime, sudo, chown).
 * A small wrapper over execFile rather than execa: execa would add ~360 KB to the bundle, and it
 * merges process.env into the child's environment by default, while every caller here passes an
 * environment it chose (the action's own holds the tokens and the model key). The long-lived
 * children (a worker, its verify command) are spawned in worker/spawn.ts: they need a process
 * group and streamed output.
 */
import { execFile } from 'node:child_process'

export interface Ran {
  /** The exit code; 127 when the file could not be started, 1 when a signal ended it. */
  exitCode: number
  stdout: string
  stderr: string
}

export interface RunOptions {
  cwd?: string
  /** The child's whole environment; process.env when absent. */
  env?: NodeJS.ProcessEnv
  timeoutMs?: number
  maxBuffer?: number
}

/** Runs `file args` to its end. Never throws: a failure is a non-zero exitCode and its stderr. */
export function run(file: string, args: readonly string[], opts: RunOptions = {}): Promise<Ran> {
  return new Promise(resolve => {
    execFile(
      file,
      args,
      {
        cwd: opts.cwd,
        env: opts.env,
        timeout: opts.timeoutMs ?? 0,
        maxBuffer: opts.maxBuffer ?? 64 * 1024 * 1024,
        encoding: 'utf8'
      },
      (error, stdout, stderr) => {
        if (!error) return resolve({ exitCode: 0, stdout, stderr })
        // A number is the command's own exit; otherwise it never ran (ENOENT) or was killed.
        if (typeof error.code === 'number') return resolve({ exitCode: error.code, stdout, stderr })
        const exitCode = typeof error.code === 'string' ? 127 : 1
        resolve({ exitCode, stdout, stderr: `${stderr}${stderr ? '\n' : ''}${error.message}` })
      }
    )
  })
}

export class CommandError extends Error {
  override name = 'CommandError'
  constructor(
    readonly command: string,
    readonly result: Ran
  ) {
    const tail = result.stderr.trim().split('\n').slice(-3).join(' ')
    super(`${command} failed (exit ${result.exitCode})${tail ? `: ${tail}` : ''}`)
  }
}

/** Like run, but a non-zero exit throws a CommandError naming the command and its stderr's end. */
export async function runOk(
  file: string,
  args: readonly string[],
  opts: RunOptions = {}
): Promise<Ran> {
  const result = await run(file, args, opts)
  if (result.exitCode !== 0) throw new CommandError([file, ...args].join(' ').slice(0, 200), result)
  return result
}
