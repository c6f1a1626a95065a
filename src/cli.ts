/**
 * The local front door: the same engine as the action, on a developer's machine.
 *   fleet-worker run   --tasks-file tasks.yml [--max-parallel 2] [--model M] [--base-url U] ...
 *   fleet-worker plan  --tasks-file tasks.yml     print the tasks, ids and branches; run nothing
 *   fleet-worker plan  --goal "..."               the planner splits the goal; prints the tasks as YAML
 *   fleet-worker doctor                           check the claude binary, the inputs and the endpoint
 *   fleet-worker report [--report-days 7]         spend and cost per merged PR, from the spend ledger
 * Every action input is an option of the same name. The model key comes from ANTHROPIC_API_KEY /
 * ANTHROPIC_AUTH_TOKEN, the GitHub token (optional: PRs when given) from GITHUB_TOKEN.
 */
import { parseArgs } from 'node:util'
import { InputError } from './config.js'
import { INPUTS, inputEnvName, type InputName, type InputSpec, newForm } from './inputs.js'
import { fleetAction, type Io } from './main.js'
import { type Outcome, UNFINISHED } from './domain.js'
import { Board } from './progress.js'
import { huntAllChildren } from './process.js'
import { letGoAll } from './git/kept.js'
import { settleCages } from './cage/teardown.js'
import { Git } from './git/git.js'
import type { SavedPlan } from './modes/plan.js'
import { tasksYaml } from './planner/report.js'
import { logText, printable } from './report/log-text.js'
import { summaryMarkdown } from './report/summary.js'

/** Inputs whose action wording (repository secrets, workflow expressions) means nothing here. */
const CLI_SPEC: Partial<Record<string, [string, string | undefined]>> = {
  'api-key': [
    "The model endpoint's key. Better in the environment (ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN): an option is visible to other users in the process list.",
    undefined
  ],
  'github-token': ['Token for the push, and for PRs with --repository.', '$GITHUB_TOKEN']
}

/** A usage mistake: exit code 2, and the message alone. */
class UsageError extends Error {}

/** Action words in a message become CLI words: an input is an option here. */
export function cliWords(message: string): string {
  let text = message.replace(/^Input '([a-z-]+)': /, '--$1: ')
  for (const name of Object.keys(INPUTS)) text = text.replaceAll(`'${name}'`, `--${name}`)
  return text
}

const HELP = `fleet-worker: hand a batch of coding tasks to parallel headless Claude Code workers.

Usage:
  fleet-worker run    [options]   run the tasks in the repository (--repo, default .)
  fleet-worker plan   [options]   print the planned tasks, ids and branches; run nothing
                                  (with --goal "...": the planner splits the goal into tasks,
                                  printed as YAML on stdout, ready for --tasks-file)
  fleet-worker report [options]   spend over the last --report-days UTC days (default 7) from
                                  the spend ledger on the origin (--spend-ledger), by model and
                                  trigger, with PRs merged (--repository and GITHUB_TOKEN)
  fleet-worker doctor [options]   check claude, the inputs and the model endpoint
                                  (--offline: no request to the endpoint)

Options (the action's inputs):
${Object.entries(INPUTS)
  .map(([name, spec]: [string, InputSpec]) => {
    const [description, fallback] = spec.deprecated
      ? [
          `Deprecated: use --${spec.deprecated.input} '${newForm(name).replace(/^[^:]+: /, '')}'.`,
          undefined
        ]
      : (CLI_SPEC[name] ?? [spec.description, spec.default])
    return `  --${name.padEnd(24)} ${description}${fallback ? ` [default: ${fallback}]` : ''}`
  })
  .join('\n')}

  --repo DIR                   the local repository (default: current directory)
  --repository OWNER/REPO      open PRs in this GitHub repository (needs GITHUB_TOKEN)
  --api-url URL                GitHub API URL [default: https://api.github.com]
  -h, --help                   this help

Environment: ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN (model key), GITHUB_TOKEN (push; and PRs
with --repository).

Exit codes:
  0  every task landed (run), the plan was printed (plan), no problem found (doctor)
  1  a task did not land (failed, timed-out, verify-failed, refused), doctor found a problem, or
     a service failed (GitHub API, git remote, model endpoint)
  2  bad usage: an unknown command or option, an invalid option value, no tasks, no model key,
     or --repo is not a git repository
`

