import { mkdir, realpath, writeFile } from 'node:fs/promises'
import {
  type Leftovers,
  LEFTOVERS_CHECK,
  parseStatus,
  quotedPath,
  readLeftovers,
  SETUP_CHECK,
  STATUS_ARGS
} from './setup-check.js'
import { layerPaths } from './setup-layer.js'
import type { CageCommand, ShortCage } from '../worker/launch.js'
import path from 'node:path'
import type { FleetConfig } from './options.js'
import type { Worktree } from '../git/repo.js'
import { SETUP_EXCLUDE } from '../cage/cage-git.js'
import { PASS_THROUGH } from '../worker/env.js'
import type { Isolation } from '../cage/isolation.js'
import type { TaskGit } from '../worker/exit.js'
import type { VerifyResult } from '../domain.js'
import { removeTree } from '../process/remove-tree.js'

/** What a package manager needs to reach its registry on a self-hosted runner; no secrets. */
const NETWORK = [
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'NO_PROXY',
  'http_proxy',
  'https_proxy',
  'no_proxy',
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
  'NODE_EXTRA_CA_CERTS',
  'GOPROXY'
] as const

/**
 * The runner's own download caches, where actions/setup-node, setup-python and setup-go restore
 * theirs: every task's setup reads them, through a copy-on-write view of its own in the sandbox
 * (what it writes there is dropped with it). Only setup gets them; what it installs lands in the
 * worktree, where the worker and verify see it.
 */
export function sharedCaches(host: NodeJS.ProcessEnv): Record<string, string> {
  const home = host.HOME
  if (!home) return {}
  const caches: Record<string, string> = {
    npm_config_cache: host.npm_config_cache ?? host.NPM_CONFIG_CACHE ?? path.join(home, '.npm'),
    // pip (~/.cache/pip) and Go's build cache (~/.cache/go-build) live here.
    XDG_CACHE_HOME: host.XDG_CACHE_HOME ?? path.join(home, '.cache'),
    GOMODCACHE: host.GOMODCACHE ?? path.join(host.GOPATH ?? path.join(home, 'go'), 'pkg', 'mod')
  }
  for (const name of ['PIP_CACHE_DIR', 'GOCACHE', 'YARN_CACHE_FOLDER']) {
    const value = host[name]
    if (value) caches[name] = value
  }
  return caches
}

/** Setup's environment: the worker's allowlist without the model, its own HOME and TMPDIR. */
export function setupEnv(
  isolation: Pick<Isolation, 'seesRunnerPaths'>,
  host: NodeJS.ProcessEnv,
  paths: { home: string; tmp: string; config: string }
): Record<string, string> {
  const env: Record<string, string> = {}
  for (const name of [...PASS_THROUGH, ...NETWORK]) {
    const value = host[name]
    if (value) env[name] = value
  }
  env.HOME = paths.home
  env.TMPDIR = paths.tmp
  // The sandbox keeps a caged command's writable dirs in one cage dir, found by this variable.
  env.CLAUDE_CONFIG_DIR = paths.config
  env.GIT_TERMINAL_PROMPT = '0'
  // A container sees only the worktree: the host's cache paths would not exist in it.
  if (isolation.seesRunnerPaths) Object.assign(env, sharedCaches(host))
  return env
}

/**
 * The runner's caches as the sandbox shows them to setup alone, each through a copy-on-write view
 * (cage/views.ts): setup reads what the runner restored and nothing it writes survives it. One
 * the runner lacks is not made: setup gets an empty private one. The worker and verify see none.
 */
async function cacheDirs(host: NodeJS.ProcessEnv): Promise<string[]> {
  const dirs = [...new Set(Object.values(sharedCaches(host)))].filter(d => path.isAbsolute(d))
  return Promise.all(dirs.map(d => realpath(d).catch(() => path.normalize(d))))
}

/** An untracked path `git status -z` printed, as an exclude pattern matching exactly it. */
export function excludePattern(file: string): string {
  return `/${file.replace(/[\\*?[]/g, c => `\\${c}`).replace(/ $/, '\\ ')}`
}

