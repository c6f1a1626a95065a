// npm run bench:parallel — max-parallel: auto beside fixed pools and the shell recipe, in one run,
// offline (the e2e stack, the real claude CLI, dist/ as the runner starts it). Rows:
//   one task alone (twice; cold start and its wall)
//   latency-bound batch (BENCH_TASKS x 3 turns held BENCH_DELAY_MS): auto and fixed 6, branches
//     only and with PRs; auto against an endpoint that takes 4 requests at once (429s counted);
//     the shell recipe at 6 and at BENCH_TASKS
//   CPU-heavy batch (BENCH_CPU_TASKS, each burning a fixed amount of CPU in its Bash turn): auto,
//     fixed = cores, fixed 6, branches only
// and checks the targets of docs/performance.md. Defaults 24 tasks, 3000 ms, 12 CPU tasks; a quick
// try: BENCH_TASKS=8 BENCH_DELAY_MS=1000 BENCH_CPU_TASKS=4. BENCH_ONLY=cpu runs the CPU-heavy
// rows alone (figures to .tmp/bench-cpu.json); BENCH_ONLY=capped the capped endpoint's row alone
// (figures, each model request's timeline among them, to .tmp/bench-capped.json); BENCH_ONLY=overhead
// the auto branches-only row alone, BENCH_ROUNDS times (default 2; to .tmp/bench-overhead.json),
// each round once the CPU is quiet (common.mjs quiet()): the quick loop for a cut of the fleet's
// own overhead; it also prints the pushes' requests, the stand-in remote's median answer to a
// push (its own work, inside each task's overhead), how many pushes arrived while another was
// answered, and the gaps between one answer and the next push (a task whose push waited on
// another's shows as a short one). Every action row also gives the fleet's own
// CPU a task (the tree's CPU less its workers', each worker's to the clock tick): steadier than
// wall time on a shared machine. Figures also go to .tmp/bench-parallel.json.
// The load of the machine is printed beside every row: on a shared machine the figures move
// with it.
import { mkdirSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { load, log, median, openBench, quiet, ROOT, s } from './common.mjs'

const N = Number(process.env.BENCH_TASKS ?? 24)
const DELAY = Number(process.env.BENCH_DELAY_MS ?? 3000)
const CPU_N = Number(process.env.BENCH_CPU_TASKS ?? 12)
const CPU_DELAY = 500
// About 1.8 CPU-seconds of mawk per task on this machine: fixed work, not a fixed time.
const BURN = "awk 'BEGIN{for(i=0;i<6e7;i++)s+=i; print s}'"
const cores = os.availableParallelism()
const BRANCHES_ONLY = { GITHUB_REPOSITORY: '' }

const bench = await openBench()
const rows = []
const peakOf = summary => {
  const m =
    /Peak parallelism: (\d+) workers? at once \([^)]*\); it stopped there because ([^\n]*)\./.exec(
      summary
    )
  return m ? { peak: Number(m[1]), why: m[2] } : { peak: NaN, why: '?' }
}

