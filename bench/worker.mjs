// What one trivial task costs through the action, beside a bare `claude -p` doing the same work
// against the same scripted model server. Offline: the e2e stack (scripted model, git remote
// checking the token, GitHub API mock) and the real claude CLI.
//   node bench/worker.mjs            (BENCH_RUNS=3: runs of each, alternating)
// Both sides are measured the same way, by this script re-run as a wrapper (BENCH_WORKER_MEASURE):
// wall time from spawn to exit; `/usr/bin/time`'s maximum RSS (the largest single process of the
// tree: node, claude, git); and the peak of the RSS summed over the whole process tree, sampled
// from /proc every 50 ms (summed RSS counts shared pages, such as the claude binary, once per
// process: an upper bound).
import { execFileSync, spawn } from 'node:child_process'
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'

const SELF = import.meta.filename
const ROOT = path.resolve(import.meta.dirname, '..')
const TIME = '/usr/bin/time'

// ---- wrapper: run one command, measure it from outside ------------------------------------

function read(file) {
  try {
    return readFileSync(file, 'utf8')
  } catch {
    return ''
  }
}

/** Every live descendant of `root`, by the ppid field of /proc/<pid>/stat. */
function descendants(root) {
  const children = new Map()
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue
    const stat = read(`/proc/${name}/stat`)
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
    if (!children.has(ppid)) children.set(ppid, [])
    children.get(ppid).push(Number(name))
  }
  const out = []
  const queue = [root]
  while (queue.length) {
    for (const pid of children.get(queue.shift()) ?? []) {
      out.push(pid)
      queue.push(pid)
    }
  }
  return out
}

const rssKb = pid => Number(/^VmRSS:\s+(\d+) kB/m.exec(read(`/proc/${pid}/status`))?.[1] ?? 0)

async function measure({ cmd, out }) {
  const timeFile = `${out}.time`
  const argv = existsSync(TIME) ? [TIME, '-f', '%M', '-o', timeFile, ...cmd] : cmd
  const started = performance.now()
  const child = spawn(argv[0], argv.slice(1), { stdio: 'inherit' })
  let peakTreeKb = 0
  let peakProcs = 0
  const sample = () => {
    const pids = descendants(process.pid)
    const sum = pids.reduce((total, pid) => total + rssKb(pid), 0)
    if (sum > peakTreeKb) {
      peakTreeKb = sum
      peakProcs = pids.length
    }
  }
  const timer = setInterval(sample, 50)
  const code = await new Promise(resolve => child.on('exit', c => resolve(c ?? 1)))
  clearInterval(timer)
  const wallMs = performance.now() - started
  const maxRssKb = Number(read(timeFile).trim().split('\n').at(-1)) || undefined
  writeFileSync(out, JSON.stringify({ wallMs, maxRssKb, peakTreeKb, peakProcs, code }))
  process.exit(code)
}

// ---- the bench ------------------------------------------------------------------------------

async function loadHarness() {
  // The harness is TypeScript with '.js' specifiers: bundle it once with ncc and import that.
  const entry = path.join(ROOT, '.tmp', 'bench-worker-entry.ts')
  const outDir = path.join(ROOT, '.tmp', 'bench-worker-stack')
  await mkdir(path.dirname(entry), { recursive: true })
  writeFileSync(
    entry,
    [
      "export { GITHUB_TOKEN, MODEL_KEY, OWNER, REPO, startStack, results } from '../demo/stack.js'",
      "export { ACTION_ENTRY, runAction } from '../demo/run-action.js'",
      "export { gitTestEnv } from '../demo/git-remote.js'",
      "export { script } from '../demo/model-server.js'",
      ''
    ].join('\n')
  )
  execFileSync(
    path.join(ROOT, 'node_modules/.bin/ncc'),
    ['build', entry, '-o', outDir, '--transpile-only', '-q'],
    { cwd: ROOT, stdio: 'inherit' }
  )
  return import(pathToFileURL(path.join(outDir, 'index.js')).href)
}

