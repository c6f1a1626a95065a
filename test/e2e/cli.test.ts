// Issue 7, through dist/: the CLI front door on a developer's machine. It runs the CLI itself (not
// the action), so the leak scan is called here by hand on what the CLI produced.
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { type AddressInfo, createServer } from 'node:net'
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { expectOk, writeScript } from '../support/scenario.js'
import { parse as parseYaml } from 'yaml'
import { INPUTS } from '../../src/inputs.js'
import { gitTestEnv, runGit } from '../../demo/git-remote.js'
import { script } from '../../demo/model-server.js'
import type { RunActionResult } from '../../demo/run-action.js'
import { assertNoLeaks } from '../../demo/leaks.js'
import { GITHUB_TOKEN, MODEL_KEY, OWNER, REPO, type Stack, startStack } from '../../demo/stack.js'
import { clonesLeft } from './faults-support.js'

const CLI = path.resolve(import.meta.dirname, '../../dist/cli/index.js')
const BIN = path.resolve(import.meta.dirname, '../../node_modules/.bin')
const FULL = `${OWNER}/${REPO}`
const IDS = ['c1', 'c2', 'c3']
const TASKS_YAML = IDS.map(id => {
  const s = writeScript(id, `${id}.txt`, `cli ${id}\n`, 'done')
  return `- id: ${id}\n  prompt: ${JSON.stringify(`Write ${id}.txt ${s}`)}\n`
}).join('')

interface CliRun {
  exitCode: number | null
  stdout: string
  stderr: string
}

