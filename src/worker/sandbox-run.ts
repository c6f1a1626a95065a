/**
 * Running things in the sandbox: a worker attempt, or a shell command (verify, setup) in a task's
 * cage. Each gets its own git clone (cage-git.ts), its own network sockets (sandbox-net.ts) and a
 * bwrap command line (sandbox.ts); all of it is taken down when the command ends.
 */
import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import type { VerifyResult } from '../domain.js'
import { runVerify } from './verify.js'
import { type CageGit, finishGit, prepareGit } from './cage-git.js'
import type { WorkerExit } from './result.js'
import { proxyEnv, sandboxCommand, type SandboxSpec } from './sandbox.js'
import type { AllowRule } from './sandbox-allow.js'
import type { SandboxHost } from './sandbox-host.js'
import { openSandboxNetwork, type SandboxNetwork } from './sandbox-net.js'
import { cacheLayers, dropView, type View } from './views.js'
import { type Progress, spawnWorker } from './spawn.js'

/** Everything a sandbox needs that is the same for the whole run. */
export interface SandboxSetup {
  host: SandboxHost
  /** The `allowed-domains` rules. */
  allowed: AllowRule[]
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
}

interface Prepared {
  spec: SandboxSpec
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

async function prepare(c: Caged): Promise<Prepared> {
  const dir = await hostDir()
  let git: CageGit | undefined
  let network: SandboxNetwork | undefined
  let views: View[] = []
  const release = async () => {
    await Promise.all([network?.close(), git && finishGit(c.worktree, git, c.log)])
    await Promise.all(views.map(dropView))
    await rm(dir, { recursive: true, force: true })
  }
  try {
    // Independent steps, side by side: each worker start waits for the slowest, not the sum.
    const [cloned, opened, bin] = await Promise.allSettled([
      prepareGit(c.worktree, c.cageDir),
      openSandboxNetwork({
        dir: path.join(dir, 'net'),
        modelUrl: c.modelUrl,
        allowed: c.setup.allowed,
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
    const { command: real, dir: claudeDir } = bin.value
    const caches = await cacheLayers(c.shared ?? [], path.join(dir, 'caches'), c.setup.host.unshare)
    views = caches.views
    const command = real ? [real, ...c.command.slice(1)] : c.command
    const spec: SandboxSpec = {
      bwrap: c.setup.host.bwrap,
      system: c.setup.host.system,
      extraReadOnly: c.setup.host.extraReadOnly,
      worktree: c.worktree,
      cageDir: c.cageDir,
      views: caches.views,
      scratch: caches.scratch,
      viewsBy: c.setup.host.unshare ? { unshare: c.setup.host.unshare, ...runnerIds() } : undefined,
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
    return { spec, release }
  } catch (error) {
    await release()
    throw error
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
    const cmd = sandboxCommand(prepared.spec)
    return signalOf(
      await spawnWorker({ file: cmd.file, args: cmd.args, env: cmd.env, cwd: c.worktree, ...io })
    )
  } finally {
    await prepared.release()
  }
}

/** A shell command (verify, setup) in the task's sandbox: the same walls as its worker's. */
export async function runSandboxed(
  c: Omit<Caged, 'command' | 'binary' | 'modelUrl'>,
  shell: string,
  timeoutMs: number
): Promise<VerifyResult> {
  const prepared = await prepare({ ...c, command: ['sh', '-c', shell] })
  try {
    const cmd = sandboxCommand(prepared.spec)
    return await runVerify(shell, c.worktree, cmd.env, timeoutMs, {
      file: cmd.file,
      args: cmd.args
    })
  } finally {
    await prepared.release()
  }
}
