/**
 * Copy-on-write views: a directory shown at a path through an overlay whose upper layer is private
 * to one caged command, so the command may write all it likes there and the directory underneath
 * never changes. Used for setup's view of the runner's package caches; built to also show one
 * shared read-only checkout to many tasks (docs/performance.md, "One checkout, many views").
 *
 * How: bubblewrap 0.9 has `--overlay`, but 0.8 (Debian 12, Ubuntu 22.04) does not. The kernel
 * (5.11+) mounts an overlay inside an unprivileged user namespace, so the sandbox's command line is
 * wrapped: `unshare` makes a user namespace (the runner user as its root) with a private mount
 * namespace, mounts each view there with `mount -t overlay`, and execs bwrap, which nests its own
 * user namespace and maps the runner's uid and gid back (`--uid`, `--gid`). Nothing is mounted on
 * the host: the views vanish with the namespace. fuse-overlayfs would need /dev/fuse open to the
 * runner user, which is not so on every host.
 */
import { chmod, mkdir, mkdtemp, readdir, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import type { View } from '../domain.js'
import { run, startChild } from '../process.js'
import { removeTree } from '../process/remove-tree.js'

export class ViewError extends Error {}

/** One view's mount, its four paths as $1..$4 (VIEWS_INIT, HOLD_VIEW). */
const MOUNT_VIEW = [
  'mount -t overlay fleet-view -o "userxattr,lowerdir=$1,upperdir=$3,workdir=$4" -- "$2" ||',
  '  { echo "fleet: cannot mount a copy-on-write view of $1 at $2" >&2; exit 125; }'
]

/**
 * Mounts each view (lower, at, upper, work: four positional arguments each) in the namespace
 * `unshare` made, then becomes the command after `--`. Constant text: paths come as arguments.
 * `userxattr`: overlayfs keeps its whiteouts and opaque-dir marks in user.* xattrs, the only ones
 * a user namespace may set (without it, removing a directory of the lower layer fails with EIO).
 */
export const VIEWS_INIT = [
  'while [ "$1" != -- ]; do',
  ...MOUNT_VIEW.map(line => `  ${line}`),
  '  shift 4',
  'done',
  'shift; exec "$@"'
].join('\n')

/**
 * A held view (holdView): mounted once, then `ready`, then nothing until stdin ends, which comes
 * when the action ends the holder or dies; the namespace and its mount go with the last process
 * in it. Constant text: the paths come as arguments.
 */
export const HOLD_VIEW = [...MOUNT_VIEW, 'echo ready', 'read -r _ || :'].join('\n')

/** overlayfs splits its options on `,` and `:` and reads `\` as an escape. */
function checkPath(name: string, p: string): string {
  if (!path.isAbsolute(p) || path.normalize(p) !== p || /[,:\\\n\0]/.test(p) || p === '/')
    throw new ViewError(
      `A copy-on-write view's ${name} must be an absolute, normalised path without ',', ':', '\\' or a newline, got '${p}'.`
    )
  return p
}

const within = (child: string, parent: string) => child === parent || child.startsWith(`${parent}/`)

/** The views' checked positional arguments for VIEWS_INIT. */
function viewArgs(views: View[]): string[] {
  return views.flatMap(v => {
    const [lower, at, upper, work] = [
      (v.hide ? `${checkPath('hiding layer', v.hide)}:` : '') + checkPath('lower dir', v.lower),
      checkPath('mount point', v.at),
      checkPath('upper dir', v.upper),
      checkPath('work dir', v.work)
    ]
    const layers = [v.lower, at, ...(v.hide ? [v.hide] : [])]
    if ([upper, work].some(p => layers.some(l => within(p, l))))
      throw new ViewError(`A view's private layer (${upper}) must lie outside ${lower} and ${at}.`)
    return [lower, at, upper, work]
  })
}

const OWN_NAMESPACES = ['--user', '--map-root-user', '--mount', '--propagation', 'private']

/**
 * The command line that mounts the views, then runs `inner` (bwrap, started with the runner's ids
 * kept: see sandboxCommand). With `held` (the task's view, mounted once by holdView), it enters
 * that namespace with `nsenter`, where the task's view is mounted already, and mounts only
 * `views` (setup's caches) in a mount namespace of its own, so they stay with this command. Pure.
 */
export function withViews(
  unshare: string,
  views: View[],
  inner: { file: string; args: string[] },
  held?: { nsenter: string; pid: number }
): { file: string; args: string[] } {
  const init = ['sh', '-c', VIEWS_INIT, 'fleet-views', ...viewArgs(views), '--']
  if (held) {
    const enter = [
      '--target',
      String(held.pid),
      '--user',
      '--mount',
      '--preserve-credentials',
      '--'
    ]
    const own = views.length > 0 ? [unshare, '--mount', '--propagation', 'private', '--'] : []
    return { file: held.nsenter, args: [...enter, ...own, ...init, inner.file, ...inner.args] }
  }
  if (views.length === 0) return inner
  return { file: unshare, args: [...OWN_NAMESPACES, '--', ...init, inner.file, ...inner.args] }
}

/** A task's view held mounted for all its cages (holdView). */
export interface HeldView {
  view: View
  pid: number
  /**
   * False once the run's stop is given (the holder is being killed: a cage built then, such as a
   * cancelled task's seal, mounts its own view) and once the holder has ended (its pid may then be
   * another process's).
   */
  alive(): boolean
  /** Ends the holder; its mount goes with the last cage in its namespace. */
  stop(): Promise<void>
}

/**
 * Mounts `view` once in a user and mount namespace a small holder process keeps, so each of the
 * task's cages (setup, the worker, verify, their seals) enters it (withViews' `held`) instead of
 * mounting an overlay of its own: the overlay's first look at every file (on 20,000 files, a
 * tenth to half a second per cage) is paid once per task. The holder carries the stray marker,
 * is stopped by the run's `signal`, and ends by itself when the action dies (its stdin closes).
 */
export async function holdView(
  unshare: string,
  view: View,
  signal?: AbortSignal
): Promise<HeldView> {
  const args = [...OWN_NAMESPACES, '--', 'sh', '-c', HOLD_VIEW, 'fleet-view', ...viewArgs([view])]
  const child = startChild(unshare, args, {
    env: { PATH: '/usr/bin:/bin' },
    signal,
    holdStdin: true,
    // Its own constant script, and nothing else, runs under it (a cage enters its namespaces
    // through nsenter, a child of the action's, hunted itself): its group's kill ends it. No pass
    // over /proc at every task's end (docs/performance.md, "Where one task's own time goes").
    hunt: false
  })
  let ended = false
  const result = child.result.finally(() => (ended = true))
  const ready = await new Promise<boolean>(resolve => {
    let out = ''
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString()
      if (out.includes('ready\n')) resolve(true)
    })
    void result.then(() => resolve(false))
  })
  if (!ready || child.pid === undefined) {
    const r = await result
    const said = r.startError ?? (r.stderr.trim().split('\n').pop() || `exit ${r.exitCode}`)
    throw new ViewError(`The task's view of ${view.lower} could not be mounted: ${said}`)
  }
  return {
    view,
    pid: child.pid,
    alive: () => !ended && !signal?.aborted,
    stop: async () => {
      child.stdin?.end()
      await result
    }
  }
}

