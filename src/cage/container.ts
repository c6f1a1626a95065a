import path from 'node:path'

/** Where things live inside the worker image (Dockerfile). */
export const CONTAINER_WORKSPACE = '/workspace'
export const CONTAINER_HOME = '/home/fleet'
export const CONTAINER_CONFIG_DIR = '/home/fleet/.claude-config'
export const CONTAINER_GIT_DIR = '/fleet/git'
/** The task's `.git` inside: a read-only pointer to CONTAINER_GIT_DIR (ContainerGit.gitFile). */
export const CONTAINER_GITFILE = `${CONTAINER_WORKSPACE}/.git`
export const CONTAINER_SEAL_DIR = '/fleet/seal'
export const CONTAINER_OUT_DIR = '/fleet/out'
export const DEFAULT_USER = '1001:1001'
export const DEFAULT_LIMITS = { cpus: '2', memory: '4g', pidsLimit: 1024 } as const

export type ContainerRuntime = 'docker' | 'podman'

/** The `container-*` inputs: how a worker's container is made. */
export interface ContainerConfig {
  runtime: ContainerRuntime
  image: string
  cpus: string
  memory: string
  pidsLimit: number
  /** 'bridge', 'none', EGRESS_NETWORK (the run's own, made by the action) or a named network. */
  network: string
  /** With EGRESS_NETWORK: its proxy, set by the run (container-egress.ts), never by an input. */
  egress?: ContainerEgress
}

/** The `network` value that gives the run's containers only the model and `allowed-domains`. */
export const EGRESS_NETWORK = 'allowed-domains'

/** The proxy a container's HTTP(S)_PROXY names, and what bypasses it (the model gateway). */
export interface ContainerEgress {
  /** http://<the network's gateway address>:<port> */
  proxy: string
  /** Comma-separated hosts: the gateway's address and loopback. */
  noProxy: string
}

/**
 * Git metadata for a container worker (docs/container.md): a `git clone --shared --no-checkout`
 * made for the task. Its gitdir is the worker's own (config, hooks, refs, index); the objects it
 * borrows through `objects/info/alternates` are mounted read-only at their host path so that file
 * resolves. The main repository's config (with the checkout's token) and hooks stay out of reach.
 */
export interface ContainerGit {
  /** Host path of the clone's gitdir, mounted read-write at CONTAINER_GIT_DIR. */
  gitDir: string
  /** Host path of the main repository's objects dir, named in the clone's alternates. */
  objectsDir: string
  /**
   * Host path of a file reading `gitdir: /fleet/git`, bound read-only over the task's `.git`, as
   * the sandbox does: the cage's git finds its clone, and the pointer the worktree holds on the
   * host (the action's) is neither seen nor rewritten from inside.
   */
  gitFile: string
}

export interface ContainerSpec {
  runtime?: ContainerRuntime
  image: string
  /** Container name, e.g. fleet-<runid>-<taskid>: the handle the timeout kill uses. */
  name: string
  /** Host path of the task's worktree, mounted read-write at /workspace. */
  worktree: string
  /** Host path of the worker's empty CLAUDE_CONFIG_DIR, mounted read-write in the container. */
  configDir: string
  /** The worker's allowlisted environment. Passed by name only: values never reach argv. */
  env: Record<string, string>
  git?: ContainerGit
  cpus?: string
  memory?: string
  pidsLimit?: number
  /** 'bridge', 'none' or a named network; 'host' and 'container:<id>' are refused. */
  network?: string
  /** The proxy its HTTP(S)_PROXY variables name, over any the environment holds. */
  egress?: ContainerEgress
  /** uid[:gid], never root: bypassPermissions refuses root, and root defeats the cage. */
  user?: string
  claudeArgs: string[]
  /** Run this instead of claude (the verify command, in the same cage). */
  command?: string[]
  /** The seal's output directory (worker/exit.ts), mounted read-write at CONTAINER_SEAL_DIR. */
  sealDir?: string
  /**
   * The task's files as a copy-on-write view of the run's shared checkout (views.ts), shown at
   * /workspace instead of the worktree: podman's overlay volume with the task's own upper layer.
   */
  view?: ContainerView
  /** A directory the command leaves files in for the action (setup's listing), at CONTAINER_OUT_DIR. */
  outDir?: string
}

