// Where the action's own time goes: one task alone (cold start) and a small batch, branches only,
// with the orchestrator under `node --cpu-prof`. Prints cold start, own overhead per task
// (task duration - worker wall), and the functions with the most self time, by file.
//   node bench/profile.mjs     (BENCH_TASKS=6, BENCH_DELAY_MS=500); profiles stay in .tmp/profile
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import path from 'node:path'
import { log, median, openBench, ROOT } from './common.mjs'

const N = Number(process.env.BENCH_TASKS ?? 6)
const DELAY = Number(process.env.BENCH_DELAY_MS ?? 500)
const DIR = path.join(ROOT, '.tmp/profile')
const CMD = [
  process.execPath,
  '--cpu-prof',
  `--cpu-prof-dir=${DIR}`,
  path.join(ROOT, 'dist/index.js')
]

/** Self time per function (ms), from a .cpuprofile's samples. */
function selfTimes(file) {
  const p = JSON.parse(readFileSync(file, 'utf8'))
  const byId = new Map(p.nodes.map(n => [n.id, n]))
  const ms = new Map()
  p.samples.forEach((id, i) => {
    const f = byId.get(id).callFrame
    const where = `${f.functionName || '(anonymous)'} ${path.basename(f.url || '')}:${f.lineNumber + 1}`
    ms.set(where, (ms.get(where) ?? 0) + (p.timeDeltas[i] ?? 0) / 1000)
  })
  const total = (p.endTime - p.startTime) / 1000
  return { total, top: [...ms].sort((a, b) => b[1] - a[1]).slice(0, 25) }
}

const bench = await openBench()
rmSync(DIR, { recursive: true, force: true })
mkdirSync(DIR, { recursive: true })
const runs = [
  ['solo', [bench.task('prof-solo', DELAY)]],
  ['batch', Array.from({ length: N }, (_, i) => bench.task(`prof-${i + 1}`, DELAY))]
]
for (const [name, tasks] of runs) {
  const before = new Set(readdirSync(DIR))
  const run = await bench.action(name, {
    inputs: { tasks: JSON.stringify(tasks) },
    env: { GITHUB_REPOSITORY: '' },
    cmd: CMD
  })
  const worker = new Map(run.spans.map(x => [x.id, x.end - x.start]))
  const overheads = run.results.map(r => r['duration-ms'] - worker.get(r.id))
  const first = Math.min(...run.spans.map(x => x.start))
  log(
    `${name}: ${run.landed}/${tasks.length} landed; cold start ${first - run.m.t0} ms; own overhead per task median ${median(overheads)} ms (${overheads.join(', ')})`
  )
  const file = readdirSync(DIR).find(f => !before.has(f) && f.endsWith('.cpuprofile'))
  const { total, top } = selfTimes(path.join(DIR, file))
  log(`${name}: profile ${file}, ${Math.round(total)} ms; most self time:`)
  for (const [where, t] of top) console.log(`  ${t.toFixed(1).padStart(7)} ms  ${where}`)
}
await bench.close()
process.exit(0)
