/**
 * Where a worker runs: its own sandbox (isolation: sandbox, docs/sandbox.md), its own container
 * (isolation: container, docs/container.md) or a plain child process (isolation: process). This is
 * the one file that knows which one a run uses (a unit test holds every other file of src/ to
 * that): prepareIsolation() chooses it once per run, and the rest of the action asks the
 * Isolation it returns — to launch a worker attempt, to run a shell command (verify, setup)
 * behind the same walls, and what the choice means for the gateway's address, the worker's
 * binary and user, setup's caches and the summary. The sandbox's side is in sandbox-*.ts, the
 * container's in container-*.ts.
 */
import type { VerifyResult, View } from '../domain.js'
import { containerUser, launchContainer, verifyInContainer } from './container-run.js'
import { EGRESS_NETWORK, type ContainerConfig } from './container.js'
import { openEgressNetwork } from './container-egress.js'
import { containerGatewayHost, holdNetwork } from './container-net.js'
import { sealAsChild } from '../worker/exit.js'
import type { Claude, VersionProbe } from '../worker/install.js'
import type { CageCommand, WorkerLaunch } from '../worker/launch.js'
import type { WorkerOptions } from '../worker/options.js'
import type { WorkerExit } from '../worker/result.js'
import type { AllowRule } from './sandbox-allow.js'
import { preflightSandbox, type SandboxHost } from './sandbox-host.js'
import { launchSandboxed, runSandboxedCommand } from './sandbox-launch.js'
import { type Blocked, blockedLines } from './sandbox-proxy.js'
import { checkBinaryInSandbox, type SandboxSetup } from './sandbox-run.js'
import { spawnWorker } from '../worker/spawn.js'
import { runVerify } from '../worker/verify.js'
import { closeAtEnd } from './teardown.js'
import { type HeldView, holdView } from './views.js'

export type { CageCommand } from '../worker/launch.js'

/** What the isolation reads of the run's options: the `isolation` and `container-*` inputs, `allowed-domains`. */
export type IsolationOptions = Pick<WorkerOptions, 'isolation' | 'container'> & {
  allowedDomains: AllowRule[]
}

/**
 * Where a worker and its task's shell commands run, chosen once per run (prepareIsolation). Each
 * kind prepares its cage, runs the worker in it and collects what it left (the worker's commits,
 * in sandbox and container), and runs verify and setup behind the same walls.
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
   * Whether a worker runs as the runner's own user (so as root on a root runner, and then needs
   * IS_SANDBOX=1); a container's user is its own, never root.
   */
  readonly keepsRunnerUser: boolean
  /** Whether a caged command sees the runner's paths, so setup is told where its caches are. */
  readonly seesRunnerPaths: boolean
  /** Whether setup's caches are shown to it as views (the sandbox's binds); a process sees them as they are. */
  readonly bindsCaches: boolean
  /** Said before any worker runs and atop the summary: process's warning that it is no boundary. */
  readonly warning?: string
  /** The address the model gateway listens on: the one its workers can reach. */
  gatewayHost(env: NodeJS.ProcessEnv): Promise<string>
  /**
   * The claude the workers run: the runner's (`resolve`, told how to read its version where the
   * workers run it, when that is not the runner itself), or the image's own in a container.
   */
  claude(
    resolve: (version?: VersionProbe) => Promise<Claude>,
    log: (m: string) => void
  ): Promise<Claude>
  /** What the allowed-domains proxy refused in this run, one line each with what would allow it. */
  refused(): string[]
  /**
   * Whether a task's files may be a copy-on-write view of the run's shared checkout (views.ts)
   * instead of a worktree of its own: the sandbox, where views mount, and podman's containers
   * (an overlay volume with the task's own upper layer). Not docker, which has no overlay volumes,
   * and not process isolation, which has no cage to mount one in.
   */
  readonly views: boolean
  /**
   * Holds a task's view mounted for all its cages (views.ts holdView), where the sandbox can
   * (nsenter beside unshare); absent where each cage mounts its own.
   */
  readonly hold?: (view: View, signal?: AbortSignal) => Promise<HeldView>
  /**
   * The user (uid:gid) a view's writes are made as, when it is not the action's: the shared
   * checkout must be theirs (a container's user under a root action). Undefined otherwise.
   */
  readonly viewOwner?: string
  /**
   * Whether its views can stack a hiding layer (views.ts View.hide), so a task's view may show the
   * workspace's own checkout with its `.git` hidden (git/workspace-view.ts): the sandbox's overlay
   * mount, not podman's overlay volume.
   */
  readonly viewsHide?: boolean
  /**
   * Whether a view's private layer is the action's to read (its cages write it as the runner's
   * user) and a command's `after` runs (CageCommand.after): the sandbox. Setup's leftover check
   * then looks at the paths setup changed alone (fleet/setup-layer.ts); elsewhere it walks the
   * whole view in setup's own cage.
   */
  readonly checksAfter?: boolean
}

