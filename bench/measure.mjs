// Runs one command and measures it from outside, for bench/run.mjs. Used as the action's entry
// (run-action spawns `node <entry>`), so it takes its orders from the environment:
//   BENCH_MEASURE_CMD  JSON argv to run (default: node dist/index.js)
//   BENCH_MEASURE_OUT  file to write the figures to (JSON)
// CPU: this process's cutime + cstime (/proc/self/stat) after the child exits = the CPU of every
// descendant that was reaped (node reaps its workers and git, claude reaps its tools). Our own
// sampling is RUSAGE_SELF, so it is not counted.
// Peak RSS of the largest single process of the tree (exact, even for a process too short-lived to
// sample): GNU time's %M, i.e. getrusage(RUSAGE_CHILDREN).ru_maxrss, when /usr/bin/time is there.
// Memory: every 250 ms, the PSS of every live descendant (smaps_rollup), summed: PSS shares each
// shared page among the processes mapping it, so the sum does not double-count the claude binary
// as summed RSS would. Also MemAvailable's drop from before the start, and the child's VmHWM.
import { spawn } from 'node:child_process'
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'

const cmd = process.env.BENCH_MEASURE_CMD
  ? JSON.parse(process.env.BENCH_MEASURE_CMD)
  : [process.execPath, path.resolve(import.meta.dirname, '../dist/index.js')]
const out = process.env.BENCH_MEASURE_OUT
const TICK = 100 // CLK_TCK on Linux x86-64 (getconf CLK_TCK)

const kb = (text, field) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? 0)
const read = file => {
  try {
    return readFileSync(file, 'utf8')
  } catch {
    return ''
  }
}
// Fields after the command name, which may hold spaces: ppid is the 2nd, utime the 12th.
const statFields = text => text.slice(text.lastIndexOf(')') + 2).split(' ')

function descendants(root) {
  const children = new Map()
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue
    const f = statFields(read(`/proc/${name}/stat`))
    if (f.length < 2) continue
    const ppid = Number(f[1])
    if (!children.has(ppid)) children.set(ppid, [])
    children.get(ppid).push(Number(name))
  }
  const all = []
  const queue = [root]
  while (queue.length) {
    const pid = queue.shift()
    all.push(pid)
    queue.push(...(children.get(pid) ?? []))
  }
  return all
}

const memAvailable = () => kb(read('/proc/meminfo'), 'MemAvailable')
const baseAvail = memAvailable()
let minAvail = baseAvail
let peakPss = 0
let peakProcs = 0
let childHwm = 0
const t0 = Date.now()
const timeFile = out && existsSync('/usr/bin/time') ? `${out}.maxrss` : undefined
const argv = timeFile ? ['/usr/bin/time', '-f', '%M', '-o', timeFile, ...cmd] : cmd
const child = spawn(argv[0], argv.slice(1), { stdio: 'inherit' })
const sample = () => {
  const pids = descendants(child.pid)
  let pss = 0
  for (const pid of pids) pss += kb(read(`/proc/${pid}/smaps_rollup`), 'Pss')
  if (pss > peakPss) {
    peakPss = pss
    peakProcs = pids.length
  }
  minAvail = Math.min(minAvail, memAvailable())
  // The orchestrator: the child, or time's child.
  const orchestrator = timeFile ? pids[1] : child.pid
  if (orchestrator) childHwm = Math.max(childHwm, kb(read(`/proc/${orchestrator}/status`), 'VmHWM'))
}
const timer = setInterval(sample, 250)
child.on('exit', (code, signal) => {
  clearInterval(timer)
  const t1 = Date.now()
  const f = statFields(read('/proc/self/stat'))
  const cpuSeconds = (Number(f[13]) + Number(f[14])) / TICK // cutime, cstime
  const maxRssKb = timeFile ? Number(read(timeFile).trim().split('\n').pop()) || 0 : 0
  if (timeFile) rmSync(timeFile, { force: true })
  if (out) {
    writeFileSync(
      out,
      JSON.stringify({
        t0,
        t1,
        cpuSeconds,
        peakPssKb: peakPss,
        peakProcs,
        memAvailableDropKb: baseAvail - minAvail,
        orchestratorHwmKb: childHwm,
        maxRssKb,
        code,
        signal
      })
    )
  }
  process.exit(code ?? 1)
})
