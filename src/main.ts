import { describeError } from './errors.js'
import { type Outcome, type Task, UNFINISHED } from './domain.js'
import { actionsIo, type Io } from './io.js'
import { matrix, type SavedPlan, shardOf } from './modes/plan.js'
import { huntAllChildren } from './process.js'
import { letGoAll } from './git/kept.js'
import { settleCages } from './cage/teardown.js'
import { outputs } from './report/results.js'
import { failureMessage } from './run/failure.js'
import { runTasks } from './run/fleet.js'
import { makePlan, planByPlanner, refreshByRun, trainByRun } from './run/plan.js'
import { outcomeStore, planned, type Run, startRun, trackingFor } from './run/run.js'
import { reportShards } from './run/shards.js'
import { deferOverCaps, openSpend, settleSpend } from './run/spend.js'
import { spendReport } from './run/spend-report.js'
import * as commands from './workflow-commands.js'

export { actionsIo, type Io }

/** mode: plan — the matrix and the plan as outputs, queued issues marked, nothing run. */
async function planOnly(run: Run, plan: SavedPlan, planNote?: string): Promise<Outcome[]> {
  const { io } = run
  io.setOutput('matrix', JSON.stringify(matrix(plan.shards)))
  io.setOutput('plan', JSON.stringify(plan))
  if (run.github && plan.queue) await trackingFor(run, run.github, plan.tasks, plan.queue).start()
  const all = [
    ...plan.refused,
    ...planned(plan.tasks, `planned for mode: run in ${plan.shards} shards`)
  ]
  await io.report(
    all,
    [`Planned ${plan.tasks.length} tasks into ${plan.shards} shards.`, planNote]
      .filter(Boolean)
      .join('\n\n')
  )
  return plan.refused
}

/** mode: all or run (one shard): the tasks run (or, in a dry run, are only listed) and reported. */
async function runPlan(run: Run, plan: SavedPlan, planNote?: string): Promise<Outcome[]> {
  const { config, io } = run
  const isShard = config.mode === 'run'
  const tasks = isShard ? shardOf(plan.tasks, config.shard, plan.shards) : plan.tasks
  // Refusals are reported once, by shard 0.
  const refused = isShard && config.shard !== 0 ? [] : plan.refused
  if (isShard)
    io.info(
      `shard ${config.shard} of ${plan.shards}: ${tasks.map(t => t.id).join(', ') || 'no tasks'}`
    )
  if (config.dryRun || tasks.length === 0) {
    const outcomes = [...refused, ...planned(tasks, 'dry-run: planned, not run')]
    const dry = tasks.length
      ? 'Dry run: the tasks below were planned; no worker ran and nothing was pushed.'
      : undefined
    await io.report(outcomes, [dry, planNote].filter(Boolean).join('\n\n') || undefined)
    return outcomes
  }
  const spend = await openSpend(run, tasks).catch(async (error: unknown) => {
    // The ledger cannot be trusted: no task starts, each reported, and the step fails with why.
    await io.report([...refused, ...planned(tasks, `not started: ${failureMessage(error)}`)])
    throw error
  })
  const { start, deferred } = spend
    ? deferOverCaps(run, spend, tasks)
    : { start: tasks, deferred: [] }
  // Workers that could not be prepared (the cage, the binary, the key): each task says why.
  const ran = await runTasks(run, plan, start, deferred, error =>
    io.report([
      ...refused,
      ...inOrder(tasks, [...planned(start, `not started: ${failureMessage(error)}`), ...deferred])
    ])
  )
  const outcomes = [...refused, ...inOrder(tasks, [...ran.outcomes, ...deferred])]
  const spent = spend && (await settleSpend(run, spend, outcomes, config.land))
  if (isShard || !config.land)
    await outcomeStore(run).save({ shard: config.shard, outcomes, queue: plan.queue })
  const note = [planNote, ran.note, spent?.note].filter(Boolean).join('\n\n')
  await io.report(outcomes, note || undefined)
  if (spent?.error) throw spent.error
  return outcomes
}

