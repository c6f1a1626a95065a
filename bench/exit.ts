/**
 * npm run bench:exit — what the cage's exit (worker/exit.ts) adds to each task, on this machine:
 * a ten-file change sealed inside the sandbox (a second bwrap running the fixed git command line,
 * which commits and writes the bundle) and checked by the action (read as bytes, its header, its
 * pack through `index-pack --strict`, ancestry, gitlinks, the branch moved). Each round starts the task's branch
 * from its start commit again and rewrites ten files, then runs the sandbox with `true` in place
 * of claude, once without sealing and once with: the difference is the exit's cost. The process
 * isolation's exit (the seal as a plain child) is measured alone too.
 * docs/performance.md records the figures. BENCH_EXIT_RUNS (default 20).
 */
import { execFileSync } from 'node:child_process'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { Git } from '../src/git/git.js'
import { RefWriter } from '../src/git/ref-writer.js'
import { type TaskGit, sealAsChild } from '../src/worker/exit.js'
import { preflightSandbox } from '../src/cage/sandbox-host.js'
import { spawnSandboxed } from '../src/cage/sandbox-run.js'
import { settleCages } from '../src/cage/teardown.js'

const N = Number(process.env.BENCH_EXIT_RUNS ?? 20)

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=b', '-c', 'user.email=b@b', ...args], {
    cwd,
    encoding: 'utf8'
  }).trim()
}

function stats(walls: number[]) {
  const sorted = [...walls].sort((a, b) => a - b)
  return {
    median: sorted[Math.floor(sorted.length / 2)] ?? NaN,
    p90: sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.9) - 1)] ?? NaN
  }
}

async function main(): Promise<void> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'fleet-bench-exit-'))
  const repo = path.join(root, 'repo')
  const worktree = path.join(root, 'worktrees', 'task')
  await mkdir(path.join(repo, 'src'), { recursive: true })
  git(repo, 'init', '-q', '-b', 'main')
  for (let i = 0; i < 200; i++)
    await writeFile(path.join(repo, 'src', `f${i}.ts`), `export const v${i} = ${i}\n`)
  git(repo, 'add', '.')
  git(repo, 'commit', '-q', '-m', 'base')
  git(repo, 'update-ref', 'refs/remotes/origin/main', 'HEAD')
  git(repo, 'worktree', 'add', '-q', '-b', 'fleet/task', worktree, 'main')
  const start = git(repo, 'rev-parse', 'HEAD')
  const adminDir = git(worktree, 'rev-parse', '--absolute-git-dir')
  const model = net.createServer(s => s.end()).listen(0, '127.0.0.1')
  await new Promise(r => model.once('listening', r))
  const port = (model.address() as net.AddressInfo).port
  const host = await preflightSandbox(process.env, m => console.log(`  preflight: ${m}`))
  const cageDir = path.join(root, 'workers', 'task.1')
  const env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: path.join(cageDir, 'home'),
    TMPDIR: path.join(cageDir, 'tmp'),
    CLAUDE_CONFIG_DIR: path.join(cageDir, 'config')
  }
  for (const dir of Object.values(env).slice(1)) await mkdir(dir, { recursive: true })
  const task = (): TaskGit => ({
    id: 'task',
    repo: Git.create(repo),
    refs: new RefWriter(Git.create(repo)),
    branch: 'fleet/task',
    start,
    adminDir,
    keepDir: path.join(root, 'kept'),
    author: { name: 'fleet', email: 'fleet@example.com' },
    message: 'fleet(task): ten files'
  })
  let round = 0
  // The task's branch back at its start, and ten of its files changed: a fresh ten-file change.
  const tenFiles = async () => {
    git(repo, 'update-ref', 'refs/heads/fleet/task', start)
    // As the next cage gets it after an accepted seal (readyIndex, `read-tree --reset -i`):
    // unchanged entries keep their stat data, so the seal's `add --all` hashes the ten files, not
    // all 200.
    execFileSync('git', ['read-tree', '--reset', '-i', start], {
      cwd: repo,
      env: { ...process.env, GIT_INDEX_FILE: path.join(adminDir, 'index') }
    })
    round++
    for (let i = 0; i < 10; i++)
      await writeFile(
        path.join(worktree, 'src', `f${i}.ts`),
        `export const v${i} = ${round * 1000 + i}\n`
      )
  }
  const sandboxed = async (sealing?: TaskGit) => {
    const exit = await spawnSandboxed(
      {
        setup: { host, allowed: [] },
        taskId: 'task',
        worktree,
        cageDir,
        modelUrl: `http://127.0.0.1:${port}`,
        command: ['/usr/bin/true'],
        env,
        log: m => console.log(m),
        sealing
      },
      { stdin: '', timeoutMs: 60_000, transcriptPath: path.join(root, 'transcript.jsonl') }
    )
    if (exit.exitCode !== 0) throw new Error(`sandboxed true exited ${exit.exitCode}`)
    if (sealing?.refused) throw new Error(`refused: ${sealing.refused.reason}`)
    if (sealing && git(repo, 'rev-parse', 'refs/heads/fleet/task') === start)
      throw new Error('the ten files were not sealed')
  }
  const time = async (label: string, once: () => Promise<void>) => {
    await tenFiles()
    await once() // warm
    const walls: number[] = []
    for (let i = 0; i < N; i++) {
      await tenFiles()
      const t0 = performance.now()
      await once()
      walls.push(performance.now() - t0)
    }
    const s = stats(walls)
    console.log(
      `${label.padEnd(40)} wall median ${s.median.toFixed(1)} ms, p90 ${s.p90.toFixed(1)} ms`
    )
    return s
  }
  const plain = await time('sandbox: true, no exit', () => sandboxed())
  const sealed = await time('sandbox: true, then seal + check', () => sandboxed(task()))
  const child = await time('process: seal (plain child) + check', () =>
    sealAsChild(task(), worktree)
  )
  console.log(
    `\nload average: ${os
      .loadavg()
      .map(l => l.toFixed(1))
      .join(' ')} on ${os.availableParallelism()} cores`
  )
  console.log(
    `added per task by the exit (sandbox): ${(sealed.median - plain.median).toFixed(1)} ms median (target <= 100 ms, issue #40); process isolation's exit: ${child.median.toFixed(1)} ms`
  )
  model.close()
  await settleCages()
  await rm(root, { recursive: true, force: true })
}

await main()
