// npm run bench:timeline — where one task's own time goes, process by process: the action through
// dist/ (one task alone, branches only, offline on the e2e stack) under
// `strace -f --seccomp-bpf -e trace=execve`, and every process it started (git, bwrap, sh, claude,
// ...) printed as a span from the action's start, with what it ran. Then the same for a batch.
//   BENCH_ISOLATION  sandbox (default) or process
//   BENCH_TASKS      the batch's size (default 4; 0: one task alone only)
//   BENCH_DELAY_MS   each model turn held (default 500)
// strace itself slows each process start a little (ptrace stops on execve alone with
// --seccomp-bpf): read the gaps and the order, not the last millisecond. Needs strace on PATH.
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { load, log, median, openBench, ROOT } from './common.mjs'

const ISOLATION = process.env.BENCH_ISOLATION ?? 'sandbox'
const N = Number(process.env.BENCH_TASKS ?? 4)
const DELAY = Number(process.env.BENCH_DELAY_MS ?? 500)

/** Spans of every process started under strace: pid, start and end (epoch ms), argv. */
function spans(file) {
  const procs = new Map()
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const m = /^(\d+)\s+(\d+\.\d+) (.*)$/.exec(line)
    if (!m) continue
    const [, pid, at, rest] = m
    const ms = Number(at) * 1000
    const exec = /^execve\("([^"]*)", \[(.*?)\](?:, \[.*\])?\) = 0$/.exec(rest)
    if (exec) {
      const argv = [...(exec[2] ?? '').matchAll(/"((?:[^"\\]|\\.)*)"/g)].map(a => a[1])
      const p = procs.get(pid)
      // A re-exec (sh -> git, env -> sh) keeps the pid: a new span from here.
      if (p && p.end === undefined) p.end = ms
      procs.set(`${pid}:${ms}`, { pid, start: ms, argv })
      procs.set(pid, procs.get(`${pid}:${ms}`))
    } else if (/^\+\+\+ (exited|killed)/.test(rest)) {
      const p = procs.get(pid)
      if (p && p.end === undefined) p.end = ms
    }
  }
  return [...new Set([...procs.entries()].filter(([k]) => k.includes(':')).map(([, v]) => v))]
}

/** What a process ran, in a few words: git's subcommand, bwrap's command, sh -c's first words. */
function label(argv) {
  const [file = '', ...args] = argv
  const name = path.basename(file)
  if (name === 'git') {
    let i = 0
    while (args[i] === '-c') i += 2
    return `git ${args.slice(i, i + 3).join(' ')}`.slice(0, 70)
  }
  if (name === 'bwrap') {
    const at = args.indexOf('--')
    return `bwrap -- ${args
      .slice(at + 1, at + 4)
      .map(a => path.basename(a))
      .join(' ')}`.slice(0, 70)
  }
  if (name === 'sh' && args[0] === '-c')
    return `sh -c ${(args[1] ?? '').replace(/\\n/g, ' ').slice(0, 40)}… ${args[2] ?? ''}`
  return `${name} ${args.slice(0, 3).join(' ')}`.slice(0, 70)
}

async function timeline(bench, name, tasks) {
  const traced = path.join(bench.tmp, `${name}.strace`)
  const before = load()
  const run = await bench.action(name, {
    inputs: {
      tasks: JSON.stringify(tasks),
      isolation: ISOLATION,
      ...(ISOLATION === 'sandbox' ? { 'claude-path': '' } : {})
    },
    env: { GITHUB_REPOSITORY: '' },
    cmd: [
      'strace',
      '-f',
      '--seccomp-bpf',
      '-ttt',
      '-v',
      '-s',
      '60',
      '-e',
      'trace=execve',
      '-e',
      'signal=none',
      '-o',
      traced,
      process.execPath,
      path.join(ROOT, 'dist/index.js')
    ]
  })
  const all = spans(traced).sort((a, b) => a.start - b.start)
  const action = all.find(p => p.argv.some(a => a.endsWith('dist/index.js')))
  const t0 = action?.start ?? all[0]?.start ?? 0
  // The worker: claude itself (the shim, in process isolation, runs it too), never a probe.
  const claude = all.filter(p => p.argv[1] === '-p' && p.argv.includes('--output-format'))
  log(
    `${name} (${ISOLATION}): ${run.landed}/${tasks.length} landed; ${all.length} processes; first worker at ${Math.round((claude[0]?.start ?? NaN) - t0)} ms; ${before}`
  )
  const overheads = run.results.map(r => r['duration-ms'])
  log(`${name}: task durations ${overheads.join(', ')} ms (median ${median(overheads)})`)
  console.log('  start ms    dur ms  pid      what')
  for (const p of all) {
    if (p === action) continue
    const dur = p.end === undefined ? '?' : (p.end - p.start).toFixed(1)
    console.log(
      `${(p.start - t0).toFixed(1).padStart(9)} ${dur.padStart(9)}  ${p.pid.padEnd(8)} ${label(p.argv)}`
    )
  }
  console.log(`${(action?.end - t0).toFixed(1).padStart(9)}            action exits`)
}

const bench = await openBench()
await timeline(bench, 'one task', [bench.task('tl-solo', DELAY)])
if (N > 0)
  await timeline(
    bench,
    `batch of ${N}`,
    Array.from({ length: N }, (_, i) => bench.task(`tl-${i + 1}`, DELAY))
  )
await bench.close()
process.exit(0)