/**
 * The CLI's edges. With `yaml` (plan --goal), stdout holds only the planned tasks as YAML, ready
 * for a tasks file; everything else goes to stderr.
 */
function plainIo(yaml = false): Io {
  const out = yaml ? process.stderr : process.stdout
  const say = (text: string) => out.write(`${text}\n`)
  const board = new Board(text => out.write(text), out.isTTY)
  // A terminal acts on escape sequences; a runner (the CLI run in a workflow step) on commands.
  const shown = process.env.GITHUB_ACTIONS === 'true' ? logText : printable
  return {
    info: m => board.log(shown(m)),
    warning: m => console.warn(`warning: ${shown(m)}`),
    setSecret: () => undefined,
    setOutput: (name, value) => {
      if (yaml && name === 'plan')
        process.stdout.write(tasksYaml((JSON.parse(value) as SavedPlan).tasks))
      else if (name === 'plan' || name === 'matrix') say(`${name}: ${value}`)
    },
    group: async (name, fn) => {
      say(`== ${name}`)
      return fn()
    },
    report: (outcomes: Outcome[], note?: string) => {
      say(`\n${summaryMarkdown(outcomes, note).split('```mermaid')[0]?.trimEnd() ?? ''}`)
      return Promise.resolve()
    },
    summary: (markdown: string) => {
      say(`\n${markdown.trimEnd()}`)
      return Promise.resolve()
    },
    onProgress: (task, p) => board.progress(task.id, p.turn, p.outputTokens),
    onFinish: id => board.finish(id)
  }
}

/** CLI options become the INPUT_* variables the action reads, so both parse inputs one way. */
export function cliEnv(
  args: string[],
  base: NodeJS.ProcessEnv
): { env: NodeJS.ProcessEnv; positionals: string[] } {
  const options = Object.fromEntries(
    Object.keys(INPUTS).map(name => [name, { type: 'string' as const }])
  )
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      ...options,
      offline: { type: 'boolean' },
      repo: { type: 'string' },
      repository: { type: 'string' },
      'api-url': { type: 'string' },
      help: { type: 'boolean', short: 'h' }
    }
  })
  const env: NodeJS.ProcessEnv = { ...base }
  for (const name of Object.keys(INPUTS) as InputName[]) {
    const value = (values as Record<string, unknown>)[name]
    if (typeof value === 'string') env[inputEnvName(name)] = value
  }
  env.GITHUB_WORKSPACE = typeof values.repo === 'string' ? values.repo : process.cwd()
  if (typeof values.repository === 'string') env.GITHUB_REPOSITORY = values.repository
  if (typeof values['api-url'] === 'string') env.GITHUB_API_URL = values['api-url']
  if (base.GITHUB_TOKEN && !env[inputEnvName('github-token')])
    env[inputEnvName('github-token')] = base.GITHUB_TOKEN
  // Without a repository to open PRs in, the token still authenticates the pushes (a remote that
  // checks tokens refuses them otherwise); no PR is opened, as no API client is made without one.
  env.GITHUB_EVENT_NAME = 'workflow_dispatch'
  if (values.help) positionals.unshift('help')
  return { env, positionals }
}

/**
 * What `run` and `plan` need, checked before anything is installed or fetched, in the CLI's
 * words: tasks to run, a model key and a git repository to work in (run, and plan --goal).
 */
