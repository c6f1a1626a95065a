// Runs the built action the way the Actions runner does: node on dist/index.js, no shell (dash
// drops variables with hyphens, such as INPUT_API-KEY), a clean environment, and the runner's
// file commands under RUNNER_TEMP.
import { spawn } from 'node:child_process'
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { StringDecoder } from 'node:string_decoder'
import { run } from '../src/process.js'
import { chownTree } from './sandbox.js'

/** The checkout holding this file: the nearest folder with action.yml (from demo/ or a bundle). */
function checkoutRoot(): string {
  for (let dir = import.meta.dirname; dir !== dirname(dir); dir = dirname(dir))
    if (existsSync(join(dir, 'action.yml'))) return dir
  throw new Error(`no action.yml above ${import.meta.dirname}: run the demo from a checkout`)
}

/** The action's entry point, as action.yml's `runs.main` names it. */
export const ACTION_ENTRY = join(checkoutRoot(), 'dist', 'index.js')

export interface RunActionOptions {
  inputs: Record<string, string>
  eventName: string
  payload: object
  workspace: string
  /** owner/repo */
  repository: string
  serverUrl: string
  apiUrl: string
  /** Added last: overrides anything, GITHUB_* included. */
  env?: Record<string, string>
  /**
   * Default 240 s (a run that takes 60 s alone takes two minutes on two loaded cores); then
   * SIGTERM, and SIGKILL to the whole process group 5 s later.
   */
  timeoutMs?: number
  /** Sends one signal to the action's process, as the runner does when a run is cancelled. */
  signalAfterMs?: { signal: NodeJS.Signals; ms: number }
  /** Hears the action's stdout as it comes (a test that waits for what the action says it does). */
  onStdout?: (text: string) => void
  /** The script to run; default ACTION_ENTRY. For exercising this harness itself. */
  entry?: string
  /**
   * Run the action as this user (the harness must be root), as a hosted runner's non-root runner
   * user; RUNNER_TEMP is made theirs.
   */
  user?: { uid: number; gid: number }
}

export interface RunActionResult {
  exitCode: number | null
  signal: string | null
  stdout: string
  stderr: string
  outputs: Record<string, string>
  summary: string
  /** Holds the event file and file-command files too; the caller removes it. */
  runnerTemp: string
  durationMs: number
}

/** How @actions/core names an input's variable: spaces become '_', hyphens stay. */
export function inputEnvName(name: string): string {
  return `INPUT_${name.replace(/ /g, '_').toUpperCase()}`
}

/**
 * Parses a file-command file (GITHUB_OUTPUT, GITHUB_ENV, GITHUB_STATE) by the runner's rules:
 * `name=value` when '=' comes before any '<<', otherwise `name<<DELIMITER` then lines up to a line
 * that is exactly DELIMITER. Blank lines are skipped; a later value replaces an earlier one.
 * Malformed content throws, as the runner fails the step on it.
 */
export function parseFileCommand(content: string): Record<string, string> {
  const result: Record<string, string> = {}
  const lines = content.split(/\r?\n/)
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? ''
    if (line === '') continue
    const equals = line.indexOf('=')
    const heredoc = line.indexOf('<<')
    if (equals >= 0 && (heredoc < 0 || equals < heredoc)) {
      const name = line.slice(0, equals)
      if (!name) throw new Error(`Invalid file command line ${i + 1}: empty name`)
      result[name] = line.slice(equals + 1)
      continue
    }
    if (heredoc <= 0) throw new Error(`Invalid file command line ${i + 1}: '${line}'`)
    const name = line.slice(0, heredoc)
    const delimiter = line.slice(heredoc + 2)
    if (!delimiter) throw new Error(`Invalid file command line ${i + 1}: empty delimiter`)
    const end = lines.indexOf(delimiter, i + 1)
    if (end < 0) throw new Error(`Invalid file command for '${name}': no closing '${delimiter}'`)
    result[name] = lines.slice(i + 1, end).join('\n')
    i = end
  }
  return result
}

async function gitHead(workspace: string): Promise<{ sha?: string; ref?: string }> {
  const git = async (args: string[]) => {
    const r = await run('git', args, {
      cwd: workspace,
      env: { PATH: process.env.PATH, GIT_CONFIG_NOSYSTEM: '1', HOME: workspace }
    })
    return r.exitCode === 0 ? r.stdout.trim() : undefined
  }
  const [sha, ref] = await Promise.all([
    git(['rev-parse', 'HEAD']),
    git(['symbolic-ref', '-q', 'HEAD'])
  ])
  return { ...(sha ? { sha } : {}), ...(ref ? { ref } : {}) }
}

function senderOf(payload: object): string | undefined {
  const sender = (payload as { sender?: { login?: unknown } }).sender
  return typeof sender?.login === 'string' ? sender.login : undefined
}

