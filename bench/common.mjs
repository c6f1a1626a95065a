// What the batch benches share: the e2e stack (bundled from test/ by ncc), a claude shim that
// logs each worker's start and end, one action run through bench/measure.mjs, and the shell recipe.
// Used by bench/run.mjs, bench/parallel.mjs and bench/profile.mjs; see docs/performance.md for the method.
import { execFileSync, spawn } from 'node:child_process'
import { chmodSync, cpSync, readFileSync, realpathSync, writeFileSync } from 'node:fs'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'

export const ROOT = path.resolve(import.meta.dirname, '..')
const MEASURE = path.join(ROOT, 'bench', 'measure.mjs')
const RECIPE = path.join(ROOT, 'bench', 'recipe.sh')
// 'pushed' is the status of a run without an API client (branches only).
export const LANDED = ['pr-opened', 'pushed']

export const log = message => console.log(`[bench] ${message}`)
export const s = ms => `${(ms / 1000).toFixed(1)} s`
export const median = xs => quantile(xs, 0.5)
export function quantile(xs, q) {
  const sorted = [...xs].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? NaN
}

/** The load on the machine right now, to print beside every figure (this machine is shared). */
export function load() {
  const psi = /^some avg10=([\d.]+) avg60=([\d.]+)/m.exec(readText('/proc/pressure/cpu'))
  const [l1] = os.loadavg()
  return `load ${l1.toFixed(2)}${psi ? `, CPU PSI some avg10 ${psi[1]}% avg60 ${psi[2]}%` : ''}`
}

/**
 * Waits (at most `maxMs`) until the CPU is quiet: PSI's "some avg10" under `percent` (the last 10 s
 * with no task kept waiting for a CPU more than that share of the time). The load average moves
 * over a minute and more, so a run right after another starts on the tail of its load: this lets a
 * bench's rounds each start quiet. Without /proc/pressure it returns at once.
 */
export async function quiet(percent = 5, maxMs = 120_000) {
  const end = Date.now() + maxMs
  for (;;) {
    const psi = /^some avg10=([\d.]+)/m.exec(readText('/proc/pressure/cpu'))
    if (!psi || Number(psi[1]) < percent || Date.now() > end) return
    await new Promise(r => setTimeout(r, 1000))
  }
}

function readText(file) {
  try {
    return readFileSync(file, 'utf8')
  } catch {
    return ''
  }
}

