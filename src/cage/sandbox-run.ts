/**
 * Running things in the sandbox: a worker attempt, or a shell command (verify, setup) in a task's
 * cage. Each gets its own git clone (cage-git.ts), its own network sockets (sandbox-net.ts) and a
 * bwrap command line (sandbox.ts); all of it is taken down when the command ends, beside what
 * the task does next (teardown.ts).
 */
import { chmod, copyFile, lstat, mkdtemp, realpath, rename, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import type { VerifyResult, View } from '../domain.js'
import { runVerify } from '../worker/verify.js'
import { belowInCage } from '../process/priority.js'
import { type CageGit, finishGit, prepareGit } from './cage-git.js'
import {
  acceptSeal,
  readyIndex,
  openSeal,
  type Seal,
  SEAL_TIMEOUT_MS,
  sealAfter,
  sealedAfter,
  type TaskGit
} from '../worker/exit.js'
import { versionIn } from '../worker/install.js'
import type { WorkerExit } from '../worker/result.js'
import type { ShortCage } from '../worker/launch.js'
import { proxyEnv, sandboxCommand, type SandboxSpec } from './sandbox.js'
import type { AllowRule } from './sandbox-allow.js'
import { type SandboxHost, SandboxUnavailable } from './sandbox-host.js'
import type { Blocked } from './sandbox-proxy.js'
import { openSandboxNetwork, type SandboxNetwork } from './sandbox-net.js'
import { inTurn, releaseCage } from './teardown.js'
import { cacheLayers, dropView } from './views.js'
import { type Progress, spawnWorker } from '../worker/spawn.js'
import { removeTree } from '../process/remove-tree.js'

/** Everything a sandbox needs that is the same for the whole run. */
export interface SandboxSetup {
  host: SandboxHost
  /** The `allowed-domains` rules. */
  allowed: AllowRule[]
  /** The run's refused destinations, every sandbox's, for the summary. */
  blocked?: Map<string, Blocked>
}

/** One caged command: where it works, what it may reach, and what it runs. */
export interface Caged {
  setup: SandboxSetup
  taskId: string
  /** The task's worktree (read-write, the cwd). */
  worktree: string
  /** The attempt's own directory: config dir, HOME, TMPDIR, its git clone (read-write). */
  cageDir: string
  /** The model endpoint the command may reach (the worker's ANTHROPIC_BASE_URL); none for verify. */
  modelUrl?: string
  command: string[]
  /** A host binary to show read-only (claude), with the directory it lives in. */
  binary?: string
  env: Record<string, string>
  log: (message: string) => void
  /** The runner's package caches, shown to setup alone through copy-on-write views (views.ts). */
  shared?: string[]
  /** The task whose work this run seals on its way out (worker/exit.ts); none for the planner. */
  sealing?: TaskGit
  /** The task whose git (and view) a run that does not seal works in: setup. */
  task?: TaskGit
  /** The worktree's admin dir, for a run with neither (CageCommand.gitDir). */
  gitDir?: string
}

/** The task's view, mounted at its worktree path: only where views can be mounted. */
function taskView(c: Caged): View | undefined {
  const view = (c.sealing ?? c.task)?.view
  if (view && !c.setup.host.unshare)
    throw new Error(`the task's files are a view, but views cannot be mounted here`)
  return view
}

/** The view's private layer, shown to the cage's git when its index is marked (git/fsmonitor.ts). */
function layerOf(c: Caged): string | undefined {
  const view = taskView(c)
  return view?.fsmonitor ? view.upper : undefined
}

interface Prepared {
  spec: SandboxSpec
  /** The host directory of this run (sockets), where its seal's output directory is made. */
  dir: string
  /** The cage's own clone's git dir (cage-git.ts). */
  cloneGit: string
  release(): Promise<void>
}

/** Sockets live in a short host path: a unix socket's path is limited to 107 bytes. */
async function hostDir(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'fleet-sbx-'))
  if (dir.length <= 80) return dir
  await rm(dir, { recursive: true, force: true })
  return mkdtemp('/tmp/fleet-sbx-')
}

/** The directory the binary really lives in, unless the system paths show it already. */
async function binaryDir(setup: SandboxSetup, binary: string | undefined) {
  if (!binary) return { command: undefined, dir: undefined }
  const real = await realpath(binary)
  const dir = path.dirname(real)
  const shown = setup.host.system.some(e => e.kind === 'dir' && dir.startsWith(`${e.path}/`))
  return { command: real, dir: shown ? undefined : dir }
}

