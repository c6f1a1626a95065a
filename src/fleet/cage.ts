import type { Config } from '../config.js'
import { verifyInContainer } from '../worker/isolation.js'
import type { VerifyResult } from './outcome.js'
import { runVerify } from './verify.js'

export interface CagedCommand {
  taskId: string
  /** The task's worktree: the command's working directory, and all a container sees. */
  dir: string
  /** Secret-free: never the model key, the GitHub token or runner tokens. */
  env: Record<string, string>
  command: string
  timeoutMs: number
  host: NodeJS.ProcessEnv
  log: (m: string) => void
}

/**
 * Runs a shell command of the repository's (setup, verify) in a task's worktree, in the cage verify
 * gets: setup and verify run code the worker may have written or will read, so they share one
 * place, and whatever isolation verify gets, setup gets too.
 */
export function runInCage(config: Config, c: CagedCommand): Promise<VerifyResult> {
  if (config.isolation !== 'container') return runVerify(c.command, c.dir, c.env, c.timeoutMs)
  return verifyInContainer(config, {
    taskId: c.taskId,
    worktree: c.dir,
    configDir: c.env.CLAUDE_CONFIG_DIR ?? c.dir,
    env: c.env,
    command: c.command,
    timeoutMs: c.timeoutMs,
    host: c.host,
    log: c.log
  })
}
