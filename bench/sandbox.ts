/**
 * npm run bench:sandbox — what isolation: sandbox adds to each worker start, on this machine.
 * A worker attempt is started N times with a trivial command in place of claude (`true`), once as
 * a plain child process (isolation: process) and once through spawnSandboxed() exactly as a worker
 * goes (its own git clone, the model endpoint's forward and the allowlisting proxy, bwrap, socat,
 * then the commits collected and everything taken down). The difference is the sandbox's cost.
 * CPU is this process's own plus every reaped child's (/proc/self/stat cutime + cstime).
 * docs/performance.md records the figures. BENCH_SANDBOX_RUNS (default 20).
 */
import { execFileSync } from 'node:child_process'
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { preflightSandbox } from '../src/cage/sandbox-host.js'
import { spawnSandboxed } from '../src/cage/sandbox-run.js'
import { spawnWorker } from '../src/worker/spawn.js'

const N = Number(process.env.BENCH_SANDBOX_RUNS ?? 20)

async function childCpuMs(): Promise<number> {
  const fields = (await readFile('/proc/self/stat', 'utf8')).split(') ')[1]?.split(' ') ?? []
  const ticks = Number(fields[14]) + Number(fields[15]) // cutime, cstime
  return (ticks * 1000) / 100
}

function selfCpuMs(): number {
  const u = process.resourceUsage()
  return (u.userCPUTime + u.systemCPUTime) / 1000
}

async function measure(label: string, once: () => Promise<void>) {
  await once() // warm the page cache
  const walls: number[] = []
  const cpu0 = selfCpuMs() + (await childCpuMs())
  for (let i = 0; i < N; i++) {
    const t0 = performance.now()
    await once()
    walls.push(performance.now() - t0)
  }
  const cpu = (selfCpuMs() + (await childCpuMs()) - cpu0) / N
  walls.sort((a, b) => a - b)
  const median = walls[Math.floor(N / 2)] ?? NaN
  const p90 = walls[Math.min(N - 1, Math.ceil(N * 0.9) - 1)] ?? NaN
  console.log(
    `${label.padEnd(34)} wall median ${median.toFixed(1)} ms, p90 ${p90.toFixed(1)} ms; CPU ${cpu.toFixed(1)} ms`
  )
  return { median, cpu }
}

function git(cwd: string, ...args: string[]): void {
  execFileSync('git', ['-c', 'user.name=b', '-c', 'user.email=b@b', ...args], { cwd })
}

async function main(): Promise<void> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'fleet-bench-sandbox-'))
  const repo = path.join(root, 'repo')
  const worktree = path.join(root, 'worktrees', 'task')
  await mkdir(repo, { recursive: true })
  git(repo, 'init', '-q', '-b', 'main')
  for (let i = 0; i < 200; i++) git(repo, 'commit', '-q', '--allow-empty', '-m', `c${i}`)
  git(repo, 'update-ref', 'refs/remotes/origin/main', 'HEAD')
  git(repo, 'worktree', 'add', '-q', '-b', 'fleet/task', worktree, 'main')
  // Stands in for the model endpoint: the worker's forward is opened to it.
  const model = net.createServer(s => s.end()).listen(0, '127.0.0.1')
  await new Promise(r => model.once('listening', r))
  const port = (model.address() as net.AddressInfo).port

  const t0 = performance.now()
  const host = await preflightSandbox(process.env, m => console.log(`  preflight: ${m}`))
  console.log(`preflight (once per run): ${(performance.now() - t0).toFixed(0)} ms\n`)

  const cageDir = path.join(root, 'workers', 'task.1')
  const env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: path.join(cageDir, 'home'),
    TMPDIR: path.join(cageDir, 'tmp'),
    CLAUDE_CONFIG_DIR: path.join(cageDir, 'config')
  }
  for (const dir of [env.HOME, env.TMPDIR, env.CLAUDE_CONFIG_DIR])
    await mkdir(dir, { recursive: true })
  const io = { stdin: '', timeoutMs: 30_000, transcriptPath: path.join(root, 'transcript.jsonl') }

  // isolation: process starts a worker with spawnWorker() in its worktree: the baseline.
  const plain = await measure('process: spawnWorker true', async () => {
    const exit = await spawnWorker({ file: 'true', args: [], cwd: worktree, env, ...io })
    if (exit.exitCode !== 0) throw new Error(`true exited ${exit.exitCode}`)
  })
  const caged = await measure('sandbox: spawnSandboxed true', async () => {
    const exit = await spawnSandboxed(
      {
        setup: { host, allowed: [] },
        taskId: 'task',
        worktree,
        cageDir,
        modelUrl: `http://127.0.0.1:${port}`,
        command: ['/usr/bin/true'],
        env,
        log: m => console.log(m)
      },
      io
    )
    if (exit.exitCode !== 0)
      throw new Error(`sandboxed true exited ${exit.exitCode}: ${exit.stderrTail}`)
  })
  console.log(
    `\nload average during the runs: ${os
      .loadavg()
      .map(l => l.toFixed(1))
      .join(' ')} on ${os.availableParallelism()} cores`
  )
  console.log(
    `added per worker start: ${(caged.median - plain.median).toFixed(1)} ms wall, ${(caged.cpu - plain.cpu).toFixed(1)} ms CPU (target <= 150 ms wall)`
  )
  model.close()
  await rm(root, { recursive: true, force: true })
}

await main()
