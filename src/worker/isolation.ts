/**
 * Where a worker runs: a child process (isolation: process) or its own container (isolation:
 * container, docs/container.md). Both end in spawnWorker(); container mode adds the git clone the
 * container may write, ownership, the kill on timeout, and bringing the worker's commits back.
 */
import { execFile } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { copyFile, mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import path from 'node:path'
import type { Config } from '../config.js'
import { Git } from '../git/git.js'
import {
  type ContainerRuntime,
  type ContainerSpec,
  containerCommand,
  containerKillCommand,
  containerPath,
  DEFAULT_USER
} from './container.js'
import type { WorkerPaths } from './env.js'
import type { VerifyResult } from '../fleet/outcome.js'
import { runVerify } from '../fleet/verify.js'
import type { WorkerExit } from './result.js'
import { type Progress, spawnWorker, stopSignal } from './spawn.js'

export interface ContainerConfig {
  runtime: ContainerRuntime
  image: string
  cpus: string
  memory: string
  pidsLimit: number
  network: string
}

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
}

/** After the container kill, how long the runtime CLI gets to exit before its group is killed. */
const KILL_GRACE_MS = 10_000

/** Runtime CLI configuration taken from the host; never forwarded into the container. */
const RUNTIME_VARS = [
  'DOCKER_HOST',
  'DOCKER_CONTEXT',
  'DOCKER_CONFIG',
  'DOCKER_CERT_PATH',
  'DOCKER_TLS_VERIFY',
  'CONTAINER_HOST',
  'CONTAINERS_CONF',
  'CONTAINERS_REGISTRIES_CONF',
  'CONTAINERS_STORAGE_CONF',
  'REGISTRY_AUTH_FILE',
  'XDG_RUNTIME_DIR',
  'XDG_CONFIG_HOME',
  'XDG_DATA_HOME',
  'HOME',
  'TMPDIR'
] as const

// One per action process: container names of concurrent runs on one machine never collide.
const RUN_TOKEN = randomBytes(4).toString('hex')

/** Containers of this process still running, for stopAllContainers on cancellation. */
const live = new Map<string, ContainerRuntime>()

export function containerName(token: string, taskId: string, attempt: number): string {
  return `fleet-${token}-${taskId}-${attempt}`
}

/**
 * The container's uid:gid: the action's own when it is not root, so bind-mounted files stay the
 * runner's (1001 on GitHub-hosted runners); the image's user (1001) when the action is root.
 */
export function containerUser(uid: number | undefined, gid: number | undefined): string {
  return uid === undefined || uid === 0 || gid === undefined ? DEFAULT_USER : `${uid}:${gid}`
}

/**
 * The runtime CLI's environment: the worker's allowlist (what `--env NAME` reads) plus the host's
 * runtime settings. HOME and TMPDIR are the host's, not the worker's temp ones (rootless podman
 * and docker's credentials live under HOME). CLAUDE_CONFIG_DIR is dropped: spawnWorker hunts
 * stray processes by it, and the runtime's own helpers (conmon) must not look like strays.
 */
export function runtimeEnv(
  workerEnv: Record<string, string>,
  host: NodeJS.ProcessEnv
): Record<string, string> {
  const env = { ...workerEnv }
  delete env.CLAUDE_CONFIG_DIR
  delete env.HOME
  delete env.TMPDIR
  for (const name of RUNTIME_VARS) {
    const value = host[name]
    if (value) env[name] = value
  }
  return env
}

function run(file: string, args: string[], env: Record<string, string>): Promise<number> {
  return new Promise(resolve => {
    execFile(file, args, { env, timeout: 30_000 }, error =>
      resolve(error ? (typeof error.code === 'number' ? error.code : 1) : 0)
    )
  })
}

/** Stops every running worker container (a cancelled run); `--rm` removes them. */
export async function stopAllContainers(host: NodeJS.ProcessEnv = process.env): Promise<void> {
  const env = runtimeEnv({ PATH: host.PATH ?? '' }, host)
  await Promise.all(
    [...live].map(([name, runtime]) => {
      const kill = containerKillCommand(name, runtime)
      return run(kill.file, kill.args, env)
    })
  )
}

// A cancelled run (stopAllWorkers) kills the containers too: a signal to the runtime CLI alone
// may not reach them (docker's CLI is only a client).
stopSignal.addEventListener('abort', () => void stopAllContainers(), { once: true })

export async function launchWorker(config: Config, w: WorkerLaunch): Promise<WorkerExit> {
  if (config.isolation === 'container') return launchContainer(config.container, w)
  return spawnWorker({
    file: w.claude,
    args: w.args(w.settings),
    env: w.env,
    cwd: w.cwd,
    stdin: w.stdin,
    timeoutMs: w.timeoutMs,
    transcriptPath: w.transcriptPath,
    onProgress: w.onProgress
  })
}

