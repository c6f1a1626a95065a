/**
 * isolation: container (docs/container.md): one worker attempt, and a cage command (verify,
 * setup), each in its own container of the worker image; the runtime CLI's environment and the
 * kill on cancel. isolation.ts chooses this or the sandbox or a plain process.
 */
import { randomBytes } from 'node:crypto'
import { writeFile } from 'node:fs/promises'
import path from 'node:path'
import type { VerifyResult } from '../domain.js'
import { run } from '../process.js'
import { logText } from '../report/log-text.js'
import { type CageGit, chownTree, finishGit, prepareGit } from './cage-git.js'
import { acceptSeal, openSeal, SEAL_TIMEOUT_MS, type TaskGit } from '../worker/exit.js'
import {
  CONTAINER_GIT_DIR,
  CONTAINER_SEAL_DIR,
  type ContainerConfig,
  type ContainerGit,
  type ContainerRuntime,
  type ContainerSpec,
  type ContainerView,
  CONTAINER_OUT_DIR,
  containerCommand,
  containerKillCommand,
  containerPath,
  DEFAULT_USER
} from './container.js'
import type { WorkerLaunch } from '../worker/launch.js'
import type { WorkerExit } from '../worker/result.js'
import { spawnWorker } from '../worker/spawn.js'
import { runVerify } from '../worker/verify.js'

/**
 * Runtime CLI configuration taken from the host; never forwarded into the container. PATH too:
 * the runtime CLI is the runner's program, found where the runner finds it (a seal's own
 * environment has a fixed PATH), and PATH is never passed inside (container.ts HOST_ONLY).
 */
export const RUNTIME_VARS = [
  'PATH',
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
export const RUN_TOKEN = randomBytes(4).toString('hex')

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
 * and docker's credentials live under HOME). CLAUDE_CONFIG_DIR is dropped: it names a host path
 * the runtime has no use for.
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

/** A runtime command; its own words are the cause a person needs (a daemon down, a name in use). */
async function runRuntime(file: string, args: string[], env: Record<string, string>) {
  // No run's signal here: the kill and the removal must run after a cancel too.
  const r = await run(file, args, { env, timeoutMs: 30_000 })
  if (r.exitCode !== 0)
    console.error(
      logText(`${file} ${args[0] ?? ''} failed: ${r.stderr.trim() || `exit ${r.exitCode}`}`)
    )
  return r.exitCode
}

/**
 * When a timeout or the run's stop ends a container's CLI, the container is killed through the
 * runtime too: a signal to the runtime CLI alone may not reach it (docker's CLI is only a client);
 * `--rm` removes it.
 */
function killContainer(
  name: string,
  runtime: ContainerRuntime,
  env: Record<string, string>,
  log: (m: string) => void
): (why: 'timeout' | 'cancel') => void {
  const kill = containerKillCommand(name, runtime)
  return why =>
    void runRuntime(kill.file, kill.args, env).then(async code => {
      if (code === 0) return log(`${why}: ${kill.file} kill ${name} done`)
      // The SIGTERM the runtime CLI forwards may have ended the container first (and --rm
      // removed it): the kill then finds nothing to kill, which is not a failure to stop it.
      const stopped = !(await isRunning(kill.file, name, env))
      log(
        `${why}: ${kill.file} kill ${name} ${stopped ? 'found it already stopped' : `exited ${code}`}`
      )
    })
}

/** Whether the runtime still has the container running (false once it stopped or is gone). */
async function isRunning(runtime: string, name: string, env: Record<string, string>) {
  const r = await run(runtime, ['container', 'inspect', '--format', '{{.State.Running}}', name], {
    env,
    timeoutMs: 30_000
  })
  return r.exitCode === 0 && r.stdout.trim() === 'true'
}

/**
 * The cage's clone as a container mounts it, with the read-only pointer bound over the task's
 * `.git` (ContainerGit.gitFile). The file lives beside the clone, which no container mounts.
 */
async function containerGit(git: CageGit): Promise<ContainerGit> {
  const gitFile = path.join(git.cloneDir, 'fleet-gitfile')
  await writeFile(gitFile, `gitdir: ${CONTAINER_GIT_DIR}\n`)
  return { gitDir: git.gitDir, objectsDir: git.objectsDir, gitFile }
}

/** The spec of one attempt's container; pure apart from the names it is given. */
export function containerSpecFor(
  c: ContainerConfig,
  w: Pick<WorkerLaunch, 'cwd' | 'paths' | 'env' | 'settings' | 'args'>,
  opts: {
    name: string
    user: string
    git?: ContainerGit
    view?: ContainerView
  }
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
    view: opts.view,
    cpus: c.cpus,
    memory: c.memory,
    pidsLimit: c.pidsLimit,
    network: c.network,
    egress: c.egress,
    user: opts.user,
    claudeArgs: w.args(settings)
  }
}

