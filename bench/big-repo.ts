/**
 * npm run bench:big-repo — issue #28's measure through the action itself (dist/, the real claude
 * CLI, real git over HTTP, the API mock), for both ways a task's files can live:
 *   views     — isolation: sandbox, each task a copy-on-write view of the run's one checkout;
 *   worktrees — isolation: process, each task a `git worktree add` of its own (today's way).
 * On a tiny repository (10 files, the baseline) and on generated ones of BENCH_BIG_SIZES files
 * (default 1000,20000,100000; demo/big-repo.ts: ~200 bytes each, directories of 100), each way
 * runs four one-file tasks at max-parallel 4, with a setup and a verify that count the files, and
 * prints per row: the per-task median of `worker-start-ms` (the task's start to its worker's: its
 * files and setup) and of `duration-ms` (the task's start to its PR), the run's wall time (`node
 * dist/index.js` to exit), each against the tiny row of the same way, and the load average before
 * and after. Then one more task is run alone and held at its last model turn (after it wrote its
 * file) while the bench runs `du -sk` on what the task holds on disk: the view's private dir
 * (upper layer, overlay work dir, its own index) or the worktree and its admin dir, and for views
 * the run's one shared checkout. Timings come from the runs that are not held.
 * BENCH_BIG_WAYS=views or =worktrees runs one way only. BENCH_BIG_SETUP replaces the setup command
 * (say, one that also writes files, so setup's leftover check has paths to look at). Figures also go to
 * .tmp/bench-big-repo.json. Run `npm run build` first: it runs dist/.
 */
import { execFile } from 'node:child_process'
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { promisify } from 'node:util'
import { bigRepoFiles, oneFilePrompt, seesAllFiles } from '../demo/big-repo.js'
import { byId, GITHUB_TOKEN, type Stack, startStack } from '../demo/stack.js'

const exec = promisify(execFile)
const SIZES = (process.env.BENCH_BIG_SIZES ?? '1000,20000,100000').split(',').map(Number)
if (SIZES.some(n => !Number.isInteger(n) || n < 1))
  throw new Error(
    `BENCH_BIG_SIZES: '${process.env.BENCH_BIG_SIZES}' is not a list of file counts like 1000,20000.`
  )
const WAYS = {
  views: { isolation: 'sandbox', tag: 'view' },
  worktrees: { isolation: 'process', tag: 'tree' }
} as const
type Way = keyof typeof WAYS
const ways = (process.env.BENCH_BIG_WAYS ?? 'views,worktrees').split(',') as Way[]
for (const w of ways)
  if (!(w in WAYS)) throw new Error(`BENCH_BIG_WAYS: '${w}' is not one of views, worktrees.`)

/** One task: its file written by the worker's Bash, then a closing text (held there when asked). */
const task = (files: number, hold: boolean) => (id: string) => ({
  id,
  prompt: oneFilePrompt(id, `bench-${id}`, { commit: false, ...(hold ? { holdAt: 1 } : {}) }),
  verify: seesAllFiles(files)
})

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b)
  const mid = Math.floor(s.length / 2)
  return s.length % 2 ? (s[mid] ?? NaN) : ((s[mid - 1] ?? NaN) + (s[mid] ?? NaN)) / 2
}
const spread = (xs: number[]) => ({
  median: median(xs),
  min: Math.min(...xs),
  max: Math.max(...xs)
})
const load = async () => (await readFile('/proc/loadavg', 'utf8')).split(' ').slice(0, 3).join(' ')

