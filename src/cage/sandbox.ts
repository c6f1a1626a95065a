/**
 * isolation: sandbox — the bubblewrap command line that cages one worker (or its verify or setup
 * command): its own user, PID, network, IPC and UTS namespaces, a fresh /proc, no_new_privs (so
 * sudo and setuid are dead), and a filesystem made only of what is listed here. Pure: the host
 * facts it needs (which system directories exist, where bwrap is) are given to it.
 * docs/sandbox.md explains each choice.
 */
import path from 'node:path'
import type { View } from '../domain.js'
import { type HeldView, withViews } from './views.js'
import { LAYER_DIR } from '../git/fsmonitor.js'

/** A directory of the host's root, as the sandbox should show it. */
export type SystemEntry =
  { kind: 'dir'; path: string } | { kind: 'symlink'; path: string; target: string }

/**
 * Toolchains and system files, read-only. /opt holds the hosted runners' tool cache; the others
 * are the usual merged-/usr layout, each kept as a symlink where the host has one.
 */
export const SYSTEM_PATHS = ['/usr', '/etc', '/opt', '/bin', '/sbin', '/lib', '/lib32', '/lib64']

/** Where the host-side network sockets appear inside; the worker cannot write there. */
export const SOCKET_DIR = '/run/fleet'
export const MODEL_SOCKET = `${SOCKET_DIR}/model.sock`
export const PROXY_SOCKET = `${SOCKET_DIR}/proxy.sock`

export interface SandboxSpec {
  /** Absolute path of bwrap, found by the preflight. */
  bwrap: string
  system: SystemEntry[]
  /** Read-only files and directories outside the system paths (e.g. /etc/resolv.conf's target). */
  extraReadOnly?: string[]
  /** The task's worktree: read-write, and the command's working directory. */
  worktree: string
  /**
   * The task's files as a copy-on-write view of the run's shared checkout, mounted at `worktree`
   * (its `at`) before bwrap starts: the task's private layer takes its writes.
   */
  worktreeView?: View
  /** The attempt's own directory (config dir, HOME, TMPDIR, its git clone): read-write. */
  cageDir: string
  /**
   * setup's view of the runner's package caches (never a worker's): each cache a copy-on-write
   * view (views.ts) whose writes go to a private layer, so nothing setup writes there survives it.
   */
  views?: View[]
  /** Empty private directories shown at a path (a cache the runner does not have). */
  scratch?: { dir: string; at: string }[]
  /** What mounts the views: `unshare` (util-linux), and the runner's ids, kept inside. */
  viewsBy?: { unshare: string; nsenter?: string; uid: number; gid: number }
  /** `worktreeView` held mounted (views.ts holdView): entered with nsenter while its holder lives. */
  heldView?: HeldView
  /** The worker's git (cage-git.ts): a gitfile bound over the worktree's `.git`, objects read-only. */
  git?: { gitFile: string; objectsDir: string }
  /** Directory holding the claude binary (and what ships beside it): read-only. */
  claudeDir?: string
  /**
   * Host sockets and the loopback ports socat serves them on inside. None: no network at all (the
   * seal), and the command runs directly.
   */
  network?: { proxySocket: string; proxyPort: number; modelSocket?: string; modelPort?: number }
  /** The seal's output directory (worker/exit.ts): read-write, for the seal alone. */
  sealDir?: string
  /**
   * The task's view's private layer, shown read-only at LAYER_DIR, so the cage's git is told what
   * changed by it (git/fsmonitor.ts). Only what this task's cages wrote there.
   */
  layer?: string
  /** What to run, e.g. ['/path/claude', '-p', ...] or ['sh', '-c', verify]. */
  command: string[]
  /** The whole environment inside. Passed through bwrap's own environment, never on its argv. */
  env: Record<string, string>
}

export interface SandboxCommand {
  file: string
  args: string[]
  env: Record<string, string>
}

export class SandboxSpecError extends Error {}

function fail(message: string): never {
  throw new SandboxSpecError(message)
}

/**
 * Runs as the sandbox's first process: starts socat on loopback for each host socket, waits until
 * they listen (read from /proc/net/tcp with shell builtins only: no fork per poll), then becomes
 * the command. Constant text: ports and the command come as positional arguments.
 */