/**
 * Keeps what setup left out of every commit, the worker's own included: its untracked paths go
 * into an exclude file of this worktree alone (info/exclude is shared by all worktrees of the
 * clone), named by the worktree's own config. Tracked files setup changed would ride along in the
 * PR, so they fail the setup instead.
 */
async function excludeLeftovers(tree: Worktree, checked?: Leftovers): Promise<string | undefined> {
  const { tracked, untracked: paths } =
    checked ?? parseStatus((await tree.git.exec(STATUS_ARGS)).stdout)
  if (tracked.length > 0) {
    return `setup changed tracked files (${tracked.join(', ')}): a setup may only add untracked files (e.g. npm ci, not npm install)`
  }
  if (paths.length === 0) return undefined
  const file = path.join(tree.gitDir, SETUP_EXCLUDE)
  await writeFile(file, paths.map(excludePattern).join('\n') + '\n')
  // A view has no worktree config: the cages' clones take the file as their info/exclude.
  if (!tree.view) await tree.git.exec(['config', '--worktree', 'core.excludesFile', file])
  return undefined
}

export interface SetupRun {
  result: VerifyResult
  /** Set when the task must end here: a sentence with the output's tail. */
  error?: string
  /** The run's stop ended it: the task ends `cancelled`, not `failed`. */
  cancelled?: boolean
}

/** Why a setup that ran failed, or undefined when it passed. */
function setupFailure(command: string, result: VerifyResult): string | undefined {
  if (result.timedOut) return `setup '${command}' ran past its time limit (timeouts: setup)`
  if (result.signal) return `setup '${command}' was killed by ${result.signal}`
  if (result.exitCode !== 0) return `setup '${command}' exited with ${result.exitCode}`
  return undefined
}

/** Runs the `setup` input in a task's worktree before its worker (see Isolation.run). */
export async function runSetup(
  config: FleetConfig,
  s: {
    taskId: string
    tree: Worktree
    command: string
    /** A directory of the run's own, for setup's HOME, TMPDIR and config dir. */
    cageDir: string
    host: NodeJS.ProcessEnv
    log: (m: string) => void
    isolation: Isolation
    signal?: AbortSignal
    /** The task's git as the action holds it: with a view, setup's cage works in it. */
    exit?: TaskGit
  }
): Promise<SetupRun> {
  const paths = {
    home: path.join(s.cageDir, 'home'),
    tmp: path.join(s.cageDir, 'tmp'),
    config: path.join(s.cageDir, 'config')
  }
  await removeTree(s.cageDir)
  await Promise.all(Object.values(paths).map(p => mkdir(p, { recursive: true })))
  s.log(`[${s.taskId}] setup: ${s.command}`)
  const env = setupEnv(s.isolation, s.host, paths)
  const shared = s.isolation.bindsCaches ? await cacheDirs(s.host) : []
  const check = await viewCheck(s, env)
  const ran = await s.isolation.run({
    taskId: s.taskId,
    label: 'setup',
    cwd: s.tree.dir,
    env,
    command: s.command,
    task: s.tree.view ? s.exit : undefined,
    gitDir: s.tree.view ? undefined : s.tree.gitDir,
    ...check.cage,
    timeoutMs: config.setupTimeoutMs,
    host: s.host,
    log: s.log,
    shared,
    signal: s.signal
  })
  const result = { ...ran, command: s.command }
  if (result.cancelled !== undefined) {
    const error = `${result.cancelled} during setup '${s.command}'; no worker ran`
    s.log(`[${s.taskId}] ${error}`)
    return { result, error, cancelled: true }
  }
  return settled(s, result, check.checked)
}

/**
 * With a view the host cannot see what setup left: git lists it in a cage into a directory of
 * setup's own, and the action reads that file as data. In the sandbox, after setup's cage has
 * ended, in a second short one, and only for the paths setup changed (leftoversOfLayer);
 * elsewhere in setup's own cage, over the whole view (SETUP_CHECK). What setup's cage command
 * takes for it (`env` gains its variables), and the listing once setup ran. Without a view, the
 * action lists the worktree itself (excludeLeftovers).
 */
