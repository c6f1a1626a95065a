// npm run bench: the fleet against its limits, and against the shell recipe, on this machine.
// Everything is offline: the e2e stack (scripted model holding each turn BENCH_DELAY_MS, git
// remote that checks the token, GitHub API mock), the real claude CLI, and dist/ as the runner runs
// it. docs/performance.md explains the method and records the figures.
//   BENCH_TASKS (24), BENCH_PARALLEL (6), BENCH_DELAY_MS (3000): for a quick try, e.g. 6, 3, 500.
import { writeFileSync } from 'node:fs'
import { mkdir } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { LANDED, log, median, openBench, quantile, ROOT, s } from './common.mjs'

const N = Number(process.env.BENCH_TASKS ?? 24)
const P = Number(process.env.BENCH_PARALLEL ?? 6)
const DELAY = Number(process.env.BENCH_DELAY_MS ?? 3000)
const ORCHESTRATOR_TASKS = 200
const QUEUED_ISSUES = 1000
const cores = os.availableParallelism()
const mb = kb => `${Math.round(kb / 1024)} MB`

const bench = await openBench()
const { h, stack, FULL } = bench

const taskPrompt = (key, delayMs) =>
  `Write ${key}.txt and count its lines.\n${h.script({
    key,
    delayMs,
    steps: [
      { tool: 'Write', input: { file_path: `${key}.txt`, content: `from ${key}\n` } },
      { tool: 'Bash', input: { command: `wc -l ${key}.txt` } },
      { text: `Wrote ${key}.txt.` }
    ]
  })}`
const batch = (prefix, n, delayMs) =>
  Array.from({ length: n }, (_, i) => ({
    id: `${prefix}${String(i + 1).padStart(2, '0')}`,
    prompt: taskPrompt(`${prefix}${String(i + 1).padStart(2, '0')}`, delayMs)
  }))

/** The action through dist/ (bench/common.mjs), failing with the tasks that did not land. */
async function action(name, opts) {
  const run = await bench.action(name, opts)
  return { result: run.result, m: run.m, results: run.results, spans: run.spans }
}

const allOpened = (rs, n) => rs.length === n && rs.every(r => r.status === 'pr-opened')
const figures = {}

// (d) and one worker's wall: a single task, alone on the machine, twice (the first warms caches).
const solo = []
for (const round of [1, 2]) {
  const run = await action(`solo${round}`, {
    inputs: { tasks: JSON.stringify(batch(`solo${round}-`, 1, DELAY)) }
  })
  const span = run.spans[0]
  if (!span || !allOpened(run.results, 1)) throw new Error('solo run did not open its PR')
  solo.push({
    coldStartMs: span.start - run.m.t0,
    workerMs: span.end - span.start,
    wallMs: run.m.t1 - run.m.t0
  })
  log(
    `solo ${round}: cold start ${span.start - run.m.t0} ms, worker ${s(span.end - span.start)}, action ${s(run.m.t1 - run.m.t0)}`
  )
}
const workerMs = median(solo.map(x => x.workerMs))
figures.d = { coldStartMs: solo.map(x => x.coldStartMs), workerMs: solo.map(x => x.workerMs) }

// (a) the batch through the action; (c) its per-task overhead. Twice: as configured (a PR per task)
// and branches only (no repository for the API, as the CLI without --repository), which is what the
// shell recipe does too, and isolates what opening the PRs costs.
async function fleetBatch(name, prefix, env) {
  log(`action (${name}): ${N} tasks at max-parallel ${P}, ${DELAY} ms per turn`)
  const run = await action(name, {
    inputs: { tasks: JSON.stringify(batch(prefix, N, DELAY)), 'max-parallel': String(P) },
    env
  })
  const wallMs = run.m.t1 - run.m.t0
  const latencyIdealMs = Math.ceil(N / P) * workerMs
  const cpuFloorMs = (run.m.cpuSeconds / cores) * 1000
  const worker = new Map(run.spans.map(x => [x.id, x.end - x.start]))
  const overheads = run.results.map(r => r['duration-ms'] - (worker.get(r.id) ?? NaN))
  const branches = await stack.git.branches(FULL)
  const landed = run.results.filter(
    r => LANDED.includes(r.status) && branches[`fleet/${r.id}`]
  ).length
  return {
    tasks: N,
    maxParallel: P,
    landed,
    prs: run.results.filter(r => r['pr-number'] !== null).length,
    wallMs,
    oneWorkerMs: workerMs,
    latencyIdealMs,
    cpuSeconds: run.m.cpuSeconds,
    cpuFloorMs,
    efficiency: Math.max(latencyIdealMs, cpuFloorMs) / wallMs,
    workerMsMedian: median([...worker.values()]),
    workerMsMax: Math.max(...worker.values()),
    overhead: {
      medianMs: median(overheads),
      p95Ms: quantile(overheads, 0.95),
      maxMs: Math.max(...overheads)
    },
    memory: {
      peakPssKb: run.m.peakPssKb,
      peakProcs: run.m.peakProcs,
      memAvailableDropKb: run.m.memAvailableDropKb,
      orchestratorHwmKb: run.m.orchestratorHwmKb
    }
  }
}
figures.a = await fleetBatch('with PRs', 'a', {})
figures.a2 = await fleetBatch('branches only', 'b', { GITHUB_REPOSITORY: '' })
const actionWall = figures.a.wallMs
const latencyIdeal = figures.a.latencyIdealMs
const cpuFloor = figures.a.cpuFloorMs
figures.c = { withPrs: figures.a.overhead, branchesOnly: figures.a2.overhead }
figures.e = { fleet: figures.a.memory }

