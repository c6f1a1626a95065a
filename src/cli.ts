/**
 * The local front door: the same engine as the action, on a developer's machine.
 *   fleet-worker run   --tasks-file tasks.yml [--max-parallel 2] [--model M] [--base-url U] ...
 *   fleet-worker plan  --tasks-file tasks.yml     print the tasks, ids and branches; run nothing
 *   fleet-worker plan  --goal "..."               the planner splits the goal; prints the tasks as YAML
 *   fleet-worker demo                             a local fleet against the built-in scripted model
 *   fleet-worker doctor                           check the claude binary, the inputs and the endpoint
 * Every action input is an option of the same name. The model key comes from ANTHROPIC_API_KEY /
 * ANTHROPIC_AUTH_TOKEN, the GitHub token (optional: PRs when given) from GITHUB_TOKEN.
 */
import { parseArgs } from 'node:util'
import { INPUTS, inputEnvName, type InputName } from './inputs.js'
import { fleetAction, type Io } from './main.js'
import { FAILING, type Outcome } from './fleet/outcome.js'
import { Board } from './progress.js'
import type { SavedPlan } from './modes/plan.js'
import { tasksYaml } from './planner/goal.js'
import { summaryMarkdown } from './report/summary.js'

const HELP = `fleet-worker: hand a batch of coding tasks to parallel headless Claude Code workers.

Usage:
  fleet-worker run    [options]   run the tasks in the repository (--repo, default .)
  fleet-worker plan   [options]   print the planned tasks, ids and branches; run nothing
                                  (with --goal "...": the planner splits the goal into tasks,
                                  printed as YAML on stdout, ready for --tasks-file)
  fleet-worker demo               a demo fleet on this machine: scripted model, local git remote,
                                  GitHub API mock; no key, no network (needs the dev dependencies)
  fleet-worker doctor [options]   check claude, the inputs and the model endpoint
                                  (--offline: no request to the endpoint)

Options (the action's inputs):
${Object.entries(INPUTS)
  .map(
    ([name, spec]) =>
      `  --${name.padEnd(24)} ${spec.description}${'default' in spec ? ` [default: ${spec.default}]` : ''}`
  )
  .join('\n')}

  --repo DIR                   the local repository (default: current directory)
  --repository OWNER/REPO      open PRs in this GitHub repository (needs GITHUB_TOKEN)
  --api-url URL                GitHub API URL [default: https://api.github.com]
  -h, --help                   this help

Environment: ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN (model key), GITHUB_TOKEN (push; and PRs
with --repository).
`

/**
 * The CLI's edges. With `yaml` (plan --goal), stdout holds only the planned tasks as YAML, ready
 * for a tasks file; everything else goes to stderr.
 */
function plainIo(yaml = false): Io {
  const out = yaml ? process.stderr : process.stdout
  const say = (text: string) => out.write(`${text}\n`)
  const board = new Board(text => out.write(text), out.isTTY)
  return {
    info: m => board.log(m),
    warning: m => console.warn(`warning: ${m}`),
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

async function main(argv: string[]): Promise<number> {
  const { env, positionals } = cliEnv(argv, process.env)
  const command = positionals[0] ?? 'help'
  switch (command) {
    case 'run':
    case 'plan': {
      if (command === 'plan') env[inputEnvName('dry-run')] = 'true'
      const yaml = command === 'plan' && Boolean(env[inputEnvName('goal')])
      const outcomes = await fleetAction(env, plainIo(yaml))
      return outcomes.some(o => FAILING.includes(o.status)) ? 1 : 0
    }
    case 'doctor': {
      const { doctor } = await import('./doctor.js')
      const checks = await doctor(env, { offline: argv.includes('--offline') })
      for (const c of checks) console.log(`${c.ok ? 'ok  ' : 'FAIL'} ${c.name}: ${c.detail}`)
      const failed = checks.filter(c => !c.ok).length
      console.log(failed ? `\n${failed} problem(s) found.` : '\nReady.')
      return failed ? 1 : 0
    }
    case 'demo': {
      const { demo } = await import('./demo.js')
      return demo()
    }
    case 'help':
      console.log(HELP)
      return 0
    default:
      console.error(`unknown command '${command}'\n\n${HELP}`)
      return 2
  }
}

main(process.argv.slice(2)).then(
  code => process.exit(code),
  (error: unknown) => {
    console.error(`fleet-worker: ${error instanceof Error ? error.message : String(error)}`)
    process.exit(1)
  }
)