async function preflight(command: 'run' | 'plan', env: NodeJS.ProcessEnv): Promise<void> {
  const input = (name: InputName) => env[inputEnvName(name)]?.trim()
  const queue = env.GITHUB_REPOSITORY && input('github-token')
  const goal = input('goal')
  if (!input('tasks') && !input('tasks-file') && !goal && !queue)
    throw new UsageError(
      "no tasks: pass --tasks 'a prompt' (one per line, or a YAML list) or --tasks-file tasks.yml; or --goal 'a request' for the planner; or --repository OWNER/REPO with GITHUB_TOKEN to take the issues labelled fleet"
    )
  // Listing given tasks needs nothing more; planning from a goal runs a worker.
  if (command === 'plan' && !goal) return
  if (!input('api-key') && !env.ANTHROPIC_API_KEY && !env.ANTHROPIC_AUTH_TOKEN)
    throw new UsageError(
      'no model key: set ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN for a bearer token) in the environment'
    )
  const dir = env.GITHUB_WORKSPACE ?? process.cwd()
  const git = (args: string[]) => Git.create(dir, env).out(args)
  await git(['rev-parse', '--show-toplevel']).catch(() => {
    throw new UsageError(
      `--repo: '${dir}' is not a git repository; run fleet-worker inside a clone, or pass --repo DIR`
    )
  })
  if (!env.GITHUB_REPOSITORY)
    await git(['remote', 'get-url', 'origin']).catch(() => {
      throw new UsageError(
        `--repo: '${dir}' has no remote 'origin' to push the branches to; add one (git remote add origin URL) or pass --repository OWNER/REPO`
      )
    })
}

async function main(argv: string[]): Promise<number> {
  let parsed: ReturnType<typeof cliEnv>
  try {
    parsed = cliEnv(argv, process.env)
  } catch (error) {
    throw new UsageError(`${error instanceof Error ? error.message : String(error)}\n\n${HELP}`)
  }
  const { env, positionals } = parsed
  const command = positionals[0] ?? 'help'
  switch (command) {
    case 'run':
    case 'plan': {
      await preflight(command, env)
      if (command === 'plan') env[inputEnvName('dry-run')] = 'true'
      const yaml = command === 'plan' && Boolean(env[inputEnvName('goal')])
      const outcomes = await fleetAction(env, plainIo(yaml))
      return outcomes.some(o => UNFINISHED.includes(o.status)) ? 1 : 0
    }
    case 'report': {
      // The spend report: the ledger on the origin's branch, PRs read with --repository.
      env[inputEnvName('mode')] = 'report'
      if (!env[inputEnvName('report-days')]) env[inputEnvName('report-days')] = '7'
      await fleetAction(env, plainIo())
      return 0
    }
    case 'doctor': {
      const { doctor } = await import('./doctor.js')
      const checks = await doctor(env, { offline: argv.includes('--offline') })
      for (const c of checks)
        console.log(`${c.ok ? 'ok  ' : 'FAIL'} ${c.name}: ${cliWords(c.detail)}`)
      const failed = checks.filter(c => !c.ok).length
      console.log(failed ? `\n${failed} problem(s) found.` : '\nReady.')
      return failed ? 1 : 0
    }
    case 'help':
      console.log(HELP)
      return 0
    default:
      console.error(`unknown command '${command}'\n\n${HELP}`)
      return 2
  }
}

/** The CLI's entry (dist/cli/index.js calls it): runs one command and exits with its code. */
export function cli(argv: string[]): void {
  main(argv)
    // Whatever the outcome, nothing the run started outlives it; its cages' teardowns end and its
    // kept git processes are let go first.
    .finally(async () => {
      await settleCages()
      await letGoAll()
      await huntAllChildren()
    })
    .then(
      code => process.exit(code),
      (error: unknown) => {
        console.error(
          `fleet-worker: ${cliWords(error instanceof Error ? error.message : String(error))}`
        )
        process.exit(error instanceof UsageError || error instanceof InputError ? 2 : 1)
      }
    )
}