// (b) the same batch by the shell recipe.
log(`shell recipe: ${N} tasks, at most ${P} at once`)
const recipeRun = await bench.recipe('recipe', batch('s', N, DELAY), P)
const recipe = recipeRun.m
const recipeExit = recipeRun.exitCode
const recipeLanded = recipeRun.landed
const recipeWall = recipe.t1 - recipe.t0
figures.b = {
  exitCode: recipeExit,
  landed: recipeLanded,
  wallMs: recipeWall,
  cpuSeconds: recipe.cpuSeconds,
  ratio: actionWall / recipeWall,
  ratioBranchesOnly: figures.a2.wallMs / recipeWall,
  peakPssKb: recipe.peakPssKb
}

// (f) request bytes per turn: the CLI's default tools beside the action's default selection.
const writesTask = key => ({
  id: key,
  prompt: `Write ${key}.txt\n${h.script({ key, steps: [{ tool: 'Write', input: { file_path: `${key}.txt`, content: `from ${key}\n` } }, { text: `Wrote ${key}.txt.` }] })}`
})
const bytes = async (name, inputs) => {
  const tasks = ['1', '2', '3'].map(i => writesTask(`${name}${i}`))
  const run = await action(name, {
    inputs: { tasks: JSON.stringify(tasks), 'max-parallel': '3', ...inputs }
  })
  const requests = tasks.flatMap(t =>
    stack.model.requestsFor(t.id).filter(r => r.outcome === 'reply')
  )
  let passes = allOpened(run.results, 3)
  for (const t of tasks)
    passes &&= (await stack.git.readFile(FULL, `fleet/${t.id}`, `${t.id}.txt`)) === `from ${t.id}\n`
  const first = requests.filter(r => r.step === 0).map(r => r.bodyBytes)
  return {
    perTurn: requests.reduce((a, r) => a + r.bodyBytes, 0) / requests.length,
    firstTurn: median(first),
    turns: requests.length,
    passes
  }
}
const cliDefault = await bytes('toolsall', { tools: 'default' })
const selection = await bytes('toolsdef', {})
// And without Glob and Grep (Bash can grep and find), to see what the two cost.
const fourTools = await bytes('tools4', { tools: 'Bash,Edit,Read,Write' })
figures.f = {
  cliDefault,
  selection,
  fourTools,
  ratio: selection.perTurn / cliDefault.perTurn,
  ratioFourTools: fourTools.perTurn / cliDefault.perTurn
}

// (e) the orchestrator alone: 200 tasks planned (dry-run); then 1,000 queued issues planned.
const planned = await action('plan200', {
  inputs: {
    tasks: JSON.stringify(
      batch('p', ORCHESTRATOR_TASKS, 0).map(t => ({ ...t, prompt: `Task ${t.id}` }))
    ),
    'dry-run': 'true'
  }
})
figures.e.orchestrator200HwmKb = planned.m.maxRssKb || planned.m.orchestratorHwmKb
figures.e.orchestrator200PssKb = planned.m.peakPssKb
figures.e.plan200Ms = planned.m.t1 - planned.m.t0
figures.e.plan200Tasks = planned.results.length
for (let i = 0; i < QUEUED_ISSUES; i++) {
  const day = new Date(Date.UTC(2025, 0, 1) + i * 60_000).toISOString()
  stack.github.addIssue({
    title: `Write notes/q${i}.md`,
    body: 'Please.',
    labels: ['fleet'],
    user: 'maria',
    created_at: day
  })
}
const apiBefore = stack.github.requests.length
const queue = await action('queue1000', {
  eventName: 'schedule',
  payload: h.schedule({ owner: h.OWNER, repo: h.REPO, cron: '17 3 * * *' }),
  inputs: { 'dry-run': 'true', 'max-tasks': String(QUEUED_ISSUES) }
})
figures.e.queue = {
  issues: QUEUED_ISSUES,
  planned: queue.results.length,
  wallMs: queue.m.t1 - queue.m.t0,
  apiRequests: stack.github.requests.length - apiBefore,
  hwmKb: queue.m.maxRssKb || queue.m.orchestratorHwmKb
}