/** RUNNER_TEMP as the runner lays it out: the event file and the file-command files. */
async function runnerTemp(opts: RunActionOptions) {
  const dir = await mkdtemp(join(tmpdir(), 'fleet-runner-temp-'))
  const commands = join(dir, '_runner_file_commands')
  const workflowDir = join(dir, '_github_workflow')
  await mkdir(commands)
  await mkdir(workflowDir)
  const eventPath = join(workflowDir, 'event.json')
  await writeFile(eventPath, JSON.stringify(opts.payload, null, 2))
  const files = {
    GITHUB_OUTPUT: join(commands, 'set_output'),
    GITHUB_STEP_SUMMARY: join(commands, 'step_summary'),
    GITHUB_ENV: join(commands, 'set_env'),
    GITHUB_PATH: join(commands, 'add_path'),
    GITHUB_STATE: join(commands, 'save_state')
  }
  for (const file of Object.values(files)) await writeFile(file, '')
  if (opts.user) await chownTree(dir, opts.user)
  return { dir, eventPath, files }
}

/** The step's environment: the runner's variables, the inputs, then the caller's overrides. */
async function runnerEnv(
  opts: RunActionOptions,
  temp: Awaited<ReturnType<typeof runnerTemp>>
): Promise<NodeJS.ProcessEnv> {
  const head = await gitHead(opts.workspace)
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
    HOME: process.env.HOME ?? tmpdir(),
    CI: 'true',
    GITHUB_ACTIONS: 'true',
    RUNNER_OS: 'Linux',
    RUNNER_ARCH: 'X64',
    RUNNER_TEMP: temp.dir,
    GITHUB_EVENT_NAME: opts.eventName,
    GITHUB_EVENT_PATH: temp.eventPath,
    GITHUB_REPOSITORY: opts.repository,
    GITHUB_REPOSITORY_OWNER: opts.repository.split('/')[0] ?? '',
    GITHUB_WORKSPACE: opts.workspace,
    GITHUB_SERVER_URL: opts.serverUrl,
    GITHUB_API_URL: opts.apiUrl,
    GITHUB_GRAPHQL_URL: `${opts.apiUrl.replace(/\/$/, '')}/graphql`,
    GITHUB_SHA: head.sha ?? '0'.repeat(40),
    GITHUB_REF: head.ref ?? 'refs/heads/main',
    GITHUB_ACTOR: senderOf(opts.payload) ?? 'octocat',
    GITHUB_RUN_ID: String(1_000_000 + Math.floor(Math.random() * 1_000_000)),
    GITHUB_RUN_NUMBER: '1',
    GITHUB_RUN_ATTEMPT: '1',
    GITHUB_WORKFLOW: 'Fleet',
    GITHUB_JOB: 'fleet',
    GITHUB_ACTION: '__run',
    ...temp.files
  }
  for (const [name, value] of Object.entries(opts.inputs)) env[inputEnvName(name)] = value
  return Object.assign(env, opts.env)
}

/** node on the entry, in its own process group, with the runner's cancel signal and timeout. */
async function runNode(opts: RunActionOptions, env: NodeJS.ProcessEnv) {
  // Its own process group, so a timeout can also reach the workers it started.
  const child = spawn(process.execPath, [opts.entry ?? ACTION_ENTRY], {
    cwd: opts.workspace,
    env,
    ...(opts.user ?? {}),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true
  })
  const stdout: Buffer[] = []
  const stderr: Buffer[] = []
  // Decoded across chunks: a character split between two is heard whole.
  const heard = new StringDecoder('utf8')
  child.stdout.on('data', (c: Buffer) => {
    stdout.push(c)
    opts.onStdout?.(heard.write(c))
  })
  // A character left unfinished at the end is heard too, as `stdout` holds it (U+FFFD).
  child.stdout.on('end', () => {
    const rest = heard.end()
    if (rest) opts.onStdout?.(rest)
  })
  child.stderr.on('data', (c: Buffer) => stderr.push(c))

  const killGroup = (signal: NodeJS.Signals) => {
    try {
      if (child.pid) process.kill(-child.pid, signal)
    } catch {
      // The group is already gone.
    }
  }
  const timers: NodeJS.Timeout[] = []
  if (opts.signalAfterMs) {
    const { signal, ms } = opts.signalAfterMs
    timers.push(setTimeout(() => child.kill(signal), ms))
  }
  timers.push(
    setTimeout(() => {
      child.kill('SIGTERM')
      timers.push(setTimeout(() => killGroup('SIGKILL'), 5000))
    }, opts.timeoutMs ?? 240_000)
  )

  // Like the runner's orphan clean-up at job end: workers left behind must not outlive the run
  // (they would also hold stdout open, and 'close' would never come).
  child.on('exit', () => killGroup('SIGKILL'))
  const [exitCode, signal] = await new Promise<[number | null, NodeJS.Signals | null]>(
    (done, fail) => {
      child.on('error', fail)
      child.on('close', (code, sig) => done([code, sig]))
    }
  )
  for (const timer of timers) clearTimeout(timer)
  const text = (chunks: Buffer[]) => Buffer.concat(chunks).toString('utf8')
  return { exitCode, signal, stdout: text(stdout), stderr: text(stderr) }
}

export async function runAction(opts: RunActionOptions): Promise<RunActionResult> {
  const temp = await runnerTemp(opts)
  const env = await runnerEnv(opts, temp)
  const started = performance.now()
  const ran = await runNode(opts, env)
  const durationMs = performance.now() - started
  return {
    ...ran,
    outputs: parseFileCommand(await readFile(temp.files.GITHUB_OUTPUT, 'utf8')),
    summary: await readFile(temp.files.GITHUB_STEP_SUMMARY, 'utf8'),
    runnerTemp: temp.dir,
    durationMs
  }
}