/**
 * The cage's clone renamed beside its cage dir (the same file system), with the host dir's name:
 * none to remove when the command's cage left none there. A cage may leave its dir, or the clone
 * itself, one its owner may not write (a directory moved to another parent has its `..` written):
 * both are made writable by their owner again, and the rename tried once more. The cage's
 * processes are gone by now, so nothing swaps a directory for a link between the look and the chmod.
 */
async function moveAside(git: CageGit, dir: string): Promise<CageGit | undefined> {
  const cloneDir = `${path.dirname(git.cloneDir)}.${path.basename(dir)}`
  const move = () => rename(git.cloneDir, cloneDir)
  try {
    await move().catch(async (error: unknown) => {
      if (!isDenied(error)) throw error
      await Promise.all([path.dirname(git.cloneDir), git.cloneDir].map(ownerMayWrite))
      await move()
    })
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw error
  }
  return { ...git, cloneDir }
}

const isDenied = (error: unknown) =>
  ['EACCES', 'EPERM'].includes((error as NodeJS.ErrnoException).code ?? '')

/** A directory (never a link: chmod follows one) made writable by its owner. */
async function ownerMayWrite(dir: string): Promise<void> {
  const info = await lstat(dir).catch(() => undefined)
  if (info?.isDirectory()) await chmod(dir, (info.mode & 0o7777) | 0o700)
}

async function prepare(c: Caged): Promise<Prepared> {
  const dir = await hostDir()
  let git: CageGit | undefined
  let network: SandboxNetwork | undefined
  let views: View[] = []
  // Only the clone is moved out of the cage dir now (a task's next verify makes its cage there
  // again at once); removing it, the network's close and the host dir's removal run beside what
  // follows the command (teardown.ts).
  const release = () =>
    releaseCage(
      async () => git && (await moveAside(git, dir)),
      gone =>
        inTurn([
          [async () => network?.close(), async () => gone && finishGit(gone)],
          views.map(view => () => dropView(view)),
          [() => removeTree(dir)]
        ]),
      m => c.log(`[${c.taskId}] ${m}`)
    )
  try {
    const layer = layerOf(c)
    // Independent steps, side by side: each worker start waits for the slowest, not the sum.
    const [cloned, opened, bin] = await Promise.allSettled([
      prepareGit(c.sealing ?? c.task ?? c.worktree, c.cageDir, c.gitDir, !!layer),
      openSandboxNetwork({
        dir: path.join(dir, 'net'),
        modelUrl: c.modelUrl,
        allowed: c.setup.allowed,
        blocked: c.setup.blocked,
        log: m => c.log(`[${c.taskId}] ${m}`)
      }),
      binaryDir(c.setup, c.binary)
    ])
    if (cloned.status === 'fulfilled') git = cloned.value
    if (opened.status === 'fulfilled') network = opened.value
    for (const step of [cloned, opened, bin]) if (step.status === 'rejected') throw step.reason
    if (!git || !network || bin.status !== 'fulfilled') throw new Error('sandbox setup failed')
    // The worker's view of its worktree's `.git`: a pointer to its own clone.
    const gitFile = path.join(dir, 'gitfile')
    await writeFile(gitFile, `gitdir: ${git.gitDir}\n`)
    const caches = await cacheLayers(c.shared ?? [], path.join(dir, 'caches'), c.setup.host.unshare)
    views = caches.views
    const spec = specOf(c, { git, gitFile, network, caches, bin: bin.value, layer })
    return { spec, dir, cloneGit: git.gitDir, release }
  } catch (error) {
    await release()
    throw error
  }
}

/** The sandbox's spec for one caged command, from what prepare made for it. */
function specOf(
  c: Caged,
  made: {
    git: CageGit
    gitFile: string
    network: SandboxNetwork
    caches: Awaited<ReturnType<typeof cacheLayers>>
    bin: Awaited<ReturnType<typeof binaryDir>>
    layer: string | undefined
  }
): SandboxSpec {
  const { git, gitFile, network, caches } = made
  const { command: real, dir: claudeDir } = made.bin
  // Below the action (process/priority.ts), inside the cage: bwrap's new session is a new group,
  // and the cage's PID namespace holds only the task's processes, each new session lowered too.
  const command = belowInCage(real ? [real, ...c.command.slice(1)] : c.command)
  return {
    bwrap: c.setup.host.bwrap,
    system: c.setup.host.system,
    extraReadOnly: c.setup.host.extraReadOnly,
    worktree: c.worktree,
    worktreeView: taskView(c),
    layer: made.layer,
    cageDir: c.cageDir,
    views: caches.views,
    scratch: caches.scratch,
    viewsBy: c.setup.host.unshare
      ? { unshare: c.setup.host.unshare, nsenter: c.setup.host.nsenter, ...runnerIds() }
      : undefined,
    heldView: (c.sealing ?? c.task)?.held,
    git: { gitFile, objectsDir: git.objectsDir },
    claudeDir,
    network: {
      proxySocket: network.proxySocket,
      proxyPort: network.proxyPort,
      modelSocket: network.modelSocket,
      modelPort: network.modelPort
    },
    command,
    env: { ...c.env, ...proxyEnv(network.proxyPort) }
  }
}