export const PROCESS_WARNING =
  "isolation: process gives workers no boundary: a worker can read the runner's secrets (the GitHub token in the action's environment), use sudo and reach every host. Use isolation: sandbox (the default) unless you trust every task's text."

type Kind = Omit<Isolation, 'run'> & {
  run(c: CageCommand, env: Record<string, string>): Promise<VerifyResult>
}

const LOOPBACK = () => Promise.resolve('127.0.0.1')

/** The runner's claude, its version logged. */
async function runnerClaude(resolve: () => Promise<Claude>, log: (m: string) => void) {
  const claude = await resolve()
  log(`claude: ${claude.version} (${claude.file})`)
  return claude
}

/** The worker binary's check in a cage, begun beside the sandbox's preflight (prepareIsolation). */
interface EarlyCheck {
  file: string
  version: Promise<string>
}

function sandboxKind(setup: SandboxSetup, early?: EarlyCheck): Kind {
  return {
    launch: w => launchSandboxed(w, setup),
    run: (c, env) => runSandboxedCommand(c, env, setup),
    keepsRunnerUser: true,
    seesRunnerPaths: true,
    bindsCaches: true,
    gatewayHost: LOOPBACK,
    // Its version read by the check that it starts in the sandbox: one start of it, not two; the
    // one begun beside the preflight when it checked this very file.
    claude: (resolve, log) =>
      runnerClaude(
        () =>
          resolve(file =>
            early?.file === file ? early.version : checkBinaryInSandbox(setup, file)
          ),
        log
      ),
    refused: () => blockedLines(setup.blocked),
    views: !!setup.host.unshare,
    viewsHide: !!setup.host.unshare,
    checksAfter: true,
    ...(setup.host.unshare && setup.host.nsenter
      ? { hold: holdView.bind(undefined, setup.host.unshare) }
      : {})
  }
}

function containerKind(
  container: ContainerConfig,
  run: {
    /** What the run's proxy refused (network: allowed-domains). */
    blocked?: Map<string, Blocked>
    /** Makes sure the network's gateway address exists (container-net.ts holdNetwork). */
    hold?: () => Promise<void>
  } = {}
): Kind {
  const { blocked, hold } = run
  return {
    launch: w => launchContainer(container, w),
    run: (c, env) => {
      const configDir = env.CLAUDE_CONFIG_DIR ?? c.cwd
      return verifyInContainer(container, { ...c, worktree: c.cwd, configDir, env })
    },
    keepsRunnerUser: false,
    seesRunnerPaths: false,
    bindsCaches: false,
    gatewayHost: async env => {
      await hold?.()
      return containerGatewayHost(container, env)
    },
    claude: (_resolve, log) => {
      const claude = { file: 'claude', version: `the one in ${container.image}` }
      log(`claude: ${claude.version} (${claude.file})`)
      return Promise.resolve(claude)
    },
    refused: () => blockedLines(blocked),
    views: container.runtime === 'podman',
    viewOwner: rootAction() ? containerUser(0, 0) : undefined
  }
}

/**
 * The container's kind on the network it asks for. A worker must reach the model, so `none` and
 * `allowed-domains` are the run's own internal network (container-egress.ts), made now; any other
 * network is held up for the gateway (podman) when the gateway first asks for its address, so
 * preparing starts nothing.
 */