export const SANDBOX_INIT = [
  'mp=$1 mh=$2 pp=$3 ph=$4; shift 4',
  `if [ "$mp" != 0 ]; then socat TCP-LISTEN:$mp,bind=127.0.0.1,fork,reuseaddr UNIX-CONNECT:${MODEL_SOCKET} </dev/null >/dev/null 2>&1 & fi`,
  `socat TCP-LISTEN:$pp,bind=127.0.0.1,fork,reuseaddr UNIX-CONNECT:${PROXY_SOCKET} </dev/null >/dev/null 2>&1 &`,
  'listening() { while IFS= read -r l; do case $l in *":$1 00000000:0000 0A"*) return 0;; esac; done </proc/net/tcp; return 1; }',
  'n=0; while [ $n -lt 20000 ]; do listening $ph && { [ "$mp" = 0 ] || listening $mh; } && break; n=$((n+1)); done',
  'exec "$@"'
].join('\n')

const hex = (port: number) => port.toString(16).toUpperCase().padStart(4, '0')

function checkPort(name: string, port: number): number {
  if (!Number.isInteger(port) || port < 1 || port > 65535) fail(`Invalid ${name} port ${port}.`)
  return port
}

function checkAbsolute(name: string, p: string): string {
  if (!path.isAbsolute(p) || path.normalize(p) !== p.replace(/\/+$/, '') || p.includes('\0'))
    fail(`The sandbox's ${name} must be an absolute, normalised path, got '${p}'.`)
  return p
}

function systemArgs(system: SystemEntry[]): string[] {
  return system.flatMap(e =>
    e.kind === 'dir' ? ['--ro-bind', e.path, e.path] : ['--symlink', e.target, e.path]
  )
}

/** The bwrap argv and environment for one caged command. */
export function sandboxCommand(spec: SandboxSpec): SandboxCommand {
  const worktree = checkAbsolute('worktree', spec.worktree)
  const cageDir = checkAbsolute('cage dir', spec.cageDir)
  const readOnly = [...(spec.extraReadOnly ?? []), ...(spec.claudeDir ? [spec.claudeDir] : [])]
  const args = [
    '--unshare-user',
    '--unshare-pid',
    '--unshare-net',
    '--unshare-ipc',
    '--unshare-uts',
    '--unshare-cgroup-try',
    '--die-with-parent',
    // No capability inside its user namespace either: run by root (a self-hosted runner, a
    // container job), bubblewrap keeps them all unless told, and a cage holding CAP_SYS_ADMIN could
    // unmount what is bound over its view or remount a read-only bind writable.
    '--cap-drop',
    'ALL',
    // A new session: the caged command cannot push input into the action's terminal (TIOCSTI).
    '--new-session',
    '--hostname',
    'fleet-sandbox',
    ...systemArgs(spec.system),
    '--proc',
    '/proc',
    '--dev',
    '/dev',
    '--tmpfs',
    '/tmp',
    // After the tmpfs: a path under /tmp (RUNNER_TEMP's installed claude, say) must not be hidden.
    ...readOnly.flatMap(p => ['--ro-bind', checkAbsolute('read-only path', p), p]),
    '--bind',
    worktree,
    worktree,
    '--bind',
    cageDir,
    cageDir,
    ...cacheArgs(spec),
    ...(spec.sealDir ? ['--bind', checkAbsolute('seal dir', spec.sealDir), spec.sealDir] : []),
    ...(spec.layer ? ['--ro-bind', checkAbsolute('view layer', spec.layer), LAYER_DIR] : [])
  ]
  if (spec.git) {
    const objects = checkAbsolute('objects dir', spec.git.objectsDir)
    args.push('--ro-bind', objects, objects)
    // Over the worktree's own `.git`: the worker's git opens its clone, and cannot rewrite the
    // pointer the action's git follows afterwards.
    args.push('--ro-bind', checkAbsolute('gitfile', spec.git.gitFile), path.join(worktree, '.git'))
  }
  if (spec.command.length === 0) fail('The sandbox was given no command.')
  args.push(...networkArgs(spec.network, worktree), ...spec.command)
  assertNoSecrets(args, spec.env)
  return { ...viewsAround(spec, { file: spec.bwrap, args }), env: { ...spec.env } }
}

