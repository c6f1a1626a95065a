/**
 * What a run is asked to do, as a plan: handed over from mode: plan, read from the event (a task
 * list, an issue, a comment, the queue), written by the planner for a goal or `/fleet plan`, or a
 * push that asks for the fleet's PRs to be brought up to date.
 */
import { InputError } from '../errors.js'
import { readEvent } from '../event.js'
import { matrix, parsePlan, type SavedPlan, shardCount } from '../modes/plan.js'
import type { Outcome } from '../domain.js'
import { goalReport } from '../planner/report.js'
import { type Refresh, refreshPrs } from './refreshing.js'
import { landingTrain, type Train } from '../modes/merge.js'
import { type Plan, planRequest } from '../triggers.js'
import { onCancelSignals } from './cancel.js'
import { planned, type Run } from './run.js'

export type Asked =
  (SavedPlan & Pick<Plan, 'planner'>) | { ignore: string } | { refresh: Refresh } | { train: Train }

/** The tasks this run is asked for: a plan handed over from mode: plan, or read from the event. */
export async function makePlan(run: Run): Promise<Asked> {
  const { config, ctx } = run
  if (config.mode === 'run' && config.plan) {
    const plan = parsePlan(config.plan, config.branchPrefix)
    if (typeof plan === 'string') throw new InputError('plan', plan)
    return plan
  }
  if (config.mode === 'merge')
    return { train: { kind: 'train', why: `mode: merge on ${ctx.eventName}` } }
  const request = readEvent(ctx.eventName, ctx.payload, {
    hasTasks: config.tasks.trim() !== '' || config.tasksFile !== undefined,
    triggerPhrase: config.triggerPhrase,
    queueLabel: config.queueLabel,
    goal: config.goal,
    branchPrefix: config.branchPrefix,
    addressReviews: config.addressReviews,
    fixFailingChecks: config.fixFailingChecks,
    allowedBots: config.allowedBots,
    updatePrs: config.updatePrs
  })
  if (request.kind === 'ignore') return { ignore: request.reason }
  if (request.kind === 'refresh') return { refresh: request }
  if (request.kind === 'train') return { train: request }
  const plan = await planRequest(request, { config, ctx, github: run.github, log: run.io.info })
  if (plan.ignore) return { ignore: plan.ignore }
  if (plan.tasks.length === 0 && plan.refused.length === 0 && request.kind === 'tasks') {
    throw new InputError(
      'tasks',
      "no tasks given: write one prompt per line, or a YAML list, in 'tasks' or in the file named by 'tasks-file'"
    )
  }
  return { version: 1, shards: shardCount(plan.tasks.length, config.maxJobs), ...plan }
}

/**
 * A goal or `/fleet plan`: the planner worker writes the plan. Either the run ends here (its
 * outcomes reported) or it goes on with the planner's plan and a note for the summary.
 */
export async function planByPlanner(
  run: Run,
  ask: NonNullable<Plan['planner']>
): Promise<{ outcomes: Outcome[] } | { plan: SavedPlan; note: string }> {
  const { config, ctx, io, env } = run
  // The planner (and the Markdown reader its plans go through) loads only for a planner's run.
  const { usePlanner } = await import('./planning.js')
  const made = await usePlanner(
    { config, ctx, io, env, github: run.github, prepare: run.prepare, signal: run.stop.signal },
    ask
  )
  if ('outcomes' in made) {
    await io.report(made.outcomes, made.note)
    return made
  }
  const plan = made.plan
  const note = `${made.note}\n\n${goalReport(plan.tasks)}`
  if (config.mode !== 'plan') {
    io.setOutput('matrix', JSON.stringify(matrix(plan.shards)))
    io.setOutput('plan', JSON.stringify(plan))
  }
  if (!config.runPlan && config.mode === 'all' && !config.dryRun) {
    const all = planned(plan.tasks, 'planned, not run: set run-plan: true to run the tasks')
    await io.report(all, note)
    return { outcomes: all }
  }
  return { plan, note }
}

/** mode: merge, or `/fleet merge` from a writer: the landing train (src/modes/merge.ts). */
export async function trainByRun(run: Run, ask: Train): Promise<Outcome[]> {
  const unsubscribe = onCancelSignals(run.io, run.stop, () => undefined)
  try {
    const { config, ctx, io, env, github, apiKey, prepare } = run
    return await landingTrain(
      { config, ctx, io, env, github, apiKey, prepare, signal: run.stop.signal },
      ask
    )
  } finally {
    unsubscribe()
  }
}

/** A push to a base, or update-prs: the open fleet PRs on it brought up to date (src/refreshing.ts). */
export async function refreshByRun(run: Run, ask: Refresh): Promise<Outcome[]> {
  // A cancel stops the running merge turn or verify, and no further PR is started.
  const unsubscribe = onCancelSignals(run.io, run.stop, () => undefined)
  try {
    const { config, ctx, io, env, github, apiKey, prepare } = run
    return await refreshPrs(
      { config, ctx, io, env, github, apiKey, prepare, signal: run.stop.signal },
      ask
    )
  } finally {
    unsubscribe()
  }
}