/** Runs `cmd` under the wrapper; returns its figures. */
async function measured(tmp, label, cmd, spawnIt) {
  const out = path.join(tmp, `${label}.json`)
  const result = await spawnIt({ BENCH_WORKER_MEASURE: JSON.stringify({ cmd, out }) })
  const figures = JSON.parse(await readFile(out, 'utf8'))
  return { ...figures, result }
}

function runChild(file, args, opts) {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { ...opts, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', c => (stdout += c))
    child.stderr.on('data', c => (stderr += c))
    child.on('error', reject)
    child.on('close', code => resolve({ code, stdout, stderr }))
  })
}

const trivialTask = (h, key) =>
  `Write hello.txt.\n${h.script({ key, steps: [{ tool: 'Write', input: { file_path: 'hello.txt', content: 'hello\n' } }, { text: 'Wrote hello.txt.' }] })}`

async function actionRun(h, stack, tmp, home, i) {
  const id = `bench-action-${i}`
  const figures = await measured(tmp, id, [process.execPath, h.ACTION_ENTRY], env =>
    h.runAction({
      inputs: {
        tasks: JSON.stringify([{ id, prompt: trivialTask(h, id) }]),
        'github-token': h.GITHUB_TOKEN,
        'api-key': h.MODEL_KEY,
        'base-url': stack.model.url,
        'max-parallel': '1'
      },
      eventName: 'workflow_dispatch',
      payload: {
        inputs: {},
        ref: 'refs/heads/main',
        repository: { full_name: `${h.OWNER}/${h.REPO}` }
      },
      workspace: stack.workspace,
      repository: `${h.OWNER}/${h.REPO}`,
      serverUrl: stack.git.url.replace(/\/$/, ''),
      apiUrl: stack.github.url,
      env: { ...h.gitTestEnv(home), ...env },
      entry: SELF,
      timeoutMs: 120_000
    })
  )
  const run = figures.result
  await rm(run.runnerTemp, { recursive: true, force: true })
  const r = run.exitCode === 0 ? h.results(run)[0] : undefined
  if (r?.status !== 'pr-opened')
    throw new Error(
      `action run ${i} did not open its PR: ${r?.status} ${r?.error ?? ''}\n${run.stdout}\n${run.stderr}`
    )
  return { ...figures, taskMs: r['duration-ms'] }
}

async function bareRun(h, stack, tmp, i) {
  const key = `bench-bare-${i}`
  const dir = path.join(tmp, key)
  const git = args =>
    execFileSync('git', ['-c', 'user.name=Bench', '-c', 'user.email=bench@example.com', ...args], {
      cwd: dir,
      env: { PATH: process.env.PATH, GIT_CONFIG_NOSYSTEM: '1', HOME: dir }
    })
  await mkdir(path.join(dir, 'repo'), { recursive: true })
  await mkdir(path.join(dir, 'config'))
  execFileSync('git', ['init', '-q', '-b', 'main', 'repo'], { cwd: dir })
  writeFileSync(path.join(dir, 'repo', 'README.md'), '# widgets\n')
  git(['-C', 'repo', 'add', '.'])
  git(['-C', 'repo', 'commit', '-q', '-m', 'init'])
  // The fleet-worker recipe by hand: an empty config dir, the endpoint and key in the environment.
  const env = {
    PATH: process.env.PATH,
    HOME: dir,
    CLAUDE_CONFIG_DIR: path.join(dir, 'config'),
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
    ANTHROPIC_BASE_URL: stack.model.url,
    ANTHROPIC_AUTH_TOKEN: h.MODEL_KEY,
    ...(process.getuid?.() === 0 ? { IS_SANDBOX: '1' } : {})
  }
  const claude = path.join(ROOT, 'node_modules/.bin/claude')
  const args = [
    '-p',
    trivialTask(h, key),
    '--output-format',
    'json',
    '--permission-mode',
    'bypassPermissions',
    '--tools',
    'Bash,Edit,Read,Write,Glob,Grep',
    '--no-session-persistence'
  ]
  const figures = await measured(tmp, key, [claude, ...args], extra =>
    runChild(process.execPath, [SELF], { cwd: path.join(dir, 'repo'), env: { ...env, ...extra } })
  )
  const result = JSON.parse(figures.result.stdout.trim().split('\n').at(-1) ?? '{}')
  if (
    figures.code !== 0 ||
    result.is_error !== false ||
    !existsSync(path.join(dir, 'repo', 'hello.txt'))
  ) {
    throw new Error(
      `bare claude run ${i} failed: ${figures.result.stdout}\n${figures.result.stderr}`
    )
  }
  return figures
}