export async function launchContainer(c: ContainerConfig, w: WorkerLaunch): Promise<WorkerExit> {
  const cageDir = path.dirname(w.paths.configDir)
  const name = containerName(RUN_TOKEN, w.taskId, w.attempt)
  const uid = process.getuid?.()
  const self = `${uid ?? 0}:${process.getgid?.() ?? 0}`
  const user = containerUser(uid, process.getgid?.())
  const git = await prepareGit(w.sealing ?? w.cwd, cageDir)
  const mounted = [w.cwd, w.paths.configDir, git.cloneDir]
  const cmd = containerCommand(
    containerSpecFor(c, w, {
      name,
      user,
      git: await containerGit(git),
      view: w.sealing?.view
    })
  )
  const env = runtimeEnv(cmd.env, w.host)
  w.log(`[${w.taskId}] container ${name} (${c.runtime}, ${c.image}, user ${user})`)
  // Root action, uid-1001 container: the mounts must be the container user's while it runs.
  if (uid === 0) await chownTree(user, mounted)
  try {
    const exit = await spawnWorker({
      file: cmd.file,
      args: cmd.args,
      env,
      cwd: w.cwd,
      stdin: w.stdin,
      timeoutMs: w.timeoutMs,
      transcriptPath: w.transcriptPath,
      onProgress: w.onProgress,
      signal: w.signal,
      onStop: killContainer(name, c.runtime, env, m => w.log(`[${w.taskId}] ${m}`)),
      // The runtime's own helpers (conmon) carry the CLI's environment: they are not strays.
      hunt: false
    })
    // A CLI killed before the runtime reaped the container can leave it behind: remove it.
    if (exit.timedOut || exit.stopped) await runRuntime(c.runtime, ['rm', '--force', name], env)
    await sealInContainer(c, w, { name: `${name}-seal`, user, git })
    return exit
  } finally {
    await finishGit(
      git,
      uid === 0 ? { user: self, dirs: [w.cwd, w.paths.configDir, git.cloneDir] } : undefined
    )
  }
}

/**
 * The task's exit (worker/exit.ts) in a container of the worker's image with the worker's mounts
 * (its files, its clone) and no network: the seal commits and writes the bundle into a directory
 * mounted for it alone, then the action reads and checks the file.
 */
async function sealInContainer(
  c: ContainerConfig,
  w: Pick<WorkerLaunch, 'cwd' | 'paths' | 'env' | 'settings' | 'args' | 'host' | 'sealing'>,
  o: { name: string; user: string; git: CageGit }
): Promise<void> {
  const t = w.sealing
  if (!t) return
  const seal = await openSeal(t, t.keepDir, { inside: CONTAINER_SEAL_DIR })
  const uid = process.getuid?.()
  if (uid === 0) await chownTree(o.user, [seal.dir])
  const cmd = containerCommand({
    ...containerSpecFor(c, w, {
      name: o.name,
      user: o.user,
      git: await containerGit(o.git),
      view: t.view
    }),
    env: seal.env,
    network: 'none',
    egress: undefined,
    sealDir: seal.dir,
    command: seal.command
  })
  const env = runtimeEnv(cmd.env, w.host)
  const args = cmd.args.filter(a => a !== '--interactive')
  const ran = await runVerify('seal', w.cwd, env, SEAL_TIMEOUT_MS, { file: cmd.file, args })
  await runRuntime(c.runtime, ['rm', '--force', o.name], env)
  await acceptSeal(t, seal, ran)
}

/** A shell command (verify, setup) for a container of the worker's image. */
export interface ContainerCommand {
  taskId: string
  worktree: string
  configDir: string
  env: Record<string, string>
  command: string
  timeoutMs: number
  host: NodeJS.ProcessEnv
  log: (m: string) => void
  signal?: AbortSignal
  /** The task whose work is sealed after the command (worker/exit.ts). */
  sealing?: TaskGit
  /** The task whose view (and git) a command that does not seal works in: setup's. */
  task?: TaskGit
  /** The worktree's admin dir, for a command with neither (CageCommand.gitDir). */
  gitDir?: string
  /** A directory it leaves files in for the action, named to it by `variable`: setup's listing. */
  outDir?: { path: string; variable: string }
}

/**
 * What a command's container holds beyond its files and config dir: a clone of the task's git,
 * as the worker's and the sandbox's, whose read-only pointer covers the task's `.git` (so nothing
 * the command does can point the action's git elsewhere). With a view, its files are the task's
 * view, and setup (which lists what it left with git in its cage, fleet/setup-check.ts) gets its
 * out dir, named by its container path.
 */