interface ContainerGitState {
  cloneDir: string
  gitDir: string
  objectsDir: string
  /** The worktree's `.git` file as git wrote it: the worker can rewrite it, so it is put back. */
  gitFile: string
  head: string
}

/**
 * The worker's own git (docs/container.md, "Git inside the container"): a `clone --shared` of the
 * fleet's repository on the task's branch at the worktree's commit, plus origin's branches for
 * orientation. It writes no objects; the fleet's objects are mounted read-only for its alternates.
 */
async function prepareGit(worktree: string, cageDir: string): Promise<ContainerGitState> {
  const tree = Git.create(worktree)
  const common = await tree.out(['rev-parse', '--path-format=absolute', '--git-common-dir'])
  const head = await tree.out(['rev-parse', 'HEAD'])
  const branch = await tree.out(['symbolic-ref', 'HEAD'])
  const gitFile = await readFile(path.join(worktree, '.git'), 'utf8')
  const cloneDir = path.join(cageDir, 'git')
  await rm(cloneDir, { recursive: true, force: true })
  await Git.create(cageDir).exec([
    'clone',
    '--quiet',
    '--shared',
    '--no-checkout',
    common,
    cloneDir
  ])
  const clone = Git.create(cloneDir)
  await clone.exec(['remote', 'remove', 'origin'])
  await clone.exec([
    'fetch',
    '--quiet',
    '--no-tags',
    common,
    '+refs/remotes/origin/*:refs/remotes/origin/*'
  ])
  await clone.exec(['update-ref', branch, head])
  await clone.exec(['symbolic-ref', 'HEAD', branch])
  await clone.exec(['read-tree', 'HEAD'])
  // What the task's setup left (fleet/setup.ts) stays out of the worker's own commits here too.
  const excludes = await tree.exec(['config', '--get', 'core.excludesFile'], { allowFailure: true })
  if (excludes.exitCode === 0) {
    await mkdir(path.join(cloneDir, '.git', 'info'), { recursive: true })
    await copyFile(excludes.stdout.trim(), path.join(cloneDir, '.git', 'info', 'exclude'))
  }
  return {
    cloneDir,
    gitDir: path.join(cloneDir, '.git'),
    objectsDir: path.join(common, 'objects'),
    gitFile,
    head
  }
}

async function chownTree(owner: string, dirs: string[]): Promise<void> {
  // -h: a symlink the worker planted is re-owned itself, never what it points at.
  const code = await run('chown', ['-R', '-h', owner, '--', ...dirs], { PATH: '/usr/bin:/bin' })
  if (code !== 0) throw new Error(`chown ${owner} failed (${code}) for ${dirs.join(' ')}`)
}

/**
 * The worker's commits back onto the task's branch. Only upload-pack runs in the worker-written
 * clone (git keeps it safe in untrusted repositories); the objects are checked on the way in. The
 * reset is --mixed: the working tree, which the worker wrote in place, stays as it is.
 */
async function collectCommits(
  worktree: string,
  state: ContainerGitState,
  log: (m: string) => void
): Promise<void> {
  const tree = Git.create(worktree)
  const fetched = await tree.exec(
    ['-c', 'fetch.fsckObjects=true', 'fetch', '--quiet', '--no-tags', state.gitDir, 'HEAD'],
    { allowFailure: true }
  )
  if (fetched.exitCode !== 0) {
    log(`could not read the worker's commits from its container clone: ${fetched.stderr.trim()}`)
    return
  }
  const sha = await tree.out(['rev-parse', 'FETCH_HEAD'])
  if (sha !== state.head) await tree.exec(['reset', '--quiet', '--mixed', sha])
}

/** The spec of one attempt's container; pure apart from the names it is given. */
export function containerSpecFor(
  c: ContainerConfig,
  w: Pick<WorkerLaunch, 'cwd' | 'paths' | 'env' | 'settings' | 'args'>,
  opts: { name: string; user: string; git?: { gitDir: string; objectsDir: string } }
): ContainerSpec {
  const base = { worktree: w.cwd, configDir: w.paths.configDir }
  const settings = containerPath(base, w.settings)
  if (!settings) throw new Error(`settings file ${w.settings} is outside the container's mounts`)
  return {
    ...base,
    runtime: c.runtime,
    image: c.image,
    name: opts.name,
    env: w.env,
    git: opts.git,
    cpus: c.cpus,
    memory: c.memory,
    pidsLimit: c.pidsLimit,
    network: c.network,
    user: opts.user,
    claudeArgs: w.args(settings)
  }
}

