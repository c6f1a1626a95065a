// The planner's turn in a run, as the action takes it: read the run's context and the asked-for
// plan, hand the planner (planner/) plain options, keep its transcript, shape its answer for the
// run. It is band 6 (docs/architecture.md), so planner/ only plans.
import path from 'node:path'
import type { Config } from '../config.js'
import { type RunContext, runUrl } from '../context.js'
import type { Outcome } from '../domain.js'
import type { GitHub } from '../github/github.js'
import type { Io } from '../io.js'
import { type SavedPlan, shardCount } from '../modes/plan.js'
import { planGoal } from '../planner/goal.js'
import { planOnIssue } from '../planner/issue.js'
import { keepWork } from '../report/artifacts.js'
import type { Plan } from '../triggers.js'
import type { Preparation } from './prepare.js'

/** What the action's run hands the planner. */
export interface PlannerAction {
  config: Config
  ctx: RunContext
  io: Io
  env: NodeJS.ProcessEnv
  github?: GitHub
  /** The run's key, cage, binary and remote, prepared as the fleet's workers' are. */
  prepare: Pick<Preparation, 'apiKey' | 'claude' | 'remoteUrl' | 'isolation'>
  /** The run's stop (a cancel). */
  signal?: AbortSignal
}

/**
 * The planner's turn in a run: `/fleet plan` ends here with the plan on the issue; a goal's tasks
 * go on as the run's plan. A bad answer is one failed outcome saying why.
 */
export async function usePlanner(
  run: PlannerAction,
  ask: NonNullable<Plan['planner']>
): Promise<{ outcomes: Outcome[]; note?: string } | { plan: SavedPlan; note: string }> {
  const { config, ctx, io } = run
  // A shard re-reading the comment must not plan (and edit the issue) once per shard.
  if (ask.kind === 'issue' && config.mode === 'run' && config.shard !== 0) return { outcomes: [] }
  const apiKey = run.prepare.apiKey(' for the planner')
  const root = path.join(ctx.runnerTemp, 'fleet-worker', `${ctx.runId ?? process.pid}-planner`)
  // The cage before any model request, as for workers.
  const isolation = await run.prepare.isolation()
  const deps = {
    config,
    isolation,
    claude: await run.prepare.claude(),
    apiKey,
    remoteUrl: await run.prepare.remoteUrl(),
    gitToken: config.githubToken,
    root,
    host: run.env,
    secrets: [config.githubToken ?? '', apiKey],
    log: io.info,
    onProgress: io.onProgress,
    signal: run.signal
  }
  // The planner's transcript is kept as the workers' are.
  const kept = async (note: string) =>
    [note, await keepWork(root, `fleet-plan-${ctx.runId ?? process.pid}`, run.env)]
      .filter(Boolean)
      .join(' ')
  if (ask.kind === 'issue') {
    if (!run.github)
      throw new Error("'/fleet plan' needs 'github-token' to read and edit the issue")
    const done = await planOnIssue(
      { ...deps, github: run.github, runUrl: runUrl(ctx) },
      {
        number: ask.issue,
        text: ask.text,
        phrase: config.triggerPhrase,
        prefix: config.branchPrefix
      }
    )
    return { outcomes: done.outcomes, note: await kept(done.note) }
  }
  const goal = await planGoal(deps, ask.goal)
  if ('failed' in goal)
    return { outcomes: [goal.failed], note: await kept('Planning the goal failed.') }
  const plan: SavedPlan = {
    version: 1,
    shards: shardCount(goal.tasks.length, config.maxJobs),
    tasks: goal.tasks,
    refused: []
  }
  return { plan, note: await kept(goal.note) }
}