async function commandCage(v: ContainerCommand) {
  const view = (v.sealing ?? v.task)?.view
  const clone = await prepareGit(
    v.sealing ?? v.task ?? v.worktree,
    path.dirname(v.configDir),
    v.gitDir
  )
  const env = { ...v.env }
  for (const hostOnly of ['CLAUDE_CONFIG_DIR', 'HOME', 'TMPDIR', 'IS_SANDBOX']) delete env[hostOnly]
  if (v.outDir) env[v.outDir.variable] = CONTAINER_OUT_DIR
  const owned = [v.worktree, v.configDir, clone.cloneDir]
  if (v.outDir) owned.push(v.outDir.path)
  return { view, clone, git: await containerGit(clone), env, owned }
}

/**
 * The verify command (or setup) in a container of the worker's image, with only the task's files
 * and the worker's config dir mounted and the worker's environment minus the model key: in
 * container isolation the worker wrote what verify runs (package.json scripts, Makefiles), so it
 * must not run on the runner. Its git is a clone of the task's (commandCage), never the host's.
 */
export async function verifyInContainer(
  c: ContainerConfig,
  v: ContainerCommand
): Promise<VerifyResult> {
  const name = containerName(RUN_TOKEN, v.taskId, 0).replace(/-0$/, '-verify')
  const uid = process.getuid?.()
  const user = containerUser(uid, process.getgid?.())
  const cage = await commandCage(v)
  const cmd = containerCommand({
    runtime: c.runtime,
    image: c.image,
    name,
    worktree: v.worktree,
    configDir: v.configDir,
    env: cage.env,
    git: cage.git,
    view: cage.view,
    outDir: v.outDir?.path,
    cpus: c.cpus,
    memory: c.memory,
    pidsLimit: c.pidsLimit,
    network: c.network,
    egress: c.egress,
    user,
    claudeArgs: [],
    command: ['sh', '-c', v.command]
  })
  const runEnv = runtimeEnv(cmd.env, v.host)
  v.log(`[${v.taskId}] verify in container ${name}`)
  if (uid === 0) await chownTree(user, cage.owned)
  try {
    const result = await runCommand(c, v, { name, file: cmd.file, args: cmd.args, env: runEnv })
    if (v.sealing) await sealAfterCommand(c, v, { name: `${name}-seal`, user })
    return result
  } finally {
    await runRuntime(c.runtime, ['rm', '--force', name], runEnv)
    const self = `${uid}:${process.getgid?.() ?? 0}`
    if (uid === 0) await chownTree(self, cage.owned)
    await finishGit(cage.clone)
  }
}

/** The command's container run to its end, then removed (the seal's container comes after). */
async function runCommand(
  c: ContainerConfig,
  v: ContainerCommand,
  cmd: { name: string; file: string; args: string[]; env: Record<string, string> }
): Promise<VerifyResult> {
  // --interactive is for the worker's prompt; verify reads no stdin.
  const args = cmd.args.filter(a => a !== '--interactive')
  const result = await runVerify(
    v.command,
    v.worktree,
    cmd.env,
    v.timeoutMs,
    {
      file: cmd.file,
      args,
      onStop: killContainer(cmd.name, c.runtime, cmd.env, m => v.log(`[${v.taskId}] ${m}`)),
      hunt: false
    },
    v.signal
  )
  await runRuntime(c.runtime, ['rm', '--force', cmd.name], cmd.env)
  return result
}

/** A command's leftovers sealed: a fresh clone at the task's accepted commit, then the seal. */
async function sealAfterCommand(
  c: ContainerConfig,
  v: {
    taskId: string
    worktree: string
    configDir: string
    host: NodeJS.ProcessEnv
    log: (m: string) => void
    sealing?: TaskGit
  },
  o: { name: string; user: string }
): Promise<void> {
  const t = v.sealing
  if (!t) return
  const git = await prepareGit(t, path.dirname(v.configDir))
  const uid = process.getuid?.()
  try {
    if (uid === 0) await chownTree(o.user, [git.cloneDir, v.worktree])
    const launch = {
      cwd: v.worktree,
      paths: { configDir: v.configDir, home: v.configDir, tmp: v.configDir },
      env: {},
      settings: path.join(v.configDir, 'settings.json'),
      args: () => []
    }
    await sealInContainer(c, { ...launch, host: v.host, sealing: t }, { ...o, git })
  } finally {
    await finishGit(
      git,
      uid === 0 ? { user: `${uid}:${process.getgid?.() ?? 0}`, dirs: [git.cloneDir] } : undefined
    )
  }
}
