/**
 * isolation: sandbox — a worker attempt and a cage command (verify, setup) in the sandbox the
 * preflight prepared: the calls isolation.ts makes, in the sandbox's words.
 */
import path from 'node:path'
import type { VerifyResult } from '../domain.js'
import type { CageCommand, WorkerLaunch } from '../worker/launch.js'
import type { WorkerExit } from '../worker/result.js'
import { runSandboxed, type SandboxSetup, spawnSandboxed } from './sandbox-run.js'

/** One worker attempt in its sandbox: the cage built, the worker run, its commits brought back. */
export function launchSandboxed(w: WorkerLaunch, setup: SandboxSetup): Promise<WorkerExit> {
  return spawnSandboxed(
    {
      setup,
      taskId: w.taskId,
      worktree: w.cwd,
      cageDir: path.dirname(w.paths.configDir),
      modelUrl: w.modelUrl,
      command: [w.claude, ...w.args(w.settings)],
      binary: w.claude,
      env: w.env,
      log: w.log,
      sealing: w.sealing
    },
    {
      stdin: w.stdin,
      timeoutMs: w.timeoutMs,
      transcriptPath: w.transcriptPath,
      onProgress: w.onProgress,
      signal: w.signal
    }
  )
}

/** A shell command in the task's sandbox: its HOME, TMPDIR and config dir in the task's cage dir. */
export function runSandboxedCommand(
  c: CageCommand,
  env: Record<string, string>,
  setup: SandboxSetup
): Promise<VerifyResult> {
  const configDir = env.CLAUDE_CONFIG_DIR
  const cageDir = configDir ? path.dirname(configDir) : ''
  const inside = (p?: string) => !!p && !!cageDir && p.startsWith(`${cageDir}/`)
  if (!inside(configDir) || !inside(env.HOME) || !inside(env.TMPDIR))
    throw new Error(`${c.label} needs HOME, TMPDIR and CLAUDE_CONFIG_DIR in one cage dir`)
  c.log(`[${c.taskId}] ${c.label} in the sandbox`)
  return runSandboxed(
    {
      setup,
      taskId: c.taskId,
      worktree: c.cwd,
      cageDir,
      env,
      log: c.log,
      shared: c.shared,
      sealing: c.sealing,
      task: c.task,
      gitDir: c.gitDir
    },
    c.command,
    c.timeoutMs,
    c.signal,
    c.after
  )
}