async function launchContainer(c: ContainerConfig, w: WorkerLaunch): Promise<WorkerExit> {
  const cageDir = path.dirname(w.paths.configDir)
  const name = containerName(RUN_TOKEN, w.taskId, w.attempt)
  const uid = process.getuid?.()
  const self = `${uid ?? 0}:${process.getgid?.() ?? 0}`
  const user = containerUser(uid, process.getgid?.())
  const git = await prepareGit(w.cwd, cageDir)
  const mounted = [w.cwd, w.paths.configDir, git.cloneDir]
  const cmd = containerCommand(
    containerSpecFor(c, w, { name, user, git: { gitDir: git.gitDir, objectsDir: git.objectsDir } })
  )
  const env = runtimeEnv(cmd.env, w.host)
  w.log(`[${w.taskId}] container ${name} (${c.runtime}, ${c.image}, user ${user})`)
  // Root action, uid-1001 container: the mounts must be the container user's while it runs.
  if (uid === 0) await chownTree(user, mounted)
  let killed = false
  const kill = containerKillCommand(name, c.runtime)
  const timer = setTimeout(() => {
    killed = true
    void run(kill.file, kill.args, env).then(code =>
      w.log(
        `[${w.taskId}] timeout: ${kill.file} kill ${name} ${code === 0 ? 'done' : `exited ${code}`}`
      )
    )
  }, w.timeoutMs)
  live.set(name, c.runtime)
  try {
    const exit = await spawnWorker({
      file: cmd.file,
      args: cmd.args,
      env,
      cwd: w.cwd,
      stdin: w.stdin,
      // Backstop: the process group is killed only if the CLI outlives its container.
      timeoutMs: w.timeoutMs + KILL_GRACE_MS,
      transcriptPath: w.transcriptPath,
      onProgress: w.onProgress
    })
    const timedOut = exit.timedOut || killed
    // A CLI killed before the runtime reaped the container can leave it behind: remove it.
    if (timedOut) await run(c.runtime, ['rm', '--force', name], env)
    return { ...exit, timedOut }
  } finally {
    clearTimeout(timer)
    live.delete(name)
    await finishGit(w, git, uid === 0 ? self : undefined)
  }
}

async function finishGit(w: WorkerLaunch, git: ContainerGitState, owner?: string): Promise<void> {
  // The worktree's .git decides which repository the action's own git commands open next; a
  // worker could have pointed it at a gitdir it wrote (with hooks or fsmonitor config).
  await rm(path.join(w.cwd, '.git'), { recursive: true, force: true })
  await writeFile(path.join(w.cwd, '.git'), git.gitFile)
  if (owner) await chownTree(owner, [w.cwd, w.paths.configDir, git.cloneDir])
  await collectCommits(w.cwd, git, w.log)
  await rm(git.cloneDir, { recursive: true, force: true })
}

/**
 * The verify command in a container of the worker's image, with only the worktree and the
 * worker's config dir mounted and the worker's environment minus the model key: in container
 * isolation the worker wrote what verify runs (package.json scripts, Makefiles), so it must not
 * run on the runner. The worktree's git metadata is not mounted: verify sees files, not history.
 */
export async function verifyInContainer(
  config: Config,
  v: {
    taskId: string
    worktree: string
    configDir: string
    env: Record<string, string>
    command: string
    timeoutMs: number
    host: NodeJS.ProcessEnv
    log: (m: string) => void
  }
): Promise<VerifyResult> {
  const c = config.container
  const name = containerName(RUN_TOKEN, v.taskId, 0).replace(/-0$/, '-verify')
  const uid = process.getuid?.()
  const user = containerUser(uid, process.getgid?.())
  const env = { ...v.env }
  for (const hostOnly of ['CLAUDE_CONFIG_DIR', 'HOME', 'TMPDIR', 'IS_SANDBOX']) delete env[hostOnly]
  const cmd = containerCommand({
    runtime: c.runtime,
    image: c.image,
    name,
    worktree: v.worktree,
    configDir: v.configDir,
    env,
    cpus: c.cpus,
    memory: c.memory,
    pidsLimit: c.pidsLimit,
    network: c.network,
    user,
    claudeArgs: [],
    command: ['sh', '-c', v.command]
  })
  const runEnv = runtimeEnv(cmd.env, v.host)
  // --interactive is for the worker's prompt; verify reads no stdin.
  const args = cmd.args.filter(a => a !== '--interactive')
  v.log(`[${v.taskId}] verify in container ${name}`)
  if (uid === 0) await chownTree(user, [v.worktree, v.configDir])
  live.set(name, c.runtime)
  const kill = containerKillCommand(name, c.runtime)
  try {
    return await runVerify(v.command, v.worktree, runEnv, v.timeoutMs, {
      file: cmd.file,
      args,
      onTimeout: () => void run(kill.file, kill.args, runEnv)
    })
  } finally {
    live.delete(name)
    await run(c.runtime, ['rm', '--force', name], runEnv)
    if (uid === 0) await chownTree(`${uid}:${process.getgid?.() ?? 0}`, [v.worktree, v.configDir])
  }
}