/** Drops a path that lies inside another of the list: the outer view shows it already. */
export function outermost(paths: string[]): string[] {
  const unique = [...new Set(paths)]
  return unique.filter(p => !unique.some(q => q !== p && within(p, q)))
}

/** A fresh private layer for a view of `lower` at `at`, in `dir` (made; removed by dropLayers). */
export async function makeView(dir: string, lower: string, at = lower): Promise<View> {
  const view = { lower, at, upper: path.join(dir, 'upper'), work: path.join(dir, 'work') }
  await mkdir(view.upper, { recursive: true })
  await mkdir(view.work, { recursive: true })
  return view
}

/**
 * Removes a view's private layers: overlayfs leaves `work/work` with mode 000, which the runner
 * user owns but cannot list, so it is opened first.
 */
export async function dropView(view: View): Promise<void> {
  await chmod(path.join(view.work, 'work'), 0o700).catch(() => undefined)
  await removeTree(view.upper)
  await removeTree(view.work)
}

/**
 * Whether views can be mounted here: one view of an empty directory, mounted and written through
 * (the preflight asks once per run). Undefined when they can, else why not, in a few words.
 */
export async function viewsFail(unshare: string): Promise<string | undefined> {
  const dir = await mkdtemp(path.join(tmpdir(), 'fleet-view-probe-'))
  try {
    const lower = path.join(dir, 'lower')
    await mkdir(lower)
    const view = await makeView(path.join(dir, 'layer'), lower)
    const probe = withViews(unshare, [view], { file: 'sh', args: ['-c', `: > '${lower}/probe'`] })
    const ran = await run(probe.file, probe.args, {
      env: { PATH: '/usr/bin:/bin' },
      timeoutMs: 30_000
    })
    await dropView(view)
    const leaked = await readdir(lower)
    if (ran.exitCode === 0 && leaked.length === 0) return undefined
    return ran.stderr.trim().split('\n').pop() || `exit ${ran.exitCode}`
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

/**
 * setup's caches, each shown through a view with a private layer in `dir` (one per cache), or an
 * empty private directory where the runner has none yet or views cannot mount here (`unshare`
 * undefined). Nothing setup writes reaches the runner's own directories either way.
 */
export async function cacheLayers(
  caches: string[],
  dir: string,
  unshare: string | undefined
): Promise<{ views: View[]; scratch: { dir: string; at: string }[] }> {
  const views: View[] = []
  const scratch: { dir: string; at: string }[] = []
  for (const [i, at] of outermost(caches).entries()) {
    const layer = path.join(dir, `cache-${i}`)
    const exists = await stat(at).then(
      s => s.isDirectory(),
      () => false
    )
    if (exists && unshare) views.push(await makeView(layer, at))
    else {
      await mkdir(layer, { recursive: true })
      scratch.push({ dir: layer, at })
    }
  }
  return { views, scratch }
}
