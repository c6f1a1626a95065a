/**
 * npm run bench:setup-cache — what setup's copy-on-write view of the runner's npm cache costs.
 * A project of about 200 packages is cut from this repository's own package-lock.json (real
 * packages, real integrity hashes), its npm cache warmed once from the registry, then
 * `npm ci --offline` runs BENCH_SETUP_RUNS times (default 5) in each of three ways:
 *   host  — on the host, no sandbox;
 *   bound — in the sandbox with the cache bound read-write (how setup ran before: it could write
 *           the runner's cache);
 *   view  — in the sandbox through a copy-on-write view of the cache (how setup runs now).
 * node_modules is removed before each run. Run from the repository's root (npm run does). docs/performance.md records the figures.
 */
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { run } from '../src/process.js'
import { sandboxCommand, type SandboxSpec } from '../src/cage/sandbox.js'
import { preflightSandbox } from '../src/cage/sandbox-host.js'
import { dropView, makeView } from '../src/cage/views.js'

const N = Number(process.env.BENCH_SETUP_RUNS ?? 5)
const ROOTS = (
  process.env.BENCH_SETUP_ROOTS ?? 'eslint,typescript-eslint,vitest,@actions/github,execa'
).split(',')

type Entry = {
  dependencies?: Record<string, string>
  optionalDependencies?: Record<string, string>
  peerDependencies?: Record<string, string>
  peerDependenciesMeta?: Record<string, { optional?: boolean }>
  [k: string]: unknown
}

/** The lock path `name` resolves to from `from` (node's lookup: nearest node_modules upwards). */
function resolve(packages: Record<string, Entry>, from: string, name: string): string | undefined {
  for (let dir = from; ;) {
    const candidate = `${dir ? `${dir}/` : ''}node_modules/${name}`
    if (packages[candidate]) return candidate
    if (!dir) return undefined
    const cut = dir.lastIndexOf('/node_modules/')
    dir = cut === -1 ? '' : dir.slice(0, cut)
  }
}

/** The lockfile of a project depending on `roots`: their closure, entries as this repo has them. */
function cutLockfile(lock: { packages: Record<string, Entry> }, roots: string[]) {
  const packages = lock.packages
  const keep = new Set<string>()
  const queue = roots.map(r => `node_modules/${r}`)
  while (queue.length > 0) {
    const at = queue.pop() as string
    if (keep.has(at) || !packages[at]) continue
    keep.add(at)
    const e = packages[at]
    const names = [
      ...Object.keys(e.dependencies ?? {}),
      ...Object.keys(e.optionalDependencies ?? {}),
      ...Object.keys(e.peerDependencies ?? {}).filter(n => !e.peerDependenciesMeta?.[n]?.optional)
    ]
    for (const n of names) {
      const found = resolve(packages, at, n)
      if (found) queue.push(found)
    }
  }
  const devDependencies = Object.fromEntries(
    roots.map(r => [r, `^${String(packages[`node_modules/${r}`]?.version)}`])
  )
  const root = { name: 'bench-setup', version: '1.0.0', devDependencies }
  const entries = Object.fromEntries([...keep].sort().map(k => [k, packages[k]]))
  return {
    manifest: { ...root, private: true },
    lock: { ...root, lockfileVersion: 3, requires: true, packages: { '': root, ...entries } }
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN

async function timed(label: string, project: string, once: () => Promise<void>) {
  const walls: number[] = []
  for (let i = 0; i < N; i++) {
    await rm(path.join(project, 'node_modules'), { recursive: true, force: true })
    const t0 = performance.now()
    await once()
    walls.push(performance.now() - t0)
  }
  const fmt = (x: number) => `${(x / 1000).toFixed(2)} s`
  console.log(
    `${label.padEnd(6)} median ${fmt(median(walls))}  min ${fmt(Math.min(...walls))}  max ${fmt(Math.max(...walls))}`
  )
  return median(walls)
}

async function main() {
  const lock = <{ packages: Record<string, Entry> }>(
    JSON.parse(readFileSync(path.join(process.cwd(), 'package-lock.json'), 'utf8'))
  )
  const cut = cutLockfile(lock, ROOTS)
  const count = Object.keys(cut.lock.packages).length - 1
  const work = await mkdtemp(path.join(os.tmpdir(), 'fleet-bench-setup-'))
  const project = path.join(work, 'project')
  const cache = path.join(work, 'npm-cache')
  await mkdir(project)
  await writeFile(path.join(project, 'package.json'), JSON.stringify(cut.manifest, null, 2))
  await writeFile(path.join(project, 'package-lock.json'), JSON.stringify(cut.lock, null, 2))
  const npm = ['ci', '--no-audit', '--no-fund', '--ignore-scripts', '--cache', cache]
  console.log(`${count} packages (roots ${ROOTS.join(', ')}); warming ${cache} from the registry`)
  execFileSync('npm', npm, { cwd: project, stdio: 'inherit' })
  const env = { PATH: '/usr/bin:/bin', HOME: path.join(work, 'home'), npm_config_cache: cache }
  await mkdir(env.HOME)
  const host = await preflightSandbox({ PATH: process.env.PATH }, m => console.log(m))
  if (!host.unshare) throw new Error('views cannot mount here')
  const socket = path.join(work, 'proxy.sock')
  await writeFile(socket, '')
  const spec = (over: Partial<SandboxSpec>): SandboxSpec => ({
    bwrap: host.bwrap,
    system: host.system,
    extraReadOnly: host.extraReadOnly,
    worktree: project,
    cageDir: env.HOME,
    network: { proxySocket: socket, proxyPort: 3128 },
    command: ['npm', ...npm, '--offline'],
    env,
    ...over
  })
  const ok = async (file: string, args: string[]) => {
    const r = await run(file, args, { cwd: project, env, timeoutMs: 600_000 })
    if (r.exitCode !== 0) throw new Error(`${file} exited ${r.exitCode}: ${r.stderr.slice(-2000)}`)
  }
  const ids = { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 }
  const hostMs = await timed('host', project, () => ok('npm', [...npm, '--offline']))
  const boundMs = await timed('bound', project, async () => {
    const cmd = sandboxCommand(spec({ scratch: [{ dir: cache, at: cache }] }))
    await ok(cmd.file, cmd.args)
  })
  const viewMs = await timed('view', project, async () => {
    const view = await makeView(path.join(work, 'layer'), cache)
    try {
      const by = { unshare: host.unshare as string, ...ids }
      const cmd = sandboxCommand(spec({ views: [view], viewsBy: by }))
      await ok(cmd.file, cmd.args)
    } finally {
      await dropView(view)
    }
  })
  console.log(
    `view vs bound: ${((viewMs - boundMs) / 1000).toFixed(2)} s (${((viewMs / boundMs - 1) * 100).toFixed(1)}%); bound vs host: ${((boundMs - hostMs) / 1000).toFixed(2)} s`
  )
  console.log(
    `load average: ${os
      .loadavg()
      .map(l => l.toFixed(1))
      .join(' ')}`
  )
  await rm(work, { recursive: true, force: true })
}

await main()
