/** One worker attempt as every isolation launches it (isolation.ts chooses which). */
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