/** Outcomes in their tasks' order (deferred ones were decided apart from the fleet's). */
function inOrder(tasks: Task[], outcomes: Outcome[]): Outcome[] {
  const at = new Map(tasks.map((t, i) => [t.id, i]))
  return [...outcomes].sort((a, b) => (at.get(a.id) ?? 0) - (at.get(b.id) ?? 0))
}

/** The whole flow, from inputs and event to reported outcomes. */
export async function fleetAction(env: NodeJS.ProcessEnv, io: Io): Promise<Outcome[]> {
  const run = await startRun(env, io)
  if (run.config.mode === 'report' && run.config.spend.reportDays) return spendReport(run)
  if (run.config.mode === 'report' || run.config.mode === 'land') return reportShards(run)
  const asked = await makePlan(run)
  if ('refresh' in asked) return refreshByRun(run, asked.refresh)
  if ('train' in asked) return trainByRun(run, asked.train)
  if ('ignore' in asked) {
    io.info(`Nothing to do: ${asked.ignore}.`)
    await io.report([], `Nothing to do: ${asked.ignore}.`)
    return []
  }
  const made = asked.planner ? await planByPlanner(run, asked.planner) : { plan: asked }
  if ('outcomes' in made) return made.outcomes
  const { plan } = made
  const planNote = 'note' in made ? made.note : undefined
  io.info(`${plan.tasks.length} tasks: ${plan.tasks.map(t => t.id).join(', ') || 'none'}`)
  if (run.config.mode === 'plan') return planOnly(run, plan, planNote)
  return runPlan(run, plan, planNote)
}

/** The action's entry: the one place that fails the step. */
export async function run(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  // A run that fails before its report still sets the outputs, empty, so a later step's
  // fromJSON(steps.<id>.outputs.results) reads [] instead of breaking.
  let reported = false
  const io: Io = {
    ...actionsIo,
    report: (outcomes, note) => {
      reported = true
      return actionsIo.report(outcomes, note)
    }
  }
  try {
    const outcomes = await fleetAction(env, io)
    const bad = outcomes.filter(o => UNFINISHED.includes(o.status))
    if (bad.length > 0) {
      commands.setFailed(
        `${bad.length} of ${outcomes.length} tasks did not land: ${bad.map(o => `${o.id} (${o.status})`).join(', ')}`
      )
    }
  } catch (error: unknown) {
    if (!reported)
      for (const [name, value] of Object.entries(outputs([]))) commands.setOutput(name, value)
    // The step's error stays one sentence; what caused it goes to the log, not lost.
    if (error instanceof Error && error.cause !== undefined)
      io.info(`Caused by: ${describeError(error.cause)}`)
    commands.setFailed(failureMessage(error))
  } finally {
    // Whatever the outcome, nothing this action started outlives it (a daemon a verify left). Its
    // cages' teardowns end first, and its own git processes kept open between requests are let go,
    // none counted as left.
    await settleCages()
    await letGoAll()
    const left = await huntAllChildren()
    if (left > 0) commands.info(`Stopped ${left} processes this run had left running.`)
  }
}

/**
 * The action's last step, after run(): nothing the run began should keep node running past it.
 * Were something to (a socket or a timer a bug left open), the step would hang until the job's
 * timeout, six hours by default; so after `graceMs` it says what still held it, and exits with the
 * step's code. The e2e stack fails any run that says so.
 */
export function exitIfHeld(graceMs = 10_000): void {
  setTimeout(() => {
    // While it runs, this timer is no longer listed: what is, is what kept node running.
    const held = process.getActiveResourcesInfo()
    commands.warning(
      `the run was over, yet ${held.join(', ') || 'something'} kept the action running ${graceMs / 1000} s later: it exits now`
    )
    process.exit()
  }, graceMs).unref()
}
