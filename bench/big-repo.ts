/**
 * npm run bench:big-repo — issue #28's measure through the action itself (dist/, the real claude
 * CLI, real git over HTTP, the API mock): four one-file tasks at max-parallel 4, with a setup and a
 * verify that count the repository's files, on a tiny repository (10 files) and on generated ones
 * of BENCH_BIG_SIZES files (default 1000,20000,100000; ~200 bytes each, directories of 100). Prints
 * each run's per-task median (`duration-ms`, setup to PR), its wall time, and both against the tiny
 * run. In isolation: sandbox each task's files are a view of one checkout (docs/performance.md).
 * Run `npm run build` first: it runs dist/.
 */
import { readFile } from 'node:fs/promises'
import { script } from '../demo/model-server.js'
import { byId, GITHUB_TOKEN, startStack } from '../demo/stack.js'

const SIZES = (process.env.BENCH_BIG_SIZES ?? '1000,20000,100000').split(',').map(Number)
const IDS = ['big-1', 'big-2', 'big-3', 'big-4']

function generated(count: number): Record<string, string> {
  const files: Record<string, string> = { 'README.md': '# widgets\n', 'tasks/.keep': '' }
  for (let i = 0; i < count; i++)
    files[`src/d${Math.floor(i / 100)}/f${i % 100}.txt`] = `${`file ${i} `.repeat(20)}\n`
  return files
}

const count = (n: number) => `test "$(find src -type f | wc -l)" -eq ${n}`

const task = (n: number) => (id: string) => ({
  id,
  prompt: `Add ${id}.\n${script({
    key: `bench-${id}`,
    steps: [{ tool: 'Bash', input: { command: `echo ${id} > tasks/${id}.txt` } }, { text: 'Done.' }]
  })}`,
  verify: count(n)
})

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b)
  const mid = Math.floor(s.length / 2)
  return s.length % 2 ? (s[mid] ?? NaN) : ((s[mid - 1] ?? NaN) + (s[mid] ?? NaN)) / 2
}

async function measure(files: number): Promise<{ task: number; wall: number; isolation: string }> {
  const stack = await startStack({ files: generated(files) })
  try {
    const run = await stack.run({
      inputs: {
        tasks: JSON.stringify(IDS.map(task(files))),
        'max-parallel': '4',
        setup: count(files)
      },
      env: { GITHUB_TOKEN },
      timeoutMs: 3_600_000
    })
    const results = byId(run)
    const bad = IDS.filter(id => results.get(id)?.status !== 'pr-opened')
    if (run.exitCode !== 0 || bad.length > 0)
      throw new Error(
        `the run on ${files} files failed (${bad.join(', ')}):\n${run.stdout.slice(-3000)}`
      )
    const durations = IDS.map(id => results.get(id)?.['duration-ms'] ?? NaN)
    return { task: median(durations), wall: run.durationMs, isolation: stack.isolation }
  } finally {
    await stack.close()
  }
}

const load = async () => (await readFile('/proc/loadavg', 'utf8')).split(' ')[0]
const tiny = await measure(10)
console.log(
  `tiny (10 files, ${tiny.isolation}): task median ${tiny.task} ms, run ${tiny.wall} ms (load ${await load()})`
)
for (const n of SIZES) {
  const m = await measure(n)
  const x = (a: number, b: number) => (a / b).toFixed(2)
  console.log(
    `${n} files: task median ${m.task} ms (x${x(m.task, tiny.task)}), run ${m.wall} ms (x${x(m.wall, tiny.wall)}) (load ${await load()})`
  )
}