/** A view as a container mounts it: `lower` never written, the task's writes kept in `upper`. */
export interface ContainerView {
  lower: string
  upper: string
  work: string
  /** A hiding layer (views.ts View.hide): podman's overlay volume has none, so it is refused. */
  hide?: string
}

export interface ContainerCommand {
  file: string
  args: string[]
  /** The docker CLI's whole environment: spec.env, nothing from the host. */
  env: Record<string, string>
}

/** The container settings an input names, as a refusal of one of them says (ContainerSpecError). */
export type ContainerSetting = 'image' | 'cpus' | 'memory' | 'pids-limit' | 'network'

/** A container command refused; `setting` names the container setting at fault, when one is. */
export class ContainerSpecError extends Error {
  constructor(
    message: string,
    readonly setting?: ContainerSetting
  ) {
    super(message)
  }
}

/**
 * Host-side variables that describe the runner, not the container: the image sets its own, and a
 * host PATH or HOME inside the container would point at paths that do not exist there.
 */
const HOST_ONLY = new Set([
  'PATH',
  'HOME',
  'TMPDIR',
  'TMP',
  'TEMP',
  'CLAUDE_CONFIG_DIR',
  'IS_SANDBOX',
  'GIT_DIR',
  'GIT_WORK_TREE'
])

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/
// Docker's own rule for container names.
const CONTAINER_NAME = /^[a-zA-Z0-9][a-zA-Z0-9_.-]{0,127}$/
// registry[:port]/path[:tag][@sha256:digest], lower-case path as registries require.
const IMAGE =
  /^[a-z0-9][a-z0-9._-]*(?::[0-9]+)?(?:\/[a-z0-9][a-z0-9._-]*)*(?::[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})?(?:@sha256:[a-f0-9]{64})?$/
const NETWORK = /^[a-zA-Z0-9][a-zA-Z0-9_.-]*$/
const USER = /^([0-9]+)(?::([0-9]+))?$/
const CPUS = /^(?:[0-9]+(?:\.[0-9]+)?)$/
const MEMORY = /^[0-9]+[bkmg]?$/i
const SECRET_NAME = /KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH/i
// Credentials recognisable by shape, whatever variable they came in.
const SECRET_SHAPE =
  /\b(?:sk-ant-[A-Za-z0-9_-]{8,}|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})/

function fail(message: string, setting?: ContainerSetting): never {
  throw new ContainerSpecError(message, setting)
}

