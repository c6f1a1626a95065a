/**
 * The sandbox's preflight, run once before any worker or model request: bubblewrap and socat are
 * there (installed with apt when the runner may elevate), a trivial command runs in a sandbox
 * (Ubuntu 24.04's AppArmor restriction on user namespaces lifted when the runner may elevate),
 * and otherwise one sentence naming the fix. It never falls back to isolation: process.
 */
import { accessSync, constants, lstatSync, readlinkSync, realpathSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { systemEnv } from '../child-env.js'
import { type Ran, run } from '../process.js'
import { SYSTEM_PATHS, type SystemEntry } from './sandbox.js'
import { viewsFail } from './views.js'

/** What every sandbox of this run is built from. */
export interface SandboxHost {
  bwrap: string
  system: SystemEntry[]
  extraReadOnly: string[]
  /**
   * `unshare`, when copy-on-write views (views.ts) mount here: setup then sees the runner's
   * package caches through them. Without, setup gets empty private caches (slower, same safety).
   */
  unshare?: string
  /**
   * `nsenter`, beside unshare: a task's cages then enter its view, mounted once (views.ts
   * holdView), instead of each mounting its own. Without, each cage mounts it (slower on big
   * repositories, same walls).
   */
  nsenter?: string
}

export class SandboxUnavailable extends Error {
  override name = 'SandboxUnavailable'
}

const PACKAGES = ['bubblewrap', 'socat', 'ripgrep']
const USERNS_SYSCTL = 'kernel.apparmor_restrict_unprivileged_userns'
const OTHERWISE =
  "or set isolation: container, or isolation: process (no boundary: workers can then read the runner's secrets and use sudo)"

/**
 * The first `name` on PATH that may be run. Synchronous, as systemLayout: a dozen stat calls take
 * microseconds, where each through the thread pool waited for an event loop busy with the clone's
 * git processes (the preflight's probes began 150-350 ms after it did: docs/performance.md).
 */
function onPath(name: string, pathVar: string | undefined): string | undefined {
  for (const dir of (pathVar ?? '').split(':').filter(d => path.isAbsolute(d))) {
    const file = path.join(dir, name)
    try {
      accessSync(file, constants.X_OK)
      return file
    } catch {
      // Not here, or not executable: the next dir.
    }
  }
  return undefined
}

/** Where `p` leads, or undefined when it leads nowhere. */
function realpathOrUndefined(p: string): string | undefined {
  try {
    return realpathSync(p)
  } catch {
    return undefined
  }
}

/** The host's root as the sandbox shows it: each system path that exists, a symlink kept so. */
export function systemLayout(): { system: SystemEntry[]; extraReadOnly: string[] } {
  const system: SystemEntry[] = []
  for (const p of SYSTEM_PATHS) {
    const stat = lstatSync(p, { throwIfNoEntry: false })
    if (stat?.isSymbolicLink()) system.push({ kind: 'symlink', path: p, target: readlinkSync(p) })
    else if (stat?.isDirectory()) system.push({ kind: 'dir', path: p })
  }
  // systemd-resolved's resolv.conf is a symlink into /run, which the sandbox does not show.
  const resolv = realpathOrUndefined('/etc/resolv.conf')
  const shown = (p: string) => system.some(e => e.kind === 'dir' && p.startsWith(`${e.path}/`))
  const extraReadOnly = resolv && !shown(resolv) ? [resolv] : []
  return { system, extraReadOnly }
}

/** Root, or passwordless sudo: the command prefix that elevates, or undefined. */
async function elevation(env: NodeJS.ProcessEnv): Promise<string[] | undefined> {
  if (process.getuid?.() === 0) return []
  const sudo = onPath('sudo', env.PATH)
  if (
    sudo &&
    (await run(sudo, ['-n', 'true'], { env: systemEnv(env), timeoutMs: 10_000 })).exitCode === 0
  )
    return [sudo, '-n']
  return undefined
}

async function elevated(prefix: string[], args: string[], env: NodeJS.ProcessEnv): Promise<Ran> {
  const [file, ...rest] = [...prefix, ...args]
  return run(file ?? args[0] ?? 'true', rest, {
    env: systemEnv(env, ['DEBIAN_FRONTEND']),
    timeoutMs: 300_000
  })
}

async function installMissing(env: NodeJS.ProcessEnv, log: (m: string) => void): Promise<void> {
  const tools = { bubblewrap: 'bwrap', socat: 'socat', ripgrep: 'rg' } as Record<string, string>
  const missing: string[] = []
  for (const pkg of PACKAGES) if (!onPath(tools[pkg] ?? pkg, env.PATH)) missing.push(pkg)
  if (missing.length === 0) return
  const prefix = await elevation(env)
  if (!prefix) return
  const aptEnv = { ...env, DEBIAN_FRONTEND: 'noninteractive' }
  log(`isolation: sandbox needs ${missing.join(', ')}: installing with apt-get (passwordless sudo)`)
  const install = ['apt-get', 'install', '-y', '-qq', '--no-install-recommends', ...missing]
  let result = await elevated(prefix, install, aptEnv)
  if (result.exitCode !== 0) {
    await elevated(prefix, ['apt-get', 'update', '-qq'], aptEnv)
    result = await elevated(prefix, install, aptEnv)
  }
  if (result.exitCode !== 0)
    log(`apt-get install failed: ${result.stderr.trim().split('\n').pop()}`)
}

/** The trivial command: a sandbox with every namespace, as the workers get. */
async function probe(bwrap: string, layout: ReturnType<typeof systemLayout>) {
  const binds = layout.system.flatMap(e =>
    e.kind === 'dir' ? ['--ro-bind', e.path, e.path] : ['--symlink', e.target, e.path]
  )
  const args = ['--unshare-user', '--unshare-pid', '--unshare-net', '--unshare-ipc']
  args.push('--die-with-parent', '--new-session', ...binds, '--proc', '/proc', '--dev', '/dev')
  args.push('--', 'sh', '-c', 'exit 0')
  return run(bwrap, args, { env: { PATH: '/usr/bin:/bin' }, timeoutMs: 30_000 })
}

/** Ubuntu 24.04: AppArmor forbids unprivileged user namespaces unless lifted (runner-images#10443). */
async function liftUsernsRestriction(env: NodeJS.ProcessEnv, log: (m: string) => void) {
  const file = `/proc/sys/${USERNS_SYSCTL.replace(/\./g, '/')}`
  const value = await readFile(file, 'utf8').catch(() => '')
  if (value.trim() !== '1') return false
  const prefix = await elevation(env)
  if (!prefix) return false
  log(
    `Lifting AppArmor's restriction on user namespaces for this run: sysctl -w ${USERNS_SYSCTL}=0`
  )
  const result = await elevated(prefix, ['sysctl', '-w', `${USERNS_SYSCTL}=0`], env)
  return result.exitCode === 0
}

/** Checks (and where it may, prepares) this machine for isolation: sandbox. */
export async function preflightSandbox(
  env: NodeJS.ProcessEnv,
  log: (message: string) => void,
  /**
   * Begun once bwrap and the layout are known, beside the probes (the worker binary's own check
   * in a cage, isolation.ts), and again after a lifted restriction; awaited before a failure is
   * thrown, so nothing it started outlives the preflight. What it found is its caller's to read.
   */
  beside?: (host: SandboxHost) => Promise<unknown>
): Promise<SandboxHost> {
  const bwrap = await sandboxTools(env, log)
  const layout = systemLayout()
  // The views probe needs nothing of bwrap's: the two run side by side (docs/performance.md), and
  // what each found is told in the same order as when they ran one after the other.
  // A failure of it is met where it is awaited, as before (a rejection no one handles yet would
  // end the process).
  const settled = (p: Promise<unknown>) =>
    p.then(
      () => undefined,
      () => undefined
    )
  let views = viewsHere(env)
  void settled(views)
  let besides = settled(beside?.({ bwrap, ...layout }) ?? Promise.resolve())
  let tried = await probe(bwrap, layout)
  if (tried.exitCode !== 0 && (await liftUsernsRestriction(env, log))) {
    // The restriction just lifted may be what the views probe met too: it is asked again.
    await Promise.all([settled(views), besides])
    views = viewsHere(env)
    void settled(views)
    besides = settled(beside?.({ bwrap, ...layout }) ?? Promise.resolve())
    tried = await probe(bwrap, layout)
  }
  if (tried.exitCode !== 0) {
    // Nothing the preflight started is left running when it fails; bwrap's failure is the one told.
    await Promise.all([settled(views), besides])
    const why = tried.stderr.trim().split('\n')[0] || `exit ${tried.exitCode}`
    throw new SandboxUnavailable(
      `isolation: sandbox cannot start on this runner (${why}): allow unprivileged user namespaces (on Ubuntu 24.04: sudo sysctl -w ${USERNS_SYSCTL}=0), ${OTHERWISE}.`
    )
  }
  log(`sandbox: ${bwrap} works here (own user, PID and network namespaces; no new privileges)`)
  const { unshare, why } = await views
  if (why)
    log(
      `setup gets empty private package caches, not a copy-on-write view of the runner's (${why}): it works, but downloads what it needs.`
    )
  const nsenter = unshare ? onPath('nsenter', env.PATH) : undefined
  return { bwrap, ...layout, unshare, ...(nsenter ? { nsenter } : {}) }
}

/** bwrap, with socat beside it (installed where the runner may elevate), else one sentence why not. */
async function sandboxTools(env: NodeJS.ProcessEnv, log: (message: string) => void) {
  if (process.platform !== 'linux')
    throw new SandboxUnavailable(
      `isolation: sandbox needs Linux with bubblewrap, and this is ${process.platform}: ${OTHERWISE}.`
    )
  await installMissing(env, log)
  const bwrap = onPath('bwrap', env.PATH)
  const socat = onPath('socat', env.PATH)
  if (!bwrap || !socat)
    throw new SandboxUnavailable(
      `isolation: sandbox needs ${[bwrap ? '' : 'bwrap', socat ? '' : 'socat'].filter(Boolean).join(' and ')} on the runner: install them (sudo apt-get install -y bubblewrap socat ripgrep), ${OTHERWISE}.`
    )
  if (!onPath('rg', env.PATH))
    log(
      'ripgrep (rg) is not installed: the worker has no fast search tool (apt-get install ripgrep).'
    )
  return bwrap
}

/** `unshare` if copy-on-write views mount here; otherwise why not, for the log to say what setup gets. */
async function viewsHere(env: NodeJS.ProcessEnv): Promise<{ unshare?: string; why?: string }> {
  const unshare = onPath('unshare', env.PATH)
  const why = unshare ? await viewsFail(unshare) : 'unshare (util-linux) is not installed'
  return why ? { why } : { unshare }
}
