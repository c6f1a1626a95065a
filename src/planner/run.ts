import path from 'node:path'
import { openGateway } from '../fleet/engine.js'
import type { FleetConfig } from '../fleet/options.js'
import { FleetRepo } from '../git/repo.js'
import type { Task } from '../domain.js'
import type { Isolation } from '../cage/isolation.js'
import { runWorker, type WorkerRun } from '../worker/run.js'
import type { Progress } from '../worker/spawn.js'
import { type PlanAnswer, readAnswer } from './answer.js'
import { type PlannerAsk, plannerPrompt } from './prompt.js'
import { answerJsonSchema } from './schema.js'

/** What planner/ reads of the run's options: the fleet's (its gateway, its worker), and its own. */
export interface PlannerConfig extends FleetConfig {
  /** The most tasks a plan may hold. */
  maxTasks: number
  branchPrefix: string
}

export interface PlannerDeps {
  config: PlannerConfig
  claude: string
  apiKey: string
  remoteUrl: string
  gitToken?: string
  /** A fresh directory for the planner's clone, cage and transcript. */
  root: string
  host: NodeJS.ProcessEnv
  /** Strings that must never leave the run in a plan (the GitHub token, the model key). */
  secrets: string[]
  log: (message: string) => void
  onProgress?: (task: Task, progress: Progress) => void
  /** Where the planner runs: the run's isolation, so it is caged as workers are. */
  isolation: Isolation
  /** The run's stop (a cancel). */
  signal?: AbortSignal
}

export interface PlannerRun {
  answer: PlanAnswer
  worker?: WorkerRun
}

/**
 * The planner reads and searches the repository, nothing more: no Write, Edit or Bash, and the
 * default permission mode, which (measured with claude 2.1.332) refuses reads outside the working
 * directory, through symlinks too. Plan mode let Read open any file of the runner, and ended a run
 * with exit 1 after refusing a Bash write. Its answer comes back through --json-schema.
 */
export function plannerConfig(config: PlannerConfig): PlannerConfig {
  return {
    ...config,
    permissionMode: 'default',
    tools: ['Read', 'Glob', 'Grep'],
    allowedTools: [],
    disallowedTools: [],
    claudeArgs: [
      ...config.claudeArgs,
      '--json-schema',
      JSON.stringify(answerJsonSchema(config.maxTasks))
    ]
  }
}

/** A plan is posted on the issue: one that quotes a secret of the run (a prompt injection's aim) is not. */
export function holdsSecret(tasks: unknown, secrets: string[]): boolean {
  const text = JSON.stringify(tasks)
  return secrets.some(s => s.length >= 8 && text.includes(s))
}

/**
 * The planner's own clone and a worktree of the base branch, on a local branch never pushed. The
 * planner reads the base's files and nothing of its history (Read, Glob, Grep; no git): the base
 * is fetched at depth 1, borrowing the workspace's checkout as the fleet's clone does.
 */
async function plannerTree(deps: PlannerDeps, id: string) {
  const { repo, base } = await FleetRepo.clone({
    dir: path.join(deps.root, 'repo'),
    remoteUrl: deps.remoteUrl,
    token: deps.gitToken,
    base: deps.config.baseBranch,
    branches: [],
    checkout: deps.host.GITHUB_WORKSPACE,
    tipsOnly: true
  })
  const tree = await repo.worktree(id, `fleet-planner/${id}`, `refs/remotes/origin/${base}`)
  return { tree, base }
}

function plannerTask(ask: PlannerAsk, id: string, maxTasks: number): Task {
  return {
    id,
    title: 'plan',
    prompt: plannerPrompt(ask, maxTasks),
    branch: `fleet-planner/${id}`,
    source: ask.kind === 'issue' ? { kind: 'issue', issue: ask.issue.number } : { kind: 'input' }
  }
}

/** The planner's answer, if its worker finished and the answer is sound and holds no secret. */
function answerOf(worker: WorkerRun, deps: PlannerDeps): PlanAnswer {
  if (worker.verdict.kind !== 'ok')
    return { ok: false, error: `the planner did not finish: ${worker.verdict.error}` }
  const answer = readAnswer(
    { structured: worker.structuredOutput, finalMessage: worker.finalMessage },
    deps.config.maxTasks
  )
  if (answer.ok && holdsSecret(answer.tasks, deps.secrets))
    return {
      ok: false,
      error:
        "the planner's answer held a secret of this run (the GitHub token or the model key), so it was not used"
    }
  return answer
}

/** The planner as one worker, through the workers' own path (cage, isolation, retries), in a worktree of the base branch. */
export async function runPlanner(deps: PlannerDeps, ask: PlannerAsk): Promise<PlannerRun> {
  const { config } = deps
  const id = ask.kind === 'issue' ? `issue-${ask.issue.number}-plan` : 'plan'
  const { tree: made, base } = await plannerTree(deps, id)
  await using tree = made
  const task = plannerTask(ask, id, config.maxTasks)
  deps.log(`[${id}] planning on ${base}`)
  // The planner talks to the model through a gateway of its own, as every worker does.
  await using model = await openGateway({
    config,
    apiKey: deps.apiKey,
    hostEnv: deps.host,
    log: deps.log,
    isolation: deps.isolation
  })
  const caged = plannerConfig(config)
  const worker = await runWorker(
    {
      config: caged,
      isolation: deps.isolation,
      claude: deps.claude,
      model,
      root: deps.root,
      host: deps.host,
      isRoot: process.getuid?.() === 0,
      log: deps.log,
      onProgress: deps.onProgress,
      signal: deps.signal,
      prompt: t => t.prompt
    },
    task,
    tree.dir
  )
  return { worker, answer: answerOf(worker, deps) }
}
