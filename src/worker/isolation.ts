/**
 * Where a worker runs: its own sandbox (isolation: sandbox, docs/sandbox.md), its own container
 * (isolation: container, docs/container.md) or a plain child process (isolation: process). All
 * end in spawnWorker(); sandbox and container add the worker's own git clone and bring its commits
 * back. isolationFor() chooses one of the three per run (the Isolation interface): launch() runs a
 * worker attempt, run() a shell command (verify, setup) behind the same walls as the worker. The
 * container's side is in container-run.ts, the sandbox's in sandbox-run.ts.
 */
import path from 'node:path'
import type { WorkerLaunch } from './launch.js'
import type { WorkerOptions } from './options.js'
import { launchContainer, verifyInContainer } from './container-run.js'
import type { VerifyResult } from '../domain.js'
import { runVerify } from './verify.js'
import { sealAsChild, type TaskGit } from './exit.js'
import type { WorkerExit } from './result.js'
import { runSandboxed, type SandboxSetup, spawnSandboxed } from './sandbox-run.js'
import { spawnWorker } from './spawn.js'

function needSandbox(setup: SandboxSetup | undefined): SandboxSetup {
  // The preflight makes it; without one there is no sandbox, and no silent fallback either.
  if (!setup) throw new Error('isolation: sandbox was not prepared (the preflight did not run)')
  return setup
}

/** One worker attempt in its sandbox: the cage built, the worker run, its commits brought back. */
function launchSandboxed(w: WorkerLaunch, setup: SandboxSetup): Promise<WorkerExit> {
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

/** One worker attempt as a plain child process (isolation: process): no walls, the same exit. */
async function launchProcess(w: WorkerLaunch): Promise<WorkerExit> {
  const exit = await spawnWorker({
    file: w.claude,
    args: w.args(w.settings),
    env: w.env,
    cwd: w.cwd,
    stdin: w.stdin,
    timeoutMs: w.timeoutMs,
    transcriptPath: w.transcriptPath,
    onProgress: w.onProgress,
    signal: w.signal
  })
  if (w.sealing) await sealAsChild(w.sealing, w.cwd)
  return exit
}

/** A shell command to run in a task's cage: verify today, setup too. */
export interface CageCommand {
  taskId: string
  /** What it is, for the log: 'verify', 'setup'. */
  label: string
  command: string
  /** The task's worktree: its working directory, and the only task files it may write. */
  cwd: string
  /**
   * Its environment: the worker's allowlist without the model key (HOME, TMPDIR and
   * CLAUDE_CONFIG_DIR point into a cage dir of the task's, which it may write).
   */
  env: Record<string, string>
  timeoutMs: number
  host: NodeJS.ProcessEnv
  log: (message: string) => void
  /** Package caches every task's setup shares (sandbox: bound read-write for setup alone). */
  shared?: string[]
  /** The run's stop: the command is stopped as a worker is, and its result says why. */
  signal?: AbortSignal
  /** The task whose leftovers are sealed after the command (exit.ts): verify's; not setup's. */
  sealing?: TaskGit
  /** The task whose git (and view) a command that does not seal works in: setup's. */
  task?: TaskGit
}

/** A shell command in the task's sandbox: its HOME, TMPDIR and config dir in the task's cage dir. */
function runSandboxedCommand(
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
      task: c.task
    },
    c.command,
    c.timeoutMs,
    c.signal
  )
}

/**
 * Where a worker and its task's shell commands run, chosen once per run (isolationFor). Each kind
 * prepares its cage, runs the worker in it and collects what it left (the worker's commits, in
 * sandbox and container), and runs verify and setup behind the same walls.
 */
export interface Isolation {
  /** One worker attempt, start to end. */
  launch(w: WorkerLaunch): Promise<WorkerExit>
  /**
   * A shell command (sh -c: verify, setup) in the task's cage: the same sandbox or container as
   * its worker, or a plain child process in isolation: process. Never the model key, never a
   * GitHub credential.
   */
  run(c: CageCommand): Promise<VerifyResult>
  /**
   * Whether a task's files may be a copy-on-write view of the run's shared checkout (views.ts)
   * instead of a worktree of its own: the sandbox, where views mount. Not the container (yet) and
   * not process isolation, which has no cage to mount one in.
   */
  readonly views: boolean
}

type Kind = Pick<Isolation, 'launch' | 'views'> & {
  run(c: CageCommand, env: Record<string, string>): Promise<VerifyResult>
}

function kindOf(
  config: Pick<WorkerOptions, 'isolation' | 'container'>,
  sandbox?: SandboxSetup
): Kind {
  switch (config.isolation) {
    case 'sandbox':
      return {
        views: !!sandbox?.host.unshare,
        launch: async w => launchSandboxed(w, needSandbox(sandbox)),
        run: async (c, env) => runSandboxedCommand(c, env, needSandbox(sandbox))
      }
    case 'container':
      return {
        views: false,
        launch: w => launchContainer(config.container, w),
        run: (c, env) => {
          const configDir = env.CLAUDE_CONFIG_DIR ?? c.cwd
          return verifyInContainer(config.container, { ...c, worktree: c.cwd, configDir, env })
        }
      }
    case 'process':
      return {
        views: false,
        launch: launchProcess,
        run: async (c, env) => {
          const result = await runVerify(c.command, c.cwd, env, c.timeoutMs, undefined, c.signal)
          if (c.sealing) await sealAsChild(c.sealing, c.cwd)
          return result
        }
      }
  }
}

/**
 * The one place the `isolation` input is read: the run's sandbox (with the preflight's setup),
 * container, or plain process.
 */
export function isolationFor(
  config: Pick<WorkerOptions, 'isolation' | 'container'>,
  sandbox?: SandboxSetup
): Isolation {
  const kind = kindOf(config, sandbox)
  return {
    views: kind.views,
    launch: w => kind.launch(w),
    run: c => {
      const env = { ...c.env }
      delete env.ANTHROPIC_API_KEY
      delete env.ANTHROPIC_AUTH_TOKEN
      return kind.run(c, env)
    }
  }
}