await bench.close()

const machine = {
  cores,
  memoryGb: +(os.totalmem() / 2 ** 30).toFixed(1),
  cpu: os.cpus()[0]?.model ?? 'unknown',
  node: process.version,
  date: new Date().toISOString()
}
const a = figures.a
const a2 = figures.a2
const pct = x => `${(x * 100).toFixed(0)}%`
const overhead = o => `median ${o.medianMs} ms, p95 ${o.p95Ms} ms, max ${o.maxMs} ms`
const lines = [
  '',
  `Fleet Worker bench — ${machine.date}, ${machine.cores} cores, ${machine.memoryGb} GB, ${machine.cpu}, node ${machine.node}`,
  `batch: ${N} tasks, max-parallel ${P}, each 3 turns (Write, Bash, text) with the model holding every turn ${DELAY} ms`,
  '',
  `(a) action wall ${s(a.wallMs)} (${a.landed}/${N} landed, ${a.prs} PRs)`,
  `    latency ideal ceil(${N}/${P}) x one worker alone ${s(workerMs)} = ${s(latencyIdeal)}; CPU floor ${a.cpuSeconds.toFixed(1)} CPU-s / ${cores} cores = ${s(cpuFloor)}`,
  `    efficiency (larger limit / wall) = ${a.efficiency.toFixed(2)}   [target >= 0.85]   worker wall in the batch: median ${s(a.workerMsMedian)}, max ${s(a.workerMsMax)}`,
  `    branches only (no PRs): wall ${s(a2.wallMs)} (${a2.landed}/${N} landed), CPU ${a2.cpuSeconds.toFixed(1)} CPU-s, efficiency ${a2.efficiency.toFixed(2)}`,
  `(b) shell recipe wall ${s(figures.b.wallMs)} (${figures.b.landed}/${N} branches landed, ${figures.b.cpuSeconds.toFixed(1)} CPU-s); action / recipe = ${figures.b.ratio.toFixed(2)}   [target <= 1.1]; branches only / recipe = ${figures.b.ratioBranchesOnly.toFixed(2)}`,
  `(c) action overhead per task (task duration - worker wall): with PRs ${overhead(figures.c.withPrs)}; branches only ${overhead(figures.c.branchesOnly)}`,
  `(d) cold start, node dist/index.js to the first worker spawned: ${figures.d.coldStartMs.join(' ms, ')} ms`,
  `(e) orchestrator alone, ${ORCHESTRATOR_TASKS} tasks planned (dry-run): peak RSS ${mb(figures.e.orchestrator200HwmKb)} (${s(figures.e.plan200Ms)})`,
  `    whole fleet at P=${P}: peak summed PSS ${mb(a.memory.peakPssKb)} over ${a.memory.peakProcs} processes; MemAvailable drop ${mb(a.memory.memAvailableDropKb)}; orchestrator peak RSS ${mb(a.memory.orchestratorHwmKb)}; shell recipe peak PSS ${mb(figures.b.peakPssKb)}`,
  `    ${QUEUED_ISSUES} queued issues (schedule, dry-run): ${figures.e.queue.planned} planned in ${s(figures.e.queue.wallMs)}, ${figures.e.queue.apiRequests} API requests, peak RSS ${mb(figures.e.queue.hwmKb)}`,
  `(f) request bytes per turn: CLI default tools ${Math.round(cliDefault.perTurn)} B (first turn ${cliDefault.firstTurn}), action default ${Math.round(selection.perTurn)} B (first turn ${selection.firstTurn}) = ${pct(figures.f.ratio)}   [target <= 40%]`,
  `    Bash,Edit,Read,Write: ${Math.round(fourTools.perTurn)} B = ${pct(figures.f.ratioFourTools)}`,
  `    foundation scenario with the default selection: ${selection.passes ? 'passes' : 'FAILS'} (tools: default ${cliDefault.passes ? 'passes' : 'FAILS'}; four tools ${fourTools.passes ? 'passes' : 'FAILS'})`
]
console.log(lines.join('\n'))
await mkdir(path.join(ROOT, '.tmp'), { recursive: true })
writeFileSync(
  path.join(ROOT, '.tmp/bench-results.json'),
  JSON.stringify({ machine, N, P, DELAY, figures, solo }, null, 2)
)
log('figures saved to .tmp/bench-results.json')
process.exit(0)