/** An absolute, normalised host path that cannot break `--mount`'s comma-separated syntax. */
function mountPath(label: string, value: string): string {
  if (!path.isAbsolute(value) || path.normalize(value) !== value || value === '/') {
    fail(`Invalid ${label} '${value}'. Expected an absolute, normalised path other than /.`)
  }
  if (/[,\n\r"]/.test(value))
    fail(`Invalid ${label} '${value}'. Commas, quotes and newlines cannot be mounted.`)
  return value
}

/**
 * A view's three paths, which podman's `-v` reads split on ':' and its overlay options on ','
 * (`\\` too is an escape to overlayfs): refused rather than misread.
 */
function viewPath(label: string, value: string): string {
  const p = mountPath(`view's ${label}`, value)
  if (/[:\\]/.test(p))
    fail(
      `Invalid view's ${label} '${p}'. A copy-on-write view's paths cannot hold ',', ':', '\\' or a newline.`
    )
  return p
}

const within = (child: string, parent: string) => child === parent || child.startsWith(`${parent}/`)

/**
 * The view at /workspace: podman's overlay volume (`:O`) with the task's own upper and work dirs,
 * so what the task writes outlives this container and the next one of the task sees it. Docker has
 * no overlay volumes: refused (the container isolation gives docker a worktree instead).
 */
function viewMount(view: ContainerView, runtime: ContainerRuntime): string[] {
  if (runtime !== 'podman')
    fail(`A copy-on-write view needs podman's overlay volumes; container: runtime is '${runtime}'.`)
  if (view.hide)
    fail(
      `podman's overlay volume cannot hide a layer's entries; the view of ${view.lower} needs one.`
    )
  const [lower, upper, work] = [
    viewPath('lower dir', view.lower),
    viewPath('upper dir', view.upper),
    viewPath('work dir', view.work)
  ]
  if ([upper, work].some(p => within(p, lower) || within(lower, p)))
    fail(
      `A view's private layer (${upper}, ${work}) must lie outside the checkout it shows (${lower}).`
    )
  return ['--volume', `${lower}:${CONTAINER_WORKSPACE}:O,upperdir=${upper},workdir=${work}`]
}

function bind(src: string, dst: string, readonly = false): string[] {
  return ['--mount', `type=bind,src=${src},dst=${dst}${readonly ? ',readonly' : ''}`]
}

function checkUser(user: string): string {
  const match = USER.exec(user)
  if (!match) fail(`Invalid user '${user}'. Expected uid or uid:gid, numeric.`)
  if (Number(match[1]) === 0) fail(`Invalid user '${user}'. A container worker never runs as root.`)
  return user
}

function checkNetwork(network: string): string {
  if (network === 'host' || !NETWORK.test(network)) {
    fail(
      `Invalid network '${network}'. Expected 'bridge', 'none', '${EGRESS_NETWORK}' or a named network; 'host' shares the runner's.`,
      'network'
    )
  }
  return network
}

function limits(spec: ContainerSpec): string[] {
  const cpus = spec.cpus ?? DEFAULT_LIMITS.cpus
  const memory = spec.memory ?? DEFAULT_LIMITS.memory
  const pids = spec.pidsLimit ?? DEFAULT_LIMITS.pidsLimit
  if (!CPUS.test(cpus) || Number(cpus) <= 0)
    fail(`Invalid cpus '${cpus}'. Expected a positive number such as 1.5.`, 'cpus')
  if (!MEMORY.test(memory) || parseInt(memory, 10) <= 0)
    fail(`Invalid memory '${memory}'. Expected a size such as 2g or 512m.`, 'memory')
  if (!Number.isSafeInteger(pids) || pids <= 0)
    fail(`Invalid pids-limit '${pids}'. Expected a positive integer.`, 'pids-limit')
  // memory-swap equal to memory: no swap on top, so the limit is the limit.
  return ['--cpus', cpus, '--memory', memory, '--memory-swap', memory, '--pids-limit', String(pids)]
}

const PROXY_NAMES = ['HTTP_PROXY', 'HTTPS_PROXY', 'ALL_PROXY', 'NO_PROXY']
const PROXY_URL = /^http:\/\/\d{1,3}(?:\.\d{1,3}){3}:\d{1,5}$/
const NO_PROXY = /^[0-9A-Za-z.:,-]+$/

/** The proxy variables, both cases, as argv entries: an address and a port, never a credential. */
function egressEnv(egress: ContainerEgress): string[] {
  if (!PROXY_URL.test(egress.proxy) || !NO_PROXY.test(egress.noProxy))
    fail(`Invalid egress proxy '${egress.proxy}' (no proxy '${egress.noProxy}').`, 'network')
  return PROXY_NAMES.flatMap(name => {
    const value = name === 'NO_PROXY' ? egress.noProxy : egress.proxy
    return [`${name}=${value}`, `${name.toLowerCase()}=${value}`]
  })
}

/** Variables set inside the container to container paths and the run's proxy; never caller data. */
function pinnedEnv(spec: ContainerSpec): string[] {
  const pinned = [`HOME=${CONTAINER_HOME}`, `CLAUDE_CONFIG_DIR=${CONTAINER_CONFIG_DIR}`]
  if (spec.git) pinned.push(`GIT_DIR=${CONTAINER_GIT_DIR}`, `GIT_WORK_TREE=${CONTAINER_WORKSPACE}`)
  if (spec.egress) pinned.push(...egressEnv(spec.egress))
  return pinned.flatMap(entry => ['--env', entry])
}

/** The environment passed by name; with the run's proxy, no proxy variable of the host's. */
function forwardedEnv(env: Record<string, string>, egress: boolean): string[] {
  return Object.keys(env)
    .map(name =>
      ENV_NAME.test(name) ? name : fail(`Invalid environment variable name '${name}'.`)
    )
    .filter(name => !HOST_ONLY.has(name))
    .filter(name => !egress || !PROXY_NAMES.includes(name.toUpperCase()))
    .sort()
    .flatMap(name => ['--env', name])
}

/** A last line of defence: the argv is logged and visible in `ps`, so it must hold no credential. */
function assertNoSecrets(args: string[], env: Record<string, string>): void {
  const secrets = Object.entries(env)
    // Shorter values would match by accident (a 'y' in every path); real credentials are longer.
    .filter(
      ([name, value]) => value.length >= 8 && (SECRET_NAME.test(name) || SECRET_SHAPE.test(value))
    )
    .map(([, value]) => value)
  for (const arg of args) {
    if (SECRET_SHAPE.test(arg) || secrets.some(secret => arg.includes(secret))) {
      fail(
        'A credential would appear on the container command line; pass it through the environment.'
      )
    }
  }
}

/** The task's files (its worktree, or its view), its config dir, its git, its seal's and out dirs. */
function mounts(spec: ContainerSpec): string[] {
  const worktree = mountPath('worktree', spec.worktree)
  const files = spec.view
    ? viewMount(spec.view, spec.runtime ?? 'docker')
    : bind(worktree, CONTAINER_WORKSPACE)
  const mounts = [...files, ...bind(mountPath('config dir', spec.configDir), CONTAINER_CONFIG_DIR)]
  if (spec.git) {
    mounts.push(...bind(mountPath('git dir', spec.git.gitDir), CONTAINER_GIT_DIR))
    const objects = mountPath('objects dir', spec.git.objectsDir)
    mounts.push(...bind(objects, objects, true))
    // After the task's files: over their `.git`, read-only.
    mounts.push(...bind(mountPath('gitfile', spec.git.gitFile), CONTAINER_GITFILE, true))
  }
  if (spec.sealDir) mounts.push(...bind(mountPath('seal dir', spec.sealDir), CONTAINER_SEAL_DIR))
  if (spec.outDir) mounts.push(...bind(mountPath('out dir', spec.outDir), CONTAINER_OUT_DIR))
  return mounts
}

/** The argv and environment that start one worker in its own container. */
export function containerCommand(spec: ContainerSpec): ContainerCommand {
  if (!CONTAINER_NAME.test(spec.name))
    fail(`Invalid container name '${spec.name}'. Expected [a-zA-Z0-9][a-zA-Z0-9_.-]*.`)
  if (spec.image.length > 255 || !IMAGE.test(spec.image)) {
    fail(`Invalid image '${spec.image}'. Expected registry/name[:tag][@sha256:digest].`, 'image')
  }
  const args = [
    'run',
    '--rm',
    // Keeps stdin open: the prompt goes there, never on a command line (worker/args.ts).
    '--interactive',
    '--name',
    spec.name,
    '--label',
    'fleet-worker=1',
    '--user',
    checkUser(spec.user ?? DEFAULT_USER),
    '--workdir',
    CONTAINER_WORKSPACE,
    ...mounts(spec),
    ...limits(spec),
    '--network',
    checkNetwork(spec.network ?? 'bridge'),
    '--security-opt',
    'no-new-privileges',
    '--cap-drop',
    'ALL',
    ...pinnedEnv(spec),
    ...forwardedEnv(spec.env, spec.egress !== undefined),
    spec.image,
    ...(spec.command ?? ['claude', ...spec.claudeArgs])
  ]
  assertNoSecrets(args, spec.env)
  return { file: spec.runtime ?? 'docker', args, env: { ...spec.env } }
}

/** The argv that stops a worker's container at once; `--rm` then removes it. */
export function containerKillCommand(
  name: string,
  runtime: ContainerRuntime = 'docker'
): { file: string; args: string[] } {
  if (!CONTAINER_NAME.test(name))
    fail(`Invalid container name '${name}'. Expected [a-zA-Z0-9][a-zA-Z0-9_.-]*.`)
  return { file: runtime, args: ['kill', '--signal', 'KILL', name] }
}

/**
 * A host path under the worktree or config dir as the container sees it, for claude arguments
 * such as `--settings`; undefined for a path the container cannot see.
 */
export function containerPath(
  spec: Pick<ContainerSpec, 'worktree' | 'configDir'>,
  hostPath: string
): string | undefined {
  const roots: [string, string][] = [
    [spec.configDir, CONTAINER_CONFIG_DIR],
    [spec.worktree, CONTAINER_WORKSPACE]
  ]
  for (const [host, inside] of roots) {
    const rel = path.relative(host, hostPath)
    if (rel === '') return inside
    if (rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel))
      return path.posix.join(inside, ...rel.split(path.sep))
  }
  return undefined
}