/** Bundles the harness, starts the stack; returns what a bench needs, and `close()`. */
export async function openBench() {
  log('bundling the test harness (ncc)')
  execFileSync(
    path.join(ROOT, 'node_modules/.bin/ncc'),
    ['build', 'bench/harness.ts', '-o', '.tmp/bench-stack', '--transpile-only', '-q'],
    { cwd: ROOT, stdio: 'inherit' }
  )
  cpSync(path.join(ROOT, 'test/fixtures/events'), path.join(ROOT, '.tmp/fixtures/events'), {
    recursive: true
  })
  const h = await import(pathToFileURL(path.join(ROOT, '.tmp/bench-stack/index.js')).href)
  const FULL = `${h.OWNER}/${h.REPO}`
  const tmp = await mkdtemp(path.join(os.tmpdir(), 'fleet-bench-'))
  const home = path.join(tmp, 'home')
  const stack = await h.startStack({ github: { collaborators: { maria: 'write' } } })
  const shimLog = path.join(tmp, 'workers.log')
  const shim = path.join(tmp, 'claude-shim')
  const realClaude = realpathSync(path.join(ROOT, 'node_modules/.bin/claude'))
  writeFileSync(
    shim,
    `#!/bin/sh\necho "start $(date +%s%N) $1 $(pwd)" >> '${shimLog}'\n'${realClaude}' "$@"\nrc=$?\nt=$(mktemp) && times > "$t" && { read -r _; read -r u s; } < "$t"; rm -f "$t"\necho "cpu $u $s $(pwd)" >> '${shimLog}'\necho "end $(date +%s%N) $1 $(pwd)" >> '${shimLog}'\nexit $rc\n`
  )
  chmodSync(shim, 0o755)

  /**
   * Worker spans from the shim's log (the --version probe left out), then the log is emptied. Each
   * with the CPU its worker took (`cpuMs`: the claude CLI and every tool it ran and reaped, as the
   * shim's `times` says it, to the clock tick: 10 ms; run in the shim's own shell, as a pipe or a
   * `$(...)` would run it in a subshell, which has no children of its own).
   */
  function workerSpans() {
    const text = readText(shimLog)
    writeFileSync(shimLog, '')
    const open = new Map()
    const cpu = new Map()
    const spans = []
    const ms = t => {
      const [, m = '0', sec = '0'] = /^(\d+)m([\d.]+)s$/.exec(t) ?? []
      return (Number(m) * 60 + Number(sec)) * 1000
    }
    for (const line of text.split('\n').filter(Boolean)) {
      if (line.startsWith('cpu ')) {
        const [, user, system, ...dir] = line.split(' ')
        cpu.set(dir.join(' '), ms(user) + ms(system))
        continue
      }
      const [kind, ns, arg, ...dir] = line.split(' ')
      if (arg === '--version') continue
      const where = dir.join(' ')
      const at = Number(BigInt(ns) / 1_000_000n)
      if (kind === 'start') open.set(where, at)
      else
        spans.push({
          id: path.basename(where),
          start: open.get(where),
          end: at,
          cpuMs: cpu.get(where)
        })
    }
    return spans
  }

  /** The action through dist/ under bench/measure.mjs (cmd: another argv), then the leak scan. */
  async function action(name, opts) {
    const out = path.join(tmp, `${name}.json`)
    writeFileSync(shimLog, '')
    const result = await h.runAction({
      inputs: {
        'github-token': h.GITHUB_TOKEN,
        'api-key': h.MODEL_KEY,
        'base-url': stack.model.url,
        'retry-delay-seconds': '0.2',
        'claude-path': shim,
        // The shim logs each worker's start and end to a file of the bench's, which the sandbox would
        // hide: batches run in isolation: process, and the sandbox's own cost per start is measured
        // by bench:sandbox (docs/performance.md).
        isolation: 'process',
        ...opts.inputs
      },
      eventName: opts.eventName ?? 'workflow_dispatch',
      payload: opts.payload ?? {
        inputs: {},
        ref: 'refs/heads/main',
        repository: { full_name: FULL }
      },
      workspace: stack.workspace,
      repository: FULL,
      serverUrl: stack.git.url.replace(/\/$/, ''),
      apiUrl: stack.github.url,
      env: {
        ...h.gitTestEnv(home),
        ...opts.env,
        BENCH_MEASURE_OUT: out,
        ...(opts.cmd && { BENCH_MEASURE_CMD: JSON.stringify(opts.cmd) })
      },
      timeoutMs: 900_000,
      entry: MEASURE
    })
    await h.assertNoLeaks(stack, result)
    await rm(result.runnerTemp, { recursive: true, force: true })
    if (result.exitCode !== 0)
      throw new Error(
        `${name}: the action failed (${result.exitCode})\n${result.stdout.slice(-3000)}\n${result.stderr.slice(-2000)}`
      )
    const m = JSON.parse(readFileSync(out, 'utf8'))
    const results = h.results(result)
    const branches = await stack.git.branches(FULL)
    const landed = results.filter(
      r => LANDED.includes(r.status) && branches[`fleet/${r.id}`]
    ).length
    return { result, m, results, landed, spans: workerSpans(), summary: result.summary }
  }

  /** The shell recipe (bench/recipe.sh) over the same tasks, at most `p` at once. */
  async function recipe(name, tasks, p) {
    const dir = path.join(tmp, name)
    const tasksDir = path.join(dir, 'tasks')
    await mkdir(tasksDir, { recursive: true })
    await mkdir(path.join(dir, 'claude-config'))
    for (const t of tasks) await writeFile(path.join(tasksDir, `${t.id}.txt`), t.prompt)
    const out = path.join(tmp, `${name}.json`)
    const exitCode = await new Promise(done => {
      const child = spawn(process.execPath, [MEASURE], {
        stdio: ['ignore', 'inherit', 'inherit'],
        env: {
          ...h.gitTestEnv(home),
          PATH: `${path.join(ROOT, 'node_modules/.bin')}:${process.env.PATH}`,
          BENCH_MEASURE_CMD: JSON.stringify([
            'bash',
            RECIPE,
            stack.cloneUrl,
            tasksDir,
            String(p),
            dir
          ]),
          BENCH_MEASURE_OUT: out,
          ANTHROPIC_BASE_URL: stack.model.url,
          ANTHROPIC_API_KEY: h.MODEL_KEY,
          CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
          CLAUDE_CONFIG_DIR: path.join(dir, 'claude-config'),
          ...(process.getuid?.() === 0 && { IS_SANDBOX: '1' }),
          GIT_CONFIG_COUNT: '1',
          GIT_CONFIG_KEY_0: `http.${new URL(stack.cloneUrl).origin}/.extraheader`,
          GIT_CONFIG_VALUE_0: `AUTHORIZATION: bearer ${h.GITHUB_TOKEN}`
        }
      })
      child.on('close', done)
    })
    const m = JSON.parse(readFileSync(out, 'utf8'))
    // Landed: the task's branch holds the file its script writes (`from <id>`).
    const branches = await stack.git.branches(FULL)
    let landed = 0
    for (const t of tasks) {
      const file = branches[`shell/${t.id}`]
        ? await stack.git.readFile(FULL, `shell/${t.id}`, `${t.id}.txt`)
        : undefined
      if (file === `from ${t.id}\n`) landed++
    }
    return { exitCode, m, landed }
  }

  /** A task of three model turns held `delayMs` each: Write, Bash (`command`), a closing text. */
  const task = (id, delayMs, command = `wc -l ${id}.txt`) => ({
    id,
    prompt: `Write ${id}.txt and run a command.\n${h.script({
      key: id,
      delayMs,
      steps: [
        { tool: 'Write', input: { file_path: `${id}.txt`, content: `from ${id}\n` } },
        { tool: 'Bash', input: { command } },
        { text: `Wrote ${id}.txt.` }
      ]
    })}`
  })

  return {
    h,
    stack,
    FULL,
    action,
    recipe,
    task,
    tmp,
    async close() {
      await stack.close()
      await rm(tmp, { recursive: true, force: true })
    }
  }
}
