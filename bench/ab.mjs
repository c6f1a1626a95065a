// npm run bench:ab — two builds of the action side by side on a shared machine: runs alternate
// (A, B, A, B, ...) so a load that comes and goes falls on both. Each round: one task alone in
// isolation: process (cold start to the first worker, own overhead = task duration - worker
// wall), one task alone in the sandbox (the action's wall, its worker's first model request from
// the action's start, and the task's duration), and a batch
// of BENCH_TASKS at max-parallel BENCH_TASKS in isolation: process (own overhead per task).
//   BENCH_AB_DIST   the other build's dist/ directory (A); B is this checkout's dist/
//   BENCH_ROUNDS    rounds (default 4); BENCH_TASKS (default 4); BENCH_DELAY_MS (default 500)
//   BENCH_AB_PARTS  which runs, comma-separated (default solo,sandbox,batch): the batch drives
//                   the load up for the next round's runs, so a small change to one task's path
//                   is measured with solo (and sandbox) alone
// Medians per build are printed, with the load before each round.
import path from 'node:path'
import { load, log, median, openBench, ROOT } from './common.mjs'

const A = process.env.BENCH_AB_DIST
if (!A) throw new Error('BENCH_AB_DIST: the dist/ directory of the build to compare against')
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4)
const N = Number(process.env.BENCH_TASKS ?? 4)
const DELAY = Number(process.env.BENCH_DELAY_MS ?? 500)
const BUILDS = { A: path.resolve(A), B: path.join(ROOT, 'dist') }
const BRANCHES_ONLY = { GITHUB_REPOSITORY: '' }
const PARTS = new Set((process.env.BENCH_AB_PARTS ?? 'solo,sandbox,batch').split(','))

const bench = await openBench()
const figures = { A: [], B: [] }
let n = 0
async function once(build, round) {
  const cmd = [process.execPath, path.join(BUILDS[build], 'index.js')]
  const id = p => `ab${++n}-${p}`
  const solo = await bench.action(`solo-${build}-${round}`, {
    inputs: { tasks: JSON.stringify([bench.task(id('p'), DELAY)]) },
    env: BRANCHES_ONLY,
    cmd
  })
  const worker = solo.spans[0]
  const f = {
    coldStart: worker.start - solo.m.t0,
    // The action's whole wall for one task: from its spawn to its exit, the tail after the task included.
    soloWall: solo.m.t1 - solo.m.t0,
    soloOverhead: solo.results[0]['duration-ms'] - (worker.end - worker.start),
    landed: solo.landed
  }
  if (PARTS.has('sandbox')) {
    const seen = bench.stack.model.requests.length
    const sandbox = await bench.action(`sandbox-${build}-${round}`, {
      inputs: {
        tasks: JSON.stringify([bench.task(id('s'), DELAY)]),
        isolation: 'sandbox',
        'claude-path': ''
      },
      env: BRANCHES_ONLY,
      cmd
    })
    f.sandboxWall = sandbox.m.t1 - sandbox.m.t0
    // The worker's first model request, from the action's start: the cage's cold start.
    f.sandboxFirstRequest = (bench.stack.model.requests[seen]?.at ?? NaN) - sandbox.m.t0
    f.sandboxTask = sandbox.results[0]['duration-ms']
    f.landed += sandbox.landed
  }
  if (PARTS.has('batch')) {
    const batch = await bench.action(`batch-${build}-${round}`, {
      inputs: {
        tasks: JSON.stringify(Array.from({ length: N }, () => bench.task(id('b'), DELAY))),
        'max-parallel': String(N)
      },
      env: BRANCHES_ONLY,
      cmd
    })
    const walls = new Map(batch.spans.map(x => [x.id, x.end - x.start]))
    f.batchOverhead = median(batch.results.map(r => r['duration-ms'] - (walls.get(r.id) ?? NaN)))
    f.landed += batch.landed
  }
  figures[build].push(f)
  log(`${build} round ${round}: ${JSON.stringify(f)}`)
}
for (let round = 1; round <= ROUNDS; round++) {
  log(`round ${round}: ${load()}`)
  // Which build goes first alternates too.
  for (const build of round % 2 ? ['A', 'B'] : ['B', 'A']) await once(build, round)
}
await bench.close()
const keys = [
  'coldStart',
  'soloOverhead',
  'soloWall',
  'sandboxWall',
  'sandboxFirstRequest',
  'sandboxTask',
  'batchOverhead'
].filter(k => k in figures.A[0])
console.log(`\n| figure (median of ${ROUNDS}, ms) | A: ${A} | B: this dist/ |\n|---|---|---|`)
for (const k of keys)
  console.log(
    `| ${k} | ${median(figures.A.map(f => f[k]))} | ${median(figures.B.map(f => f[k]))} |`
  )
console.log(
  `landed: A ${figures.A.reduce((s, f) => s + f.landed, 0)}, B ${figures.B.reduce((s, f) => s + f.landed, 0)} of ${ROUNDS * (1 + (PARTS.has('sandbox') ? 1 : 0) + (PARTS.has('batch') ? N : 0))} each; ${load()}`
)
process.exit(0)