/** Runs `ids` as tasks of one run in `way`; throws unless every task opened its PR. */
async function runTasks(stack: Stack, way: Way, files: number, ids: string[], hold = false) {
  const run = await stack.run({
    inputs: {
      tasks: JSON.stringify(ids.map(task(files, hold))),
      'max-parallel': String(ids.length),
      isolation: WAYS[way].isolation,
      setup: process.env.BENCH_BIG_SETUP || seesAllFiles(files)
    },
    env: { GITHUB_TOKEN },
    timeoutMs: 3_600_000
  })
  const results = byId(run)
  const bad = ids.filter(id => results.get(id)?.status !== 'pr-opened')
  if (run.exitCode !== 0 || bad.length > 0)
    throw new Error(
      `${way} on ${files} files: ${bad.join(', ')} failed:\n${run.stdout.slice(-3000)}`
    )
  if (/views cannot be mounted/.test(run.stdout))
    throw new Error(`${way} on ${files} files: the sandbox could not mount views on this machine.`)
  // Which base the views showed (the workspace's checkout or the run's own), and the check's time.
  const base = /task files: .*/.exec(run.stdout)?.[0]
  if (base) console.log(`  ${files} files: ${base}`)
  // The bench's own setup (a `find` over every file, standing in for a user's) against the
  // fleet's check of what it left (fleet/setup.ts logs both, per task).
  const ms = (re: RegExp) => [...run.stdout.matchAll(re)].map(m => Number(m[1]))
  const setupMs = ms(/setup passed in (\d+) ms/g)
  const checkMs = ms(/setup's leftovers: \d+ path\(s\) of its private layer checked in (\d+) ms/g)
  const whole = run.stdout.match(/setup's leftovers: the whole view walked \(.*\)/g) ?? []
  const empty = run.stdout.match(/setup's leftovers: its private layer is empty/g) ?? []
  const check = [
    checkMs.length ? `on its paths ${JSON.stringify(spread(checkMs))} ms` : '',
    empty.length ? `none for ${empty.length} task(s) (setup changed nothing)` : '',
    whole.length ? `${whole.length} whole walk(s): ${whole[0]}` : ''
  ].filter(Boolean)
  if (setupMs.length > 0)
    console.log(
      `  ${files} files: setup's cage ${JSON.stringify(spread(setupMs))} ms; its leftover check ${check.join('; ')}`
    )
  return { run, results }
}

interface Timed {
  loadBefore: string
  loadAfter: string
  workerStart: ReturnType<typeof spread>
  task: ReturnType<typeof spread>
  wallMs: number
}

async function timed(stack: Stack, way: Way, files: number): Promise<Timed> {
  const ids = [1, 2, 3, 4].map(k => `${WAYS[way].tag}-${k}`)
  const loadBefore = await load()
  const { run, results } = await runTasks(stack, way, files, ids)
  const loadAfter = await load()
  const field = (name: 'worker-start-ms' | 'duration-ms') =>
    spread(ids.map(id => Number(results.get(id)?.[name] ?? NaN)))
  return {
    loadBefore,
    loadAfter,
    workerStart: field('worker-start-ms'),
    task: field('duration-ms'),
    wallMs: Math.round(run.durationMs)
  }
}

/** `du -sk` of each path that exists (KB); du's complaints about unreadable dirs are ignored. */
async function duKb(paths: string[]): Promise<number> {
  let kb = 0
  for (const p of paths) {
    const r = await exec('du', ['-sk', p]).catch((e: { stdout?: string }) => ({
      stdout: e.stdout ?? ''
    }))
    kb += Number(r.stdout.split('\t')[0] || 0)
  }
  return kb
}

interface Disk {
  /** What the task holds on disk, its files and their git admin (index) together. */
  taskKb: number
  /** views: the private (upper) layer alone; worktrees: the work tree alone. */
  filesKb: number
  /** views: the run's one shared checkout (once per run, not per task); worktrees: 0. */
  sharedKb: number
  what: string
}

/** What one held task holds on disk, read from the host while its worker waits on the model. */
async function diskOf(way: Way, cwd: string): Promise<Disk> {
  const root = path.dirname(path.dirname(cwd))
  const id = path.basename(cwd)
  const admin = path.join(root, 'repo', '.git', 'worktrees')
  if (way === 'views') {
    const own = path.join(root, 'views', id)
    const upper = await duKb([path.join(own, 'upper')])
    if (upper === 0) throw new Error(`views: no private layer at ${own}/upper: was a view used?`)
    const shared = await duKb([path.join(root, 'checkouts'), admin])
    return { taskKb: await duKb([own]), filesKb: upper, sharedKb: shared, what: own }
  }
  const tree = await duKb([cwd])
  return {
    taskKb: tree + (await duKb([path.join(admin, id)])),
    filesKb: tree,
    sharedKb: 0,
    what: cwd
  }
}

/** One task alone, held after it wrote its file until its disk is read; then let go. */
async function disk(stack: Stack, way: Way, files: number): Promise<Disk> {
  const id = `${WAYS[way].tag}-disk`
  const key = `bench-${id}`
  let ended = false
  const running = runTasks(stack, way, files, [id], true).finally(() => (ended = true))
  const held = async () => {
    for (;;) {
      const rec = stack.model.requestsFor(key).find(r => r.step === 1)
      if (rec) return rec
      if (ended) throw new Error(`${id} ended before its held turn`)
      await new Promise(done => setTimeout(done, 100))
    }
  }
  try {
    const rec = await Promise.race([held(), running.then(() => undefined)])
    if (!rec) throw new Error(`${id} ended before its held turn`)
    if (!rec.cwd) throw new Error(`${id}: its held request named no working directory`)
    return await diskOf(way, rec.cwd)
  } finally {
    stack.model.release(key)
    await running
  }
}

type Row = { files: number; way: Way; timed: Timed; disk: Disk }

const x = (a: number, b: number | undefined) => (b ? `x${(a / b).toFixed(2)}` : '')
const mb = (kb: number) => (kb >= 1024 ? `${(kb / 1024).toFixed(1)} MB` : `${kb} KB`)

function line(r: Row, tiny: Row | undefined): string {
  const t = r.timed
  const range = (s: ReturnType<typeof spread>) => `${s.median} ms (${s.min}–${s.max})`
  return [
    `${r.way} ${r.files} files (load ${t.loadBefore} -> ${t.loadAfter}):`,
    `worker start ${range(t.workerStart)} ${x(t.workerStart.median, tiny?.timed.workerStart.median)}`,
    `task ${range(t.task)} ${x(t.task.median, tiny?.timed.task.median)}`,
    `run ${t.wallMs} ms ${x(t.wallMs, tiny?.timed.wallMs)}`,
    `disk per task ${mb(r.disk.taskKb)} (files ${mb(r.disk.filesKb)}), shared ${mb(r.disk.sharedKb)}`
  ].join('\n  ')
}

async function main() {
  const rows: Row[] = []
  const started = new Date().toISOString()
  for (const files of [10, ...SIZES]) {
    const t0 = performance.now()
    const stack = await startStack({ files: bigRepoFiles(files) })
    console.log(
      `${files} files generated, pushed and checked out in ${Math.round(performance.now() - t0)} ms`
    )
    try {
      for (const way of ways) {
        const row: Row = {
          files,
          way,
          timed: await timed(stack, way, files),
          disk: await disk(stack, way, files)
        }
        rows.push(row)
        console.log(
          line(
            row,
            rows.find(r => r.files === 10 && r.way === way)
          )
        )
      }
    } finally {
      await stack.close()
    }
  }
  await mkdir('.tmp', { recursive: true })
  await writeFile('.tmp/bench-big-repo.json', JSON.stringify({ started, rows }, null, 2))
}

await main()