function runnerIds(): { uid: number; gid: number } {
  return { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 }
}

/**
 * bwrap reports a command killed by signal N as exit 128+N: read back as the signal, so a killed
 * worker's outcome names it as it would outside the sandbox.
 */
function signalOf(exit: WorkerExit): WorkerExit {
  const code = exit.exitCode
  if (code === null || code <= 128 || code > 128 + 64 || exit.signal) return exit
  const names: Record<number, string> = { 9: 'SIGKILL', 15: 'SIGTERM', 6: 'SIGABRT', 11: 'SIGSEGV' }
  const signal = names[code - 128]
  return signal ? { ...exit, exitCode: null, signal } : exit
}

/**
 * The task's exit (worker/exit.ts), second way: the seal run in a second, short sandbox with the
 * same files and clone and no network, writing into a directory bound for it alone; then the
 * action reads and checks the file. Only when the seal could not run in the command's own cage
 * (exitThrough): the command was killed (its timeout, the run's stop) or its leftovers never died.
 */
async function sealIn(
  c: Pick<Caged, 'sealing' | 'cageDir' | 'worktree' | 'task'>,
  prepared: Prepared
): Promise<void> {
  if (!c.sealing) return
  const seal = await openSeal(c.sealing, prepared.dir, { layer: !!prepared.spec.layer })
  const cmd = sandboxCommand({
    ...prepared.spec,
    network: undefined,
    sealDir: seal.dir,
    command: seal.command,
    env: { ...seal.env, HOME: c.cageDir, TMPDIR: c.cageDir }
  })
  const ran = await runVerify('seal', c.worktree, cmd.env, SEAL_TIMEOUT_MS, {
    file: cmd.file,
    args: cmd.args
  })
  await acceptSeal(c.sealing, seal, ran)
}

/**
 * The command's spec with its seal run after it in the same cage (worker/exit.ts SEAL_AFTER):
 * one cage start per caged run, the seal's directory bound for both. None when nothing is sealed.
 */
async function sealedSpec(
  c: Pick<Caged, 'sealing' | 'cageDir'>,
  prepared: Prepared
): Promise<{ spec: SandboxSpec; seal?: Seal }> {
  if (!c.sealing) return { spec: prepared.spec }
  const seal = await openSeal(c.sealing, prepared.dir, { layer: !!prepared.spec.layer })
  const command = sealAfter(seal, c.cageDir, prepared.spec.command)
  return { spec: { ...prepared.spec, sealDir: seal.dir, command }, seal }
}

/**
 * The task's exit after a caged run: what the seal in the cage left is read and checked; when it
 * left no status (it never ran), the task is sealed in a second sandbox (sealIn). Runs whatever
 * the command's end was: a killed worker's work is sealed too. When the action killed the cage
 * (`killed`: a timeout, the run's stop) the seal after it never ran, so a status in its directory
 * can only be one the command wrote: it is not read.
 */
async function exitThrough(
  c: Pick<Caged, 'sealing' | 'cageDir' | 'worktree' | 'task'>,
  prepared: Prepared,
  seal: Seal | undefined,
  killed: boolean
): Promise<void> {
  if (!c.sealing || !seal) return
  const ran = killed ? undefined : sealedAfter(seal)
  if (ran) return acceptSeal(c.sealing, seal, ran)
  await removeTree(seal.dir)
  await sealIn(c, prepared)
}