/** One action row: wall, CPU, landed, peak parallelism and why, own overhead per task. */
async function actionRow(name, tasks, inputs, env = {}) {
  const before = load()
  const seen = bench.stack.github.requests.length
  const run = await bench.action(name, { inputs: { tasks: JSON.stringify(tasks), ...inputs }, env })
  const worker = new Map(run.spans.map(x => [x.id, x.end - x.start]))
  const overheads = run.results.map(r => r['duration-ms'] - (worker.get(r.id) ?? NaN))
  // With PRs: when each PR was opened (the API mock's answer), the gaps between them, and each
  // task's time from its worker's end to its PR: mostly the 1 s spacing of mutating requests.
  const workerEnd = new Map(run.spans.map(x => [x.id, x.end]))
  const prs = bench.stack.github.requests
    .slice(seen)
    .filter(r => r.method === 'POST' && /\/pulls$/.test(r.path) && r.status === 201)
    .map(r => ({ id: String(r.body?.head ?? '').replace(/^fleet\//, ''), at: r.at }))
    .sort((a, b) => a.at - b.at)
  const prGaps = prs.slice(1).map((p, i) => p.at - prs[i].at)
  const prWaits = prs.map(p => p.at - (workerEnd.get(p.id) ?? NaN)).filter(Number.isFinite)
  const row = {
    name,
    tasks: tasks.length,
    landed: run.landed,
    prs: run.results.filter(r => r['pr-number'] !== null).length,
    wallMs: run.m.t1 - run.m.t0,
    cpuSeconds: run.m.cpuSeconds,
    cpuFloorMs: (run.m.cpuSeconds / cores) * 1000,
    ...peakOf(run.summary),
    coldStartMs: Math.min(...run.spans.map(x => x.start)) - run.m.t0,
    overheadMedianMs: median(overheads),
    // The fleet's own CPU a task: the whole tree's, less what its workers took (a steadier figure
    // than the overhead's wall time on a shared machine, to compare two builds by).
    ownCpuMsPerTask: Math.round(
      (run.m.cpuSeconds * 1000 - run.spans.reduce((sum, x) => sum + (x.cpuMs ?? NaN), 0)) /
        tasks.length
    ),
    ...(prs.length > 0 && {
      prGapMinMs: Math.min(...prGaps),
      prGapMedianMs: median(prGaps),
      workerEndToPrMedianMs: median(prWaits)
    }),
    workerMedianMs: median([...worker.values()]),
    peakPssMb: Math.round(run.m.peakPssKb / 1024),
    peakProcs: run.m.peakProcs,
    memAvailableDropMb: Math.round(run.m.memAvailableDropKb / 1024),
    load: before,
    // Each worker's start and end from the action's start (ms): the shape of the ramp-up.
    spans: run.spans.map(x => [x.start - run.m.t0, x.end - run.m.t0]).sort((a, b) => a[0] - b[0])
  }
  rows.push(row)
  log(
    `${name}: ${s(row.wallMs)}, ${row.landed}/${row.tasks} landed, ${row.prs} PRs, peak ${row.peak} (${row.why}), ${row.cpuSeconds.toFixed(1)} CPU-s, overhead median ${row.overheadMedianMs} ms, own CPU ${row.ownCpuMsPerTask} ms a task, peak PSS ${row.peakPssMb} MB; before: ${before}`
  )
  if (prs.length > 0)
    log(
      `${name}: PRs opened ${row.prGapMinMs} ms apart at least (median ${row.prGapMedianMs} ms); worker end to its PR, median ${row.workerEndToPrMedianMs} ms`
    )
  return row
}

async function recipeRow(name, tasks, p) {
  const before = load()
  const run = await bench.recipe(name, tasks, p)
  const row = {
    name,
    tasks: tasks.length,
    landed: run.landed,
    wallMs: run.m.t1 - run.m.t0,
    cpuSeconds: run.m.cpuSeconds,
    cpuFloorMs: (run.m.cpuSeconds / cores) * 1000,
    peak: p,
    peakPssMb: Math.round(run.m.peakPssKb / 1024),
    load: before
  }
  rows.push(row)
  log(
    `${name}: ${s(row.wallMs)}, ${row.landed}/${row.tasks} landed, ${row.cpuSeconds.toFixed(1)} CPU-s; before: ${before}`
  )
  return row
}

const latency = prefix =>
  Array.from({ length: N }, (_, i) =>
    bench.task(`${prefix}${String(i + 1).padStart(2, '0')}`, DELAY)
  )
const heavy = prefix =>
  Array.from({ length: CPU_N }, (_, i) => {
    const id = `${prefix}${String(i + 1).padStart(2, '0')}`
    return bench.task(id, CPU_DELAY, BURN)
  })

// The same batch against an endpoint that takes 4 requests at once (z.ai's answer past it: 429
// without retry-after): the gateway learns the limit, queues the rest, and the scheduler starts
// workers to keep it busy. In the default isolation (the sandbox), so the figure includes its
// cost; the claude shim's log is out of the sandbox's sight, so this row has no worker spans.
const ENDPOINT_LIMIT = 4
/** Slot time the endpoint left unused between the first request and the last answer (ms). */
function lanesIdle(endpoint) {
  const answered = endpoint.filter(([, , outcome]) => outcome === 'reply')
  const span = Math.max(...answered.map(([, end]) => end))
  const busy = answered.reduce((sum, [start, end]) => sum + (end - start), 0)
  return ENDPOINT_LIMIT * span - busy
}
async function cappedRow() {
  const seen = bench.stack.model.requests.length
  bench.stack.model.setMaxConcurrent(ENDPOINT_LIMIT)
  const row = await actionRow(
    `auto, endpoint takes ${ENDPOINT_LIMIT} at once (sandbox)`,
    latency('ae'),
    { 'max-parallel': 'auto', isolation: 'sandbox', 'claude-path': '' },
    BRANCHES_ONLY
  )
  bench.stack.model.setMaxConcurrent(undefined)
  const endpointRequests = bench.stack.model.requests.slice(seen)
  row.refused = endpointRequests.filter(r => r.outcome === 'refused').length
  row.requests = endpointRequests.length
  // Each model request from the first one's arrival (ms): arrival, end, outcome, turn, task.
  const first = endpointRequests[0]?.at ?? 0
  row.endpoint = endpointRequests.map(r => [
    r.at - first,
    (r.closedAt ?? NaN) - first,
    r.outcome,
    r.step,
    path.basename(r.cwd ?? '')
  ])
  // Every task's three turns through ENDPOINT_LIMIT lanes: the endpoint's own floor.
  row.floorMs = (N * 3 * DELAY) / ENDPOINT_LIMIT
  row.lanesIdleMs = lanesIdle(row.endpoint)
  log(
    `${row.name}: ${row.refused} of ${row.requests} model requests refused with 429; ${s(row.wallMs)} against the endpoint's floor of ${s(row.floorMs)} (${(row.wallMs / row.floorMs).toFixed(2)}x); from the first request to the last answer, its ${ENDPOINT_LIMIT} slots sat idle ${s(row.lanesIdleMs)} of slot time`
  )
  return row
}
if (process.env.BENCH_ONLY === 'capped') {
  const row = await cappedRow()
  await bench.close()
  const ratio = row.wallMs / row.floorMs
  console.log(
    [
      '',
      `Fleet Worker capped-endpoint bench — ${new Date().toISOString()}, ${cores} cores, node ${process.version}`,
      `${N} tasks x 3 turns held ${DELAY} ms, endpoint takes ${ENDPOINT_LIMIT} at once; load before: ${row.load}; after: ${load()}`,
      `${row.landed}/${row.tasks} landed; wall ${s(row.wallMs)}; floor ${s(row.floorMs)}; ${ratio.toFixed(2)}x; refused ${row.refused} of ${row.requests} (${((100 * row.refused) / row.requests).toFixed(1)}%); peak ${row.peak} (${row.why})`,
      `${ratio <= 1.15 ? 'met' : 'MISSED'}: within 1.15x of the floor`,
      `${row.refused <= 0.1 * row.requests ? 'met' : 'MISSED'}: at most 10% of requests refused`
    ].join('\n')
  )
  mkdirSync(path.join(ROOT, '.tmp'), { recursive: true })
  writeFileSync(path.join(ROOT, '.tmp/bench-capped.json'), JSON.stringify(row, null, 2))
  process.exit(0)
}
/** The CPU-heavy batch: auto, then fixed pools of the cores and of 6; the best fixed wall. */
async function cpuRows() {
  const cpuAuto = await actionRow(
    'CPU-heavy, auto',
    heavy('ca'),
    { 'max-parallel': 'auto' },
    BRANCHES_ONLY
  )
  const cpuFixed = []
  for (const p of [...new Set([cores, 6])])
    cpuFixed.push(
      await actionRow(
        `CPU-heavy, fixed ${p}`,
        heavy(`c${p}-`),
        { 'max-parallel': String(p) },
        BRANCHES_ONLY
      )
    )
  return { cpuAuto, bestFixed: Math.min(...cpuFixed.map(r => r.wallMs)) }
}
if (process.env.BENCH_ONLY === 'cpu') {
  const { cpuAuto, bestFixed } = await cpuRows()
  await bench.close()
  const ratio = cpuAuto.wallMs / bestFixed
  console.log(
    `\nCPU-heavy: auto ${s(cpuAuto.wallMs)} against the best fixed pool's ${s(bestFixed)}: ${ratio.toFixed(2)}x; ${ratio <= 1.1 ? 'met' : 'MISSED'}: at most 1.1x`
  )
  mkdirSync(path.join(ROOT, '.tmp'), { recursive: true })
  writeFileSync(path.join(ROOT, '.tmp/bench-cpu.json'), JSON.stringify(rows, null, 2))
  process.exit(0)
}

if (process.env.BENCH_ONLY === 'overhead') {
  // The own-overhead row alone, BENCH_ROUNDS times (default 2): the quick loop for a cut.
  const runs = []
  const pushes = () => bench.stack.git.requests.filter(r => r.service === 'git-receive-pack')
  const before = pushes().length
  for (let round = 1; round <= Number(process.env.BENCH_ROUNDS ?? 2); round++) {
    await quiet()
    runs.push(
      await actionRow(
        `auto, branches only #${round}`,
        latency(`o${round}-`),
        { 'max-parallel': 'auto' },
        BRANCHES_ONLY
      )
    )
  }
  const requests = pushes().slice(before)
  const methods = requests.map(r => r.method)
  // The stand-in remote's own time for each push (its http-backend, receive-pack and their git on
  // this machine's cores): inside each task's overhead, where a runner would wait for GitHub.
  const posts = requests.filter(r => r.method === 'POST' && r.ms !== undefined)
  const answered = posts.map(r => r.ms)
  // A push that arrived while another was still being answered: the remote's work shared a core.
  const overlapping = posts.filter(p =>
    posts.some(q => q !== p && q.at <= p.at && p.at < q.at + q.ms)
  ).length
  const gaps = posts
    .slice(1)
    .map((p, i) => p.at - (posts[i].at + posts[i].ms))
    .sort((a, b) => a - b)
  await bench.close()
  console.log(
    `\nreceive-pack requests: ${methods.filter(m => m === 'POST').length} POST, ${methods.filter(m => m === 'GET').length} GET (the ref advertisement git push asks for first); the stand-in remote's answer to a POST: median ${median(answered)} ms; ${overlapping} arrived while another was answered; gap from one answer's end to the next arrival: p10 ${Math.round(gaps[Math.floor(gaps.length / 10)])} ms, median ${Math.round(median(gaps))} ms, ${gaps.filter(g => g < 30).length} under 30 ms`
  )
  console.log(
    `own overhead per task, median of each round: ${runs.map(r => `${r.overheadMedianMs} ms (load before ${r.load})`).join(', ')}; target 100 ms`
  )
  console.log(
    `the fleet's own CPU per task (the tree's CPU less its workers'), each round: ${runs.map(r => `${r.ownCpuMsPerTask} ms`).join(', ')}`
  )
  mkdirSync(path.join(ROOT, '.tmp'), { recursive: true })
  writeFileSync(path.join(ROOT, '.tmp/bench-overhead.json'), JSON.stringify(rows, null, 2))
  process.exit(0)
}

// One task alone, twice (the first warms the page cache).
const solo = []
for (const round of [1, 2])
  solo.push(
    await actionRow(
      `one task alone #${round}`,
      latency(`solo${round}-`).slice(0, 1),
      {},
      BRANCHES_ONLY
    )
  )
const alone = solo[1]

const autoB = await actionRow(
  'auto, branches only',
  latency('ab'),
  { 'max-parallel': 'auto' },
  BRANCHES_ONLY
)
const fixedB = await actionRow(
  'fixed 6, branches only',
  latency('fb'),
  { 'max-parallel': '6' },
  BRANCHES_ONLY
)
const autoE = await cappedRow()
const autoP = await actionRow('auto, with PRs', latency('ap'), { 'max-parallel': 'auto' })
const fixedP = await actionRow('fixed 6, with PRs', latency('fp'), { 'max-parallel': '6' })
const recipe6 = await recipeRow('shell recipe, 6 at once', latency('r6-'), 6)
const recipeN = await recipeRow(`shell recipe, ${N} at once`, latency('rn-'), N)

const { cpuAuto, bestFixed } = await cpuRows()
await bench.close()

const ceilingNote = (floorMs, targetMs) =>
  floorMs > targetMs
    ? `; out of reach at the hard cap of ${8 * cores}: ${Math.ceil(N / (8 * cores))} rounds of one task alone take ${s(floorMs)}`
    : ''
const mark = ok => (ok ? 'met' : 'MISSED')
const limitB = Math.max(alone.wallMs, autoB.cpuFloorMs)
const limitP = alone.wallMs + N * 1000
const targets = [
  [
    'branches only: auto wall <= 1.3 x max(one task alone, CPU floor)',
    `${s(autoB.wallMs)} vs 1.3 x ${s(limitB)} = ${s(1.3 * limitB)}`,
    autoB.wallMs <= 1.3 * limitB,
    // What no scheduler can beat at auto's hard cap (8 x cores): the batch in rounds of the cap,
    // each at least one task alone. Above the target, the target is out of reach here.
    ceilingNote(Math.ceil(N / (8 * cores)) * alone.wallMs, 1.3 * limitB)
  ],
  [
    'with PRs: auto wall <= 1.2 x (one task alone + N x 1 s)',
    `${s(autoP.wallMs)} vs 1.2 x ${s(limitP)} = ${s(1.2 * limitP)}`,
    autoP.wallMs <= 1.2 * limitP
  ],
  [
    'CPU-heavy: auto <= 1.1 x the best fixed pool',
    `${s(cpuAuto.wallMs)} vs 1.1 x ${s(bestFixed)} = ${s(1.1 * bestFixed)}`,
    cpuAuto.wallMs <= 1.1 * bestFixed
  ],
  [
    'capped endpoint kept busy: auto wall <= 1.15 x the endpoint floor (N x 3 turns / 4 lanes)',
    `${s(autoE.wallMs)} vs 1.15 x ${s(autoE.floorMs)} = ${s(1.15 * autoE.floorMs)}`,
    autoE.wallMs <= 1.15 * autoE.floorMs
  ],
  [
    'no 429 storm: at most 10% of requests refused by an endpoint that takes 4 at once',
    `${autoE.refused} of ${autoE.requests} (peak ${autoE.peak}: ${autoE.why})`,
    autoE.refused <= 0.1 * autoE.requests
  ],
  [
    'cold start <= 200 ms',
    `${solo.map(r => r.coldStartMs).join(' ms, ')} ms`,
    alone.coldStartMs <= 200
  ],
  [
    'own overhead per task <= 100 ms median (auto, branches only)',
    `${autoB.overheadMedianMs} ms`,
    autoB.overheadMedianMs <= 100
  ]
]
const perWorkerMb = Math.round(autoB.peakPssMb / Math.max(1, autoB.peak))
console.log(
  [
    '',
    `Fleet Worker parallel bench — ${new Date().toISOString()}, ${cores} cores, ${(os.totalmem() / 2 ** 30).toFixed(1)} GB, ${os.cpus()[0]?.model}, node ${process.version}`,
    `latency batch: ${N} tasks x 3 turns held ${DELAY} ms; CPU batch: ${CPU_N} tasks, turns held ${CPU_DELAY} ms, each burning ${BURN}`,
    '',
    '| row | wall | landed | peak at once (why) | CPU-s | CPU floor | overhead/task median | peak PSS | load before |',
    '|---|---|---|---|---|---|---|---|---|',
    ...rows.map(
      r =>
        `| ${r.name} | ${s(r.wallMs)} | ${r.landed}/${r.tasks}${r.prs ? `, ${r.prs} PRs` : ''} | ${r.peak}${r.why ? ` (${r.why})` : ''} | ${r.cpuSeconds.toFixed(1)} | ${s(r.cpuFloorMs)} | ${r.overheadMedianMs ?? '–'} ms | ${r.peakPssMb} MB | ${r.load} |`
    ),
    '',
    ...targets.map(([what, figure, ok, note = '']) => `${mark(ok)}: ${what}: ${figure}${note}`),
    `memory: auto's fleet peaked at ${autoB.peakPssMb} MB PSS with ${autoB.peak} workers (~${perWorkerMb} MB a worker, orchestrator included); MemAvailable fell ${autoB.memAvailableDropMb} MB`,
    `fixed 6 beside auto: branches only ${s(fixedB.wallMs)} vs ${s(autoB.wallMs)}; with PRs ${s(fixedP.wallMs)} vs ${s(autoP.wallMs)}; shell recipe 6: ${s(recipe6.wallMs)}, ${N}: ${s(recipeN.wallMs)}`
  ].join('\n')
)
mkdirSync(path.join(ROOT, '.tmp'), { recursive: true })
writeFileSync(
  path.join(ROOT, '.tmp/bench-parallel.json'),
  JSON.stringify({ N, DELAY, CPU_N, cores, rows, targets }, null, 2)
)
process.exit(0)
