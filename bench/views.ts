/**
 * npm run bench:views — what a task's start costs in time and disk on repositories of 1k, 20k and
 * 100k files (BENCH_VIEWS_SIZES), today's way and with a copy-on-write view:
 *   worktree — `git worktree add` of the base in the fleet's clone (what each task gets today):
 *              every file written again; its disk is the whole checkout plus its index;
 *   view     — a view of one shared checkout at the task's path (cage/views.ts), mounted in its
 *              own namespace with a file written through it; its disk is its private layer.
 * Each is started BENCH_VIEWS_RUNS times (default 4, as a four-task run) after one warm-up
 * (BENCH_VIEWS_WARMUP=0: none); the medians are printed. The repository is demo/big-repo.ts's
 * (~200-byte files in directories of 100). docs/performance.md records it.
 */
import { execFileSync } from 'node:child_process'
import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { writeBigRepo } from '../demo/big-repo.js'
import { run } from '../src/process.js'
import { dropView, makeView, withViews } from '../src/cage/views.js'

const SIZES = (process.env.BENCH_VIEWS_SIZES ?? '1000,20000,100000').split(',').map(Number)
const RUNS = Number(process.env.BENCH_VIEWS_RUNS ?? 4)
const env = {
  PATH: '/usr/bin:/bin',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 'bench',
  GIT_AUTHOR_EMAIL: 'bench@example.com',
  GIT_COMMITTER_NAME: 'bench',
  GIT_COMMITTER_EMAIL: 'bench@example.com'
}
const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', args, { cwd, env, stdio: 'pipe' })
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN
const duKb = (p: string) =>
  Number(execFileSync('du', ['-sk', p], { encoding: 'utf8' }).split('\t')[0])

async function repoOf(dir: string, files: number): Promise<void> {
  await writeBigRepo(dir, files)
  git(dir, 'init', '-q', '-b', 'main')
  git(dir, 'add', '-A')
  git(dir, 'commit', '-qm', 'base')
}

async function timeEach(n: number, once: (i: number) => Promise<number>) {
  if (process.env.BENCH_VIEWS_WARMUP !== '0') await once(-1) // warm-up
  const walls: number[] = []
  const disks: number[] = []
  for (let i = 0; i < n; i++) {
    const t0 = performance.now()
    const kb = await once(i)
    walls.push(performance.now() - t0)
    disks.push(kb)
  }
  return { ms: median(walls), kb: median(disks) }
}

async function worktrees(repo: string, work: string) {
  return timeEach(RUNS, i => {
    const dir = path.join(work, `wt-${i}`)
    git(repo, 'worktree', 'add', '-q', '--detach', dir, 'HEAD')
    const kb = duKb(dir) + duKb(path.join(repo, '.git', 'worktrees', `wt-${i}`))
    git(repo, 'worktree', 'remove', '--force', dir)
    return Promise.resolve(kb)
  })
}

async function views(shared: string, work: string) {
  return timeEach(RUNS, async i => {
    const at = path.join(work, `view-${i}`)
    await mkdir(at, { recursive: true })
    const view = await makeView(path.join(work, `layer-${i}`), shared, at)
    const cmd = withViews('/usr/bin/unshare', [view], {
      file: 'sh',
      args: ['-c', `echo changed > '${at}/src/d0/f0.txt'`]
    })
    const r = await run(cmd.file, cmd.args, { env })
    if (r.exitCode !== 0) throw new Error(r.stderr)
    const kb = duKb(view.upper)
    await dropView(view)
    await rm(at, { recursive: true, force: true })
    return kb
  })
}

async function main() {
  console.log(
    `load average: ${os
      .loadavg()
      .map(l => l.toFixed(1))
      .join(' ')}`
  )
  console.log('files    | worktree: start, disk | view: start, disk')
  for (const files of SIZES) {
    const work = await mkdtemp(path.join(os.tmpdir(), 'fleet-bench-views-'))
    const repo = path.join(work, 'repo')
    await repoOf(repo, files)
    const wt = await worktrees(repo, work)
    // The shared checkout: the clone's own work tree, made once per run.
    const v = await views(repo, work)
    const fmt = (r: { ms: number; kb: number }) =>
      `${r.ms.toFixed(0).padStart(6)} ms, ${String(r.kb).padStart(7)} KB`
    console.log(`${String(files).padEnd(8)} | ${fmt(wt)}      | ${fmt(v)}`)
    await rm(work, { recursive: true, force: true, maxRetries: 5 })
  }
  console.log(
    `load average: ${os
      .loadavg()
      .map(l => l.toFixed(1))
      .join(' ')}`
  )
}

await main()
