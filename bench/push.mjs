// npm run bench:push — what one push of several branches saves (issue #40 item 5): BENCH_TASKS
// branches pushed in one `git push` (one lease each, as FleetRepo.pushLanded does when tasks finish
// together), against one push a branch, all at once and one after another, over the e2e stack's
// HTTP remote; the three ways alternated, BENCH_ROUNDS rounds. Prints the wall and the CPU of the
// git processes (the client's and the stand-in remote's: this process's reaped children).
//   BENCH_TASKS   branches a round (default 4); BENCH_ROUNDS (default 6)
import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { promisify } from 'node:util'
import { load, log, median, openBench } from './common.mjs'

const run = promisify(execFile)
const N = Number(process.env.BENCH_TASKS ?? 4)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6)
const bench = await openBench()
const url = bench.stack.cloneUrl
const clone = path.join(bench.tmp, 'push-clone')
const env = {
  PATH: process.env.PATH,
  HOME: bench.tmp,
  GIT_TERMINAL_PROMPT: '0',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 'bench',
  GIT_AUTHOR_EMAIL: 'bench@example.com',
  GIT_COMMITTER_NAME: 'bench',
  GIT_COMMITTER_EMAIL: 'bench@example.com',
  GIT_CONFIG_COUNT: '1',
  GIT_CONFIG_KEY_0: `http.${new URL(url).origin}/.extraheader`,
  GIT_CONFIG_VALUE_0: `AUTHORIZATION: bearer ${bench.h.GITHUB_TOKEN}`
}
// Async only: the stand-in remote answers from this process's event loop.
const git = async (...args) => (await run('git', args, { cwd: clone, env })).stdout.trim()
/** CPU ms of this process's reaped children (cutime + cstime, in USER_HZ ticks of 10 ms). */
function childCpu() {
  const stat = readFileSync('/proc/self/stat', 'latin1')
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return (Number(f[13]) + Number(f[14])) * 10
}

await run('git', ['clone', '--quiet', url, clone], { env })
let round = 0
async function branches() {
  round++
  const refs = []
  const tree = await git('rev-parse', 'HEAD^{tree}')
  for (let i = 0; i < N; i++) {
    const sha = await git('commit-tree', tree, '-p', 'HEAD', '-m', `bench ${round}-${i}`)
    const ref = `refs/heads/bench-push/${round}-${i}`
    await git('update-ref', ref, sha)
    refs.push(ref)
  }
  return refs
}
const push = refs =>
  git(
    'push',
    '--porcelain',
    ...refs.map(r => `--force-with-lease=${r}`),
    'origin',
    ...refs.map(r => `${r}:${r}`)
  )
const ways = {
  'one push of all': refs => push(refs),
  'one push each, at once': refs => Promise.all(refs.map(r => push([r]))),
  'one push each, in turn': async refs => {
    for (const r of refs) await push([r])
  }
}
const figures = Object.fromEntries(Object.keys(ways).map(w => [w, { wall: [], cpu: [] }]))
const before = load()
for (let r = 0; r < ROUNDS; r++) {
  const order = r % 2 ? Object.keys(ways).reverse() : Object.keys(ways)
  for (const way of order) {
    const refs = await branches()
    const cpu = childCpu()
    const t0 = Date.now()
    await ways[way](refs)
    figures[way].wall.push(Date.now() - t0)
    figures[way].cpu.push(childCpu() - cpu)
  }
}
log(`${N} branches a round, ${ROUNDS} rounds; before: ${before}; after: ${load()}`)
console.log(`\n| way (median, ms) | wall | git CPU |\n|---|---|---|`)
for (const [way, f] of Object.entries(figures))
  console.log(`| ${way} | ${median(f.wall)} | ${median(f.cpu)} |`)
await bench.close()