async function containerIsolation(
  config: IsolationOptions,
  at: { host: NodeJS.ProcessEnv; log: (m: string) => void }
): Promise<Kind> {
  const { container } = config
  const asked = container.network
  if (asked !== EGRESS_NETWORK && asked !== 'none') {
    let held: Promise<void> | undefined
    const hold = () =>
      (held ??= holdNetwork(container, asked, at).then(letGo => closeAtEnd(letGo, at.log)))
    return containerKind(container, { hold })
  }
  const blocked = new Map<string, Blocked>()
  const opened = await openEgressNetwork(container, {
    host: at.host,
    allowed: asked === EGRESS_NETWORK ? config.allowedDomains : undefined,
    blocked,
    log: at.log
  })
  closeAtEnd(() => opened.close(), at.log)
  const { network, egress } = opened
  return containerKind({ ...container, network, egress }, { blocked })
}

/** The action runs as root: a container's user is then the image's own, not the action's. */
const rootAction = () => process.getuid?.() === 0

const processKind: Kind = {
  launch: async w => {
    const exit = await spawnWorker({
      file: w.claude,
      args: w.args(w.settings),
      env: w.env,
      cwd: w.cwd,
      stdin: w.stdin,
      timeoutMs: w.timeoutMs,
      transcriptPath: w.transcriptPath,
      onProgress: w.onProgress,
      signal: w.signal,
      below: true
    })
    if (w.sealing) await sealAsChild(w.sealing, w.cwd)
    return exit
  },
  run: async (c, env) => {
    const launch = { file: 'sh', args: ['-c', c.command], below: true }
    const result = await runVerify(c.command, c.cwd, env, c.timeoutMs, launch, c.signal)
    if (c.sealing) await sealAsChild(c.sealing, c.cwd)
    return result
  },
  keepsRunnerUser: true,
  seesRunnerPaths: true,
  bindsCaches: false,
  warning: PROCESS_WARNING,
  gatewayHost: LOOPBACK,
  claude: runnerClaude,
  refused: () => [],
  views: false
}

/** A kind as the run sees it: a caged command never gets the model key. */
function isolationOf(kind: Kind): Isolation {
  return {
    ...kind,
    run: c => {
      const env = { ...c.env }
      delete env.ANTHROPIC_API_KEY
      delete env.ANTHROPIC_AUTH_TOKEN
      return kind.run(c, env)
    }
  }
}

/**
 * Whether the tasks' views may show the workspace's own checkout (the sandbox's viewsHide), so the
 * check that they can is begun beside the fleet's clone, before the sandbox's preflight has said.
 */
export function mayShowCheckout(name: IsolationOptions['isolation']): boolean {
  return name === 'sandbox'
}

/** Whether the run's workers run in containers, so the `container-*` inputs are checked up front. */
export function readsContainerInputs(name: IsolationOptions['isolation']): boolean {
  return name === 'container'
}

/**
 * The one place the `isolation` input is read: the run's sandbox (after its preflight, which
 * fails closed with one sentence naming the fix and never falls back to process), container, or
 * plain process. `group` wraps the preflight for the log.
 */
export async function prepareIsolation(
  config: IsolationOptions,
  at: {
    host: NodeJS.ProcessEnv
    log: (m: string) => void
    group?: <T>(name: string, fn: () => Promise<T>) => Promise<T>
    /**
     * The worker binary the run will check, when it is known before the preflight: its check in
     * a cage (its version read there) then runs beside the preflight's probes, not after them.
     */
    binary?: string
  }
): Promise<Isolation> {
  switch (config.isolation) {
    case 'sandbox': {
      let early: EarlyCheck | undefined
      const { binary } = at
      const beside = binary
        ? (host: SandboxHost) => {
            const version = checkBinaryInSandbox({ host, allowed: config.allowedDomains }, binary)
            early = { file: binary, version }
            return version
          }
        : undefined
      const preflight = () => preflightSandbox(at.host, at.log, beside)
      const host = await (at.group ? at.group('Sandbox', preflight) : preflight())
      const setup = { host, allowed: config.allowedDomains, blocked: new Map() }
      return isolationOf(sandboxKind(setup, early))
    }
    case 'container':
      return isolationOf(await containerIsolation(config, at))
    case 'process':
      return isolationOf(processKind)
  }
}