describe('the fleet-worker CLI', () => {
  let stack: Stack
  let temp: string
  let repo: string
  let env: NodeJS.ProcessEnv

  const cli = (args: string[], extra: NodeJS.ProcessEnv = {}) =>
    new Promise<CliRun>((done, fail) => {
      // stdout is a pipe here: not a TTY, so progress must come as plain lines.
      const child = spawn(process.execPath, [CLI, ...args], {
        cwd: repo,
        env: { ...env, ...extra },
        stdio: ['ignore', 'pipe', 'pipe']
      })
      let stdout = ''
      let stderr = ''
      child.stdout.on('data', (c: Buffer) => (stdout += c.toString()))
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString()))
      const timer = setTimeout(() => child.kill('SIGKILL'), 120_000)
      child.on('error', fail)
      child.on('close', exitCode => {
        clearTimeout(timer)
        done({ exitCode, stdout, stderr })
      })
    })

  /** The leak scan of the e2e harness, on what a CLI run produced (it has no outputs or summary). */
  const scanForLeaks = (r: CliRun) =>
    assertNoLeaks(stack, {
      ...r,
      signal: null,
      outputs: {},
      summary: '',
      runnerTemp: env.RUNNER_TEMP ?? '',
      durationMs: 0
    } satisfies RunActionResult)

  /** The `workers` dir of the one CLI run (under RUNNER_TEMP) whose cages include `cage`. */
  async function cliRunDir(cage: string): Promise<string> {
    const runs = path.join(env.RUNNER_TEMP ?? '', 'fleet-worker')
    const dirs = (await readdir(runs)).map(d => path.join(runs, d, 'workers'))
    const mine = dirs.filter(d => existsSync(path.join(d, cage)))
    expect(mine).toHaveLength(1)
    return mine[0] ?? ''
  }

  beforeAll(async () => {
    stack = await startStack()
    temp = await mkdtemp(path.join(tmpdir(), 'fleet-e2e-cli-'))
    const base = gitTestEnv(path.join(temp, 'home'))
    // A developer's clone: origin is the remote, and no credential is kept in its config.
    repo = path.join(temp, 'repo')
    const auth = {
      GIT_CONFIG_COUNT: '1',
      GIT_CONFIG_KEY_0: `http.${new URL(stack.cloneUrl).origin}/.extraheader`,
      GIT_CONFIG_VALUE_0: `AUTHORIZATION: bearer ${GITHUB_TOKEN}`
    }
    const clone = await runGit(['clone', '--quiet', stack.cloneUrl, repo], temp, {
      ...base,
      ...auth
    })
    expect(clone.exitCode, clone.stderr).toBe(0)
    await writeFile(path.join(repo, 'tasks.yml'), TASKS_YAML)
    env = { ...base, PATH: `${BIN}:${base.PATH ?? ''}`, RUNNER_TEMP: path.join(temp, 'runner') }
  })
  afterAll(async () => {
    await stack?.close()
    if (temp) await rm(temp, { recursive: true, force: true })
  })

  it('--help documents every input', async () => {
    const help = await cli(['--help'])
    expect(help.exitCode).toBe(0)
    const missing = Object.keys(INPUTS).filter(name => !help.stdout.includes(`--${name} `))
    expect(missing).toEqual([])
    for (const option of ['--repo', '--repository', 'GITHUB_TOKEN', 'ANTHROPIC_API_KEY'])
      expect(help.stdout).toContain(option)
  })

  it('plan prints the ids and branches and runs nothing', async () => {
    const plan = await cli(['plan', '--tasks-file', 'tasks.yml', '--base-url', stack.model.url], {
      ANTHROPIC_API_KEY: MODEL_KEY
    })
    expectOk(plan)
    for (const id of IDS) {
      expect(plan.stdout).toContain(`\`${id}\``)
      expect(plan.stdout).toContain(`fleet/${id}`)
    }
    expect(stack.model.requests).toHaveLength(0)
    expect(Object.keys(await stack.git.branches(FULL)).filter(b => b.startsWith('fleet/'))).toEqual(
      []
    )
  })

  it('plan --goal runs the planner and prints its tasks as YAML on stdout, ready for --tasks-file; no branch', async () => {
    const planned = [
      { title: 'Add the goal file', prompt: 'Write goal.txt' },
      { title: 'Add the notes file', prompt: 'Write notes.txt', verify: 'test -f notes.txt' }
    ]
    const goal = `Two files, please ${script({
      key: 'cli-goal',
      steps: [{ tool: 'StructuredOutput', input: { tasks: planned } }]
    })}`
    const plan = await cli(
      ['plan', '--goal', goal, '--repo', repo, '--base-url', stack.model.url],
      { ANTHROPIC_API_KEY: MODEL_KEY, GITHUB_TOKEN }
    )
    expectOk(plan)
    expect(stack.model.requestsFor('cli-goal')).toHaveLength(1)
    const tasks = parseYaml(plan.stdout) as Array<Record<string, string>>
    expect(tasks.map(t => [t.title, t.prompt, t.verify])).toEqual(
      planned.map(p => [p.title, p.prompt, p.verify])
    )
    for (const t of tasks) expect(t.id).toMatch(/^add-the-[a-z]+-file-[0-9a-f]{6}$/)
    // The log went to stderr; nothing was pushed.
    expect(plan.stderr).toContain('The planner split the goal into 2 tasks')
    expect(Object.keys(await stack.git.branches(FULL)).filter(b => b.startsWith('fleet/'))).toEqual(
      []
    )
    await scanForLeaks(plan)
  })

  it('run pushes every branch with GITHUB_TOKEN and no --repository, opens no PR, prints plain progress lines', async () => {
    const run = await cli(
      [
        'run',
        '--tasks-file',
        'tasks.yml',
        '--repo',
        repo,
        '--base-url',
        stack.model.url,
        '--max-parallel',
        '2'
      ],
      {
        ANTHROPIC_API_KEY: MODEL_KEY,
        GITHUB_TOKEN
      }
    )
    expectOk(run)
    for (const id of IDS) {
      expect(await stack.git.readFile(FULL, `fleet/${id}`, `${id}.txt`)).toBe(`cli ${id}\n`)
      // One plain line per worker turn: task, turn, tokens, elapsed; no carriage-return redraws.
      expect(run.stdout).toMatch(
        new RegExp(`^\\[${id}\\] turn 1 · \\d+ output tokens · \\d+\\.\\d+s$`, 'm')
      )
      expect(run.stdout).toMatch(new RegExp(`^\\[${id}\\] turn 2 · `, 'm'))
    }
    expect(run.stdout).not.toContain('\r')
    expect(stack.github.requests).toHaveLength(0)
    expect(stack.github.state.pulls).toHaveLength(0)
    // The remote checked the token on every push.
    expect(
      stack.git.requests.filter(r => r.service === 'git-receive-pack').every(r => r.authorized)
    ).toBe(true)
    // The CLI exits as its last task ends: its cages' teardowns had ended before it did.
    const { cages, left } = await clonesLeft(await cliRunDir('c1.1'))
    expect(cages).toBeGreaterThanOrEqual(IDS.length)
    expect(left).toEqual([])

    await scanForLeaks(run)
  })

  it('exits once its cages are removed, even the clone a worker made heavy to remove', async () => {
    // 60,000 files in the worker's own clone, removed by its cage's teardown beside the push. The
    // removal fills the thread pool the CLI's own last steps wait on, so without the CLI's wait for
    // it the two race: this caught that regression in two of six tries, not every time.
    const heavy = [
      'echo heavy > heavy.txt',
      'd="$(git rev-parse --absolute-git-dir)/junk" && mkdir -p "$d" && cd "$d" && seq 1 60000 | xargs touch && echo HEAVY-OK'
    ]
    const steps = [
      ...heavy.map(command => ({ tool: 'Bash', input: { command } })),
      { text: 'Done.' }
    ]
    const tasks = `- id: heavy\n  prompt: ${JSON.stringify(`Make a heavy clone. ${script({ key: 'heavy', steps })}`)}\n`
    await writeFile(path.join(repo, 'heavy.yml'), tasks)
    const run = await cli(
      ['run', '--tasks-file', 'heavy.yml', '--repo', repo, '--base-url', stack.model.url],
      { ANTHROPIC_API_KEY: MODEL_KEY, GITHUB_TOKEN }
    )
    expectOk(run)
    expect(await stack.git.readFile(FULL, 'fleet/heavy', 'heavy.txt')).toBe('heavy\n')
    const said = stack.model.requestsFor('heavy').flatMap(r => r.toolResults)
    expect(said.join('\n')).toContain('HEAVY-OK')
    expect((await clonesLeft(await cliRunDir('heavy.1'))).left).toEqual([])
    expect(run.stdout + run.stderr).not.toContain("a cage's teardown failed")
  })

  it('doctor: checks claude and the inputs offline, then asks the endpoint once, with a verdict a person can act on', async () => {
    const base = ['doctor', '--base-url', stack.model.url]
    const before = stack.model.requests.length
    const good = await cli(base, { ANTHROPIC_API_KEY: MODEL_KEY })
    expectOk(good)
    expect(good.stdout).toMatch(/^ok +claude: 2\.1\.\d+ at /m)
    expect(good.stdout).toMatch(/^ok +model endpoint: answered 200$/m)
    expect(good.stdout).toContain('Ready.')
    expect(stack.model.requests.length).toBe(before + 1)

    const badKey = await cli(base, { ANTHROPIC_API_KEY: 'sk-not-the-right-key' })
    expect(badKey.exitCode).toBe(1)
    expect(badKey.stdout).toMatch(
      /^FAIL model endpoint: rejected the key \(401\); check ANTHROPIC_API_KEY \/ ANTHROPIC_AUTH_TOKEN and --auth-header$/m
    )

    // A port that was just free: nothing listens there.
    const port = await new Promise<number>(resolve => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const { port } = server.address() as AddressInfo
        server.close(() => resolve(port))
      })
    })
    const closed = await cli(['doctor', '--base-url', `http://127.0.0.1:${port}`], {
      ANTHROPIC_API_KEY: MODEL_KEY
    })
    expect(closed.exitCode).toBe(1)
    expect(closed.stdout).toMatch(
      /^FAIL model endpoint: unreachable: ECONNREFUSED; check --base-url/m
    )

    const badInput = await cli(['doctor', '--offline', '--max-parallel', 'lots'], {
      ANTHROPIC_API_KEY: MODEL_KEY
    })
    expect(badInput.exitCode).toBe(1)
    expect(badInput.stdout).toMatch(/^FAIL inputs: --max-parallel: expected a whole number/m)

    // Each input judged on its own: a bad URL is the URL's problem, and the key is still present.
    const badUrl = await cli(['doctor', '--offline', '--base-url', 'not-a-url', '--api-key', 'x'], {
      ANTHROPIC_API_KEY: ''
    })
    expect(badUrl.exitCode).toBe(1)
    expect(badUrl.stdout).toMatch(/^FAIL inputs: --base-url: /m)
    expect(badUrl.stdout).toMatch(/^ok +model key: present$/m)

    for (const r of [good, badKey, closed, badInput]) await scanForLeaks(r)
  })

  it('--help speaks CLI: exit codes, no workflow expressions', async () => {
    const help = await cli(['--help'])
    expect(help.stdout).not.toContain('${{')
    expect(help.stdout).toMatch(/--github-token .*\[default: \$GITHUB_TOKEN\]/)
    expect(help.stdout).toMatch(/^Exit codes:\n {2}0 .*\n {2}1 .*\n(.*\n)* {2}2 /m)
  })

  it('usage mistakes are told in flags and environment names, exit 2, before anything is installed', async () => {
    const noTasks = await cli(['plan'])
    expect(noTasks.exitCode).toBe(2)
    expect(noTasks.stderr).toContain("no tasks: pass --tasks 'a prompt'")
    expect(noTasks.stderr).toContain('--tasks-file tasks.yml')

    const noKey = await cli(['run', '--tasks', 'Fix the typo'], {
      ANTHROPIC_API_KEY: '',
      ANTHROPIC_AUTH_TOKEN: ''
    })
    expect(noKey.exitCode).toBe(2)
    expect(noKey.stderr).toContain('no model key: set ANTHROPIC_API_KEY')

    const badValue = await cli(['run', '--tasks', 'Fix the typo', '--max-parallel', 'lots'], {
      ANTHROPIC_API_KEY: MODEL_KEY
    })
    expect(badValue.exitCode).toBe(2)
    expect(badValue.stderr).toMatch(/^fleet-worker: --max-parallel: expected a whole number/m)

    // Outside a repository: no claude on PATH, so anything past the check would install it.
    const outside = path.join(temp, 'not-a-repo')
    await mkdir(outside, { recursive: true })
    const notRepo = await cli(['run', '--tasks', 'Fix the typo', '--repo', outside], {
      ANTHROPIC_API_KEY: MODEL_KEY,
      PATH: `${BIN}:/usr/bin:/bin`
    })
    expect(notRepo.exitCode).toBe(2)
    expect(notRepo.stderr).toContain(`--repo: '${outside}' is not a git repository`)
    expect(notRepo.stdout).not.toContain('installing')

    const unknown = await cli(['run', '--no-such-flag'])
    expect(unknown.exitCode).toBe(2)
    expect(unknown.stderr).toContain("Unknown option '--no-such-flag'")

    for (const r of [noTasks, noKey, badValue, notRepo, unknown]) {
      expect(r.stdout + r.stderr).not.toContain('${{')
      expect(r.stdout + r.stderr).not.toContain("'github-token'")
    }
  })
})
