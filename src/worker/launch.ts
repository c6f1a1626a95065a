/** One worker attempt, and a shell command in a task's cage, as every isolation runs them (isolation.ts chooses which). */
import type { VerifyResult } from '../domain.js'
import type { WorkerPaths } from './env.js'
import type { TaskGit } from './exit.js'
import type { Progress } from './spawn.js'

export interface WorkerLaunch {
  taskId: string
  attempt: number
  /** Host claude, for process mode; the image brings its own. */
  claude: string
  /** claude's argv for a given --settings path (host or container path). */
  args: (settingsPath: string) => string[]
  /** Host path of the settings file, inside paths.configDir. */
  settings: string
  paths: WorkerPaths
  env: Record<string, string>
  /** The task's worktree. */
  cwd: string
  stdin: string
  timeoutMs: number
  transcriptPath: string
  onProgress?: (progress: Progress) => void
  host: NodeJS.ProcessEnv
  log: (message: string) => void
  /** The model endpoint the worker's ANTHROPIC_BASE_URL names: the one host:port it may reach. */
  modelUrl: string
  /** The run's stop: see SpawnOptions.signal. */
  signal?: AbortSignal
  /** The task whose work leaves the cage as a sealed bundle after the attempt (exit.ts). */
  sealing?: TaskGit
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
  /**
   * The worktree's admin dir as the action read it when it made the worktree: a command with
   * neither `sealing` nor `task` (keep-fresh's setup and verify) gets its clone made from it,
   * never from a git found through the worktree's `.git`.
   */
  gitDir?: string
  /**
   * A directory of the action's the command leaves files in (setup's listing with a view), named
   * to it by the environment variable `variable`: a container mounts it and names its own path.
   */
  outDir?: { path: string; variable: string }
  /**
   * Run once the command passed, where the isolation can (Isolation.checksAfter): `again` runs a
   * short command in a second cage with the same files, the same clone (its index taken again
   * from the task's) and no network. Setup's leftover check with a view (fleet/setup.ts).
   */
  after?: (again: ShortCage) => Promise<void>
}

/** A short command (argv) in a second cage of the same run (CageCommand.after). */
export type ShortCage = (command: string[], env: Record<string, string>) => Promise<VerifyResult>