/** The sockets and the init that serves them inside, before the command; none without a network. */
function networkArgs(net: SandboxSpec['network'], worktree: string): string[] {
  if (!net) return ['--chdir', worktree, '--']
  const proxyPort = checkPort('proxy', net.proxyPort)
  const modelPort = net.modelSocket ? checkPort('model', net.modelPort ?? 0) : 0
  if (modelPort === proxyPort) fail(`The proxy and the model endpoint share port ${proxyPort}.`)
  const args = ['--ro-bind', checkAbsolute('proxy socket', net.proxySocket), PROXY_SOCKET]
  if (net.modelSocket)
    args.push('--ro-bind', checkAbsolute('model socket', net.modelSocket), MODEL_SOCKET)
  args.push('--chdir', worktree, '--', 'sh', '-c', SANDBOX_INIT, 'fleet-sandbox')
  args.push(String(modelPort), hex(modelPort), String(proxyPort), hex(proxyPort))
  return args
}

/** The caches' binds: a view is mounted over its own path (outside bwrap), a scratch dir bound. */
function cacheArgs(spec: SandboxSpec): string[] {
  return [
    ...(spec.views ?? []).flatMap(v => ['--bind', checkAbsolute('cache view', v.at), v.at]),
    ...(spec.scratch ?? []).flatMap(s => {
      const dir = checkAbsolute('scratch dir', s.dir)
      return ['--bind', dir, checkAbsolute('scratch path', s.at)]
    })
  ]
}

/**
 * With views, bwrap starts inside the namespace that mounted them, where the runner user is root:
 * `--uid`/`--gid` map its own ids back, so the command runs as the runner user, as without.
 */
function viewsAround(spec: SandboxSpec, bwrap: { file: string; args: string[] }) {
  const own = spec.worktreeView
  if (own && own.at !== spec.worktree)
    fail(`The task's view is mounted at ${own.at}, not at its worktree ${spec.worktree}.`)
  const by = spec.viewsBy
  const holder = spec.heldView
  // Read now, at each command: a holder that has ended is never entered (its pid may be reused).
  const held =
    own && by?.nsenter && holder?.view === own && holder.alive()
      ? { nsenter: by.nsenter, pid: holder.pid }
      : undefined
  const views = [...(own && !held ? [own] : []), ...(spec.views ?? [])]
  if (views.length === 0 && !held) return bwrap
  if (!by) fail('The sandbox was given views but no way to mount them.')
  const ids = ['--uid', String(by.uid), '--gid', String(by.gid)]
  return withViews(by.unshare, views, { file: bwrap.file, args: [...ids, ...bwrap.args] }, held)
}

const SECRET_NAME = /(KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL)/i

/** The argv is visible in `ps` to every user of the host: it must hold no value of a secret. */
function assertNoSecrets(args: string[], env: Record<string, string>): void {
  const secrets = Object.entries(env)
    .filter(([name, value]) => value.length >= 8 && SECRET_NAME.test(name))
    .map(([, value]) => value)
  if (args.some(arg => secrets.some(secret => arg.includes(secret))))
    fail('A credential would appear on the sandbox command line; pass it through the environment.')
}

/** The paths the sandbox lets its command write: the worktree and the cage dir, nothing else. */
export function writablePaths(args: string[]): string[] {
  const out: string[] = []
  // Wrapped by withViews: bwrap's own arguments start after the views' `--` and bwrap's path.
  const views = args.indexOf('fleet-views')
  for (let i = views === -1 ? 0 : args.indexOf('--', views) + 2; i < args.length; i++) {
    if (args[i] === '--') break
    if (args[i] === '--bind' || args[i] === '--bind-try' || args[i] === '--dev-bind')
      out.push(args[i + 2] ?? '')
  }
  return out
}

/** The proxy variables a caged command gets: everything but loopback goes through the proxy. */
export function proxyEnv(proxyPort: number): Record<string, string> {
  const url = `http://127.0.0.1:${proxyPort}`
  const noProxy = 'localhost,127.0.0.1,::1'
  return {
    HTTP_PROXY: url,
    HTTPS_PROXY: url,
    http_proxy: url,
    https_proxy: url,
    ALL_PROXY: url,
    all_proxy: url,
    NO_PROXY: noProxy,
    no_proxy: noProxy
  }
}
