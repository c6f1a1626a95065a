/**
 * mode: report and mode: land — every shard's outcomes merged into one report: one summary, one
 * comment per issue, the outputs; for land, the handed-over work landed first (modes/land.ts).
 */
import path from 'node:path'
import { runUrl } from '../context.js'
import type { Outcome, Task } from '../domain.js'
import { InputError } from '../errors.js'
import type { GitHub } from '../github/github.js'
import { landHandedOver } from '../modes/land.js'
import { againstPlan } from '../modes/missing.js'
import { parsePlan, type SavedPlan } from '../modes/plan.js'
import type { ShardFile } from '../modes/store.js'
import { statusOnly, vouch } from '../modes/trust.js'
import { queueLabels, type QueueLabels } from '../github/queue.js'
import { outcomeStore, type Run, trackingFor } from './run.js'
import { openSpend, settleSpend } from './spend.js'

/** What mode: land reports: every outcome, what each issue is told, and the queue it may move. */
interface Landed {
  outcomes: Outcome[]
  forIssues: Outcome[]
  queue?: QueueLabels
}

/**
 * mode: land — handed-over work checked, pushed and PR'd (modes/land.ts); no worker, no model key.
 * Issues hear only of what this job can vouch for (modes/trust.ts), and of an outcome that came
 * without a bundle only its status word.
 */
async function landShards(
  run: Run,
  files: ShardFile[],
  plan: SavedPlan | undefined,
  handed: Outcome[]
): Promise<Landed> {
  const { config, ctx, io } = run
  const vouched = await vouch({
    payload: ctx.payload,
    plan,
    queued: files.some(f => f.queue !== undefined),
    ownQueue: queueLabels(config.queueLabel),
    github: run.github,
    outcomes: handed,
    log: io.info
  })
  const bundled = new Set(handed.filter(o => o.sealed).map(o => o.id))
  const outcomes = await io.group('Land', async () =>
    landHandedOver(
      {
        config,
        store: outcomeStore(run),
        remoteUrl: await run.prepare.remoteUrl(),
        gitToken: config.githubToken,
        github: run.github,
        root: path.join(ctx.runnerTemp, 'fleet-land', `${ctx.runId ?? process.pid}`),
        checkout: run.env.GITHUB_WORKSPACE,
        runUrl: runUrl(ctx),
        vouched,
        log: io.info
      },
      handed
    )
  )
  const forIssues = outcomes.map(o => (bundled.has(o.id) ? o : statusOnly(o)))
  return { outcomes, forIssues, queue: vouched.queue }
}

/** The task a merged outcome stands for. */
function taskOfOutcome(o: Outcome): Task {
  return { id: o.id, title: o.title, prompt: '', branch: o.branch ?? '', source: o.source }
}

/** mode: report — each merged outcome told to its issue, as the shard itself would have. */
async function reportToIssues(
  run: Run,
  github: GitHub,
  outcomes: Outcome[],
  queue: SavedPlan['queue']
): Promise<void> {
  const tasks: Task[] = outcomes.map(taskOfOutcome)
  const tracking = trackingFor(run, github, tasks, queue)
  for (const o of outcomes)
    tracking.finished(
      tasks.find(t => t.id === o.id),
      o
    )
  await tracking.finish()
}

/**
 * mode: report — every shard's outcomes, merged into one summary, one comment per issue, the
 * outputs. mode: land the same, once the handed-over work is landed.
 */
export async function reportShards(run: Run): Promise<Outcome[]> {
  const files = (await outcomeStore(run).loadAll()).sort((a, b) => a.shard - b.shard)
  const plan = run.config.plan ? parsePlan(run.config.plan, run.config.branchPrefix) : undefined
  if (typeof plan === 'string') throw new InputError('plan', plan)
  // With the plan, missing shards are reported task by task below; without it, nothing can be.
  if (files.length === 0 && !plan) {
    const where = run.config.outcomesDir
      ? `in outcomes-dir '${run.config.outcomesDir}'`
      : "in this run's artifacts"
    throw new Error(
      `mode: ${run.config.mode} found no shard's outcomes ${where}: did the mode: run (or land: false) jobs run (needs: of this job), and do they share outcomes-dir?`
    )
  }
  const lost = plan ? againstPlan(plan, files) : { outcomes: [], missing: [] }
  const merged = [...files.flatMap(f => f.outcomes), ...lost.outcomes]
  run.io.info(`${run.config.mode}: ${files.length} shards, ${merged.length} outcomes`)
  // mode: land writes the spend ledger the read-only run jobs only read (src/run/spend.ts).
  const land = run.config.mode === 'land'
  const spend = land ? await openSpend(run, merged.map(taskOfOutcome)) : undefined
  const landed = land
    ? await landShards(run, files, plan, merged)
    : { outcomes: merged, forIssues: merged, queue: files[0]?.queue ?? plan?.queue }
  const { outcomes } = landed
  const spent = spend && (await settleSpend(run, spend, outcomes, true))
  if (run.github) await reportToIssues(run, run.github, landed.forIssues, landed.queue)
  await run.io.report(
    outcomes,
    [`Merged from ${files.length} shards.`, spent?.note].filter(Boolean).join('\n\n')
  )
  if (spent?.error) throw spent.error
  if (lost.missing.length)
    throw new Error(
      `${lost.missing.map(s => `shard ${s}`).join(', ')} left no outcome: ${lost.outcomes.length} planned tasks were not run (reported as not-started)`
    )
  return outcomes
}