const median = xs => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]
const span = (xs, f) => `${f(median(xs))} (${f(Math.min(...xs))}–${f(Math.max(...xs))})`
const sec = ms => `${(ms / 1000).toFixed(2)} s`
const mb = kb => `${Math.round(kb / 1024)} MB`

async function main() {
  const runs = Number(process.env.BENCH_RUNS ?? 3)
  // As in the tests (npm puts it there): the action finds the pinned claude on PATH.
  process.env.PATH = `${path.join(ROOT, 'node_modules', '.bin')}${path.delimiter}${process.env.PATH}`
  const tmp = await mkdtemp(path.join(os.tmpdir(), 'fleet-bench-worker-'))
  const h = await loadHarness()
  const stack = await h.startStack()
  const home = path.join(tmp, 'home')
  const action = []
  const bare = []
  try {
    for (let i = 1; i <= runs; i++) {
      action.push(await actionRun(h, stack, tmp, home, i))
      bare.push(await bareRun(h, stack, tmp, i))
      console.error(
        `[bench] run ${i}/${runs}: action ${sec(action.at(-1).wallMs)}, bare ${sec(bare.at(-1).wallMs)}`
      )
    }
  } finally {
    await stack.close()
    await rm(tmp, { recursive: true, force: true })
  }
  const claudeVersion = execFileSync(path.join(ROOT, 'node_modules/.bin/claude'), ['--version'], {
    encoding: 'utf8'
  }).trim()
  const cpu = /^model name\s*:\s*(.+)$/m.exec(read('/proc/cpuinfo'))?.[1] ?? os.arch()
  console.log(
    `One trivial task (one Write, two model turns), median (min–max) of ${runs} runs each`
  )
  console.log(
    `machine: ${os.availableParallelism()} cores, ${cpu}, ${mb(os.totalmem() / 1024)} RAM; node ${process.version}; claude ${claudeVersion}; ${new Date().toISOString().slice(0, 10)}`
  )
  console.log('')
  console.log('| | wall time | max RSS, largest process | peak RSS, whole tree (processes) |')
  console.log('|---|---|---|---|')
  for (const [name, xs] of [
    ['action (node dist/index.js)', action],
    ['bare claude -p', bare]
  ]) {
    const procs = Math.max(...xs.map(x => x.peakProcs))
    const maxRss = xs.every(x => x.maxRssKb)
      ? span(
          xs.map(x => x.maxRssKb),
          mb
        )
      : 'n/a (no /usr/bin/time)'
    console.log(
      `| ${name} | ${span(
        xs.map(x => x.wallMs),
        sec
      )} | ${maxRss} | ${span(
        xs.map(x => x.peakTreeKb),
        mb
      )} (up to ${procs}) |`
    )
  }
  console.log('')
  console.log(
    `The action's own task time (worktree, worker, commit, push, PR), from its results: ${span(
      action.map(x => x.taskMs),
      sec
    )}.`
  )
}

// Last, so every const above is initialised.
if (process.env.BENCH_WORKER_MEASURE) await measure(JSON.parse(process.env.BENCH_WORKER_MEASURE))
else await main()