/** One worker attempt in its sandbox; the prompt goes on stdin as ever. */
export async function spawnSandboxed(
  c: Caged,
  io: {
    stdin: string
    timeoutMs: number
    transcriptPath: string
    onProgress?: (p: Progress) => void
    signal?: AbortSignal
  }
): Promise<WorkerExit> {
  const prepared = await prepare(c)
  try {
    const { spec, seal } = await sealedSpec(c, prepared)
    const cmd = sandboxCommand(spec)
    const exit = signalOf(
      await spawnWorker({ file: cmd.file, args: cmd.args, env: cmd.env, cwd: c.worktree, ...io })
    )
    await exitThrough(c, prepared, seal, exit.timedOut || exit.stopped !== undefined)
    return exit
  } finally {
    await prepared.release()
  }
}

/** A shell command (verify, setup) in the task's sandbox: the same walls as its worker's. */
export async function runSandboxed(
  c: Omit<Caged, 'command' | 'binary' | 'modelUrl'>,
  shell: string,
  timeoutMs: number,
  signal?: AbortSignal,
  after?: (again: ShortCage) => Promise<void>
): Promise<VerifyResult> {
  const prepared = await prepare({ ...c, command: ['sh', '-c', shell] })
  try {
    const { spec, seal } = await sealedSpec(c, prepared)
    const cmd = sandboxCommand(spec)
    const result = await runVerify(
      shell,
      c.worktree,
      cmd.env,
      timeoutMs,
      { file: cmd.file, args: cmd.args },
      signal
    )
    await exitThrough(c, prepared, seal, result.timedOut || result.cancelled !== undefined)
    const passed = result.exitCode === 0 && !result.timedOut && result.cancelled === undefined
    if (after && passed) await after(shortCage(c, prepared, timeoutMs, signal))
    return result
  } finally {
    await prepared.release()
  }
}

/**
 * A second, short cage after the command (CageCommand.after): its files and clone, no network, no
 * caches; the clone's index taken again from the task's, so what the first command staged there
 * is not what the second one reads.
 */
function shortCage(
  c: Pick<Caged, 'worktree' | 'cageDir' | 'task' | 'sealing'>,
  prepared: Prepared,
  timeoutMs: number,
  signal?: AbortSignal
): ShortCage {
  return async (command, env) => {
    const task = c.sealing ?? c.task
    if (task) {
      await readyIndex(task)
      await copyFile(path.join(task.adminDir, 'index'), path.join(prepared.cloneGit, 'index'))
    }
    const cmd = sandboxCommand({
      ...prepared.spec,
      network: undefined,
      views: [],
      scratch: [],
      command,
      env: { ...env, HOME: env.HOME ?? c.cageDir, TMPDIR: env.TMPDIR ?? c.cageDir }
    })
    const label = command.slice(0, 2).join(' ')
    return runVerify(
      label,
      c.worktree,
      cmd.env,
      timeoutMs,
      { file: cmd.file, args: cmd.args },
      signal
    )
  }
}

/**
 * The preflight's last check: the worker binary's `--version` inside a sandbox, shown the way a
 * worker's is; its answer is the version the run logs (no second start of it on the runner). A
 * version manager's shim on PATH (a script whose real binary lives outside the paths the sandbox
 * shows) exits 127 there; the sentence says what to do.
 */
export async function checkBinaryInSandbox(setup: SandboxSetup, binary: string): Promise<string> {
  const dir = await hostDir()
  try {
    const { command, dir: claudeDir } = await binaryDir(setup, binary)
    const cmd = sandboxCommand({
      bwrap: setup.host.bwrap,
      system: setup.host.system,
      extraReadOnly: setup.host.extraReadOnly,
      worktree: dir,
      cageDir: dir,
      claudeDir,
      command: [command ?? binary, '--version'],
      env: {
        PATH: '/usr/local/bin:/usr/bin:/bin',
        HOME: dir,
        TMPDIR: dir,
        DISABLE_AUTOUPDATER: '1'
      }
    })
    const ran = await runVerify('--version', dir, cmd.env, 60_000, {
      file: cmd.file,
      args: cmd.args
    })
    // The answer's first line that starts with a number (stderr shares the tail).
    if (ran.exitCode === 0) return versionIn(/^\d[^\n]*/m.exec(ran.tail)?.[0] ?? '')
    const said = ran.tail.trim().split('\n').pop() ?? ''
    throw new SandboxUnavailable(
      `the worker binary ${binary} does not start inside the sandbox (exit ${ran.exitCode}${said ? `: ${said}` : ''}): if it is a wrapper script (a version manager's shim) whose real binary lives outside ${setup.host.system.map(e => e.path).join(', ')}, set claude-path to the real binary.`
    )
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}