async function viewCheck(
  s: {
    taskId: string
    tree: Worktree
    command: string
    cageDir: string
    isolation: Isolation
    log: (m: string) => void
  },
  env: Record<string, string>
): Promise<{ cage: Partial<CageCommand>; checked?: () => Promise<Leftovers> }> {
  const view = s.tree.view
  if (!view) return { cage: {} }
  const out = path.join(s.cageDir, 'leftovers')
  await mkdir(out, { recursive: true })
  if (!s.isolation.checksAfter) {
    Object.assign(env, { FLEET_SETUP: s.command, FLEET_SETUP_OUT: out })
    const outDir = { path: out, variable: 'FLEET_SETUP_OUT' }
    return { cage: { command: SETUP_CHECK, outDir }, checked: () => readLeftovers(out) }
  }
  const started = Date.now()
  const log = (m: string) => s.log(`[${s.taskId}] ${m}`)
  let listed: Promise<Leftovers> | undefined
  const after = async (again: ShortCage) => {
    log(`setup passed in ${Date.now() - started} ms (its cage)`)
    listed = leftoversOfLayer(view, out, { ...env, FLEET_SETUP_OUT: out }, again, log)
    await listed.catch(() => undefined)
  }
  const checked = () => listed ?? Promise.reject(new Error('the check after setup did not run'))
  return { cage: { after }, checked }
}

/**
 * What setup left in a view, listed in a second short cage (the sandbox) by one `git status` of
 * only the paths its private layer holds (setup-layer.ts): no walk of every file of the task's
 * fresh mount. The whole view is walked instead where the layer cannot be read or is too large,
 * and when a probe shows a directory removed and made again (its hidden files are then named
 * exactly as the whole walk names them). The log says which.
 */
async function leftoversOfLayer(
  view: NonNullable<Worktree['view']>,
  out: string,
  env: Record<string, string>,
  again: ShortCage,
  log: (m: string) => void
): Promise<Leftovers> {
  const check = async (args: string[]) => {
    // Anything setup's cage left at the listing's path is gone before the check writes it.
    await removeTree(out)
    await mkdir(out, { recursive: true })
    const ran = await again(['sh', '-c', LEFTOVERS_CHECK, 'fleet-check', ...args], env)
    if (ran.exitCode !== 0)
      throw new Error(`git status exited ${ran.exitCode}: ${lastLines(ran.tail, 3)}`)
    return readLeftovers(out)
  }
  const started = Date.now()
  const layer = await layerPaths(view.upper, view.lower)
  if ('whole' in layer) {
    log(`setup's leftovers: the whole view walked (${layer.whole})`)
    return check(['all'])
  }
  if (layer.paths.length === 0) {
    log(`setup's leftovers: its private layer is empty, nothing to check`)
    return { tracked: [], untracked: [] }
  }
  const left = await check(['paths', ...layer.paths])
  const probes = new Set(layer.probes.map(quotedPath))
  if (left.tracked.some(t => probes.has(t))) {
    log(`setup's leftovers: the whole view walked (a directory was removed and made again)`)
    return check(['all'])
  }
  log(
    `setup's leftovers: ${layer.paths.length} path(s) of its private layer checked in ${Date.now() - started} ms, not the whole view`
  )
  return left
}

/** A setup that ran to its end: failed, or what it left excluded from every commit. */
async function settled(
  s: { taskId: string; tree: Worktree; command: string; log: (m: string) => void },
  result: VerifyResult,
  checked?: () => Promise<Leftovers>
): Promise<SetupRun> {
  const failed = setupFailure(s.command, result)
  if (failed) {
    s.log(`[${s.taskId}] ${failed}; no worker runs. Its output ends:\n${result.tail}`)
    return {
      result,
      error: `${failed}; no worker ran. Its output ends:\n${lastLines(result.tail)}`
    }
  }
  const error = checked
    ? await checked().then(
        checked => excludeLeftovers(s.tree, checked),
        (e: unknown) => `could not list what setup left in the task's files: ${String(e)}`
      )
    : await excludeLeftovers(s.tree)
  if (error) s.log(`[${s.taskId}] ${error}`)
  return { result, error }
}

function lastLines(text: string, n = 10): string {
  return text.split('\n').slice(-n).join('\n')
}
