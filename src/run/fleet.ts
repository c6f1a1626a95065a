/**
 * The fleet's part of a run (mode: all, or one shard of mode: run): its workers prepared, its
 * issues tracked, the engine run with the run's stop and deadline, and the summary's notes.
 */
import path from 'node:path'
import { runUrl } from '../context.js'
import type { Outcome, Task } from '../domain.js'
import { type Cloned, runFleet, startClone } from '../fleet/engine.js'
import { fleetBroke } from '../fleet/pool.js'
import type { IssueTracking } from '../github/tracking.js'
import type { SavedPlan } from '../modes/plan.js'
import { keepWork } from '../report/artifacts.js'
import { parallelismLine } from '../report/summary.js'
import type { Isolation } from '../cage/isolation.js'
import { onCancelSignals } from './cancel.js'
import { failureMessage } from './failure.js'
import type { WorkerSetup } from './prepare.js'
import { type Run, trackingFor } from './run.js'

type FleetRun = Awaited<ReturnType<typeof runFleet>>
type FleetEnd = Pick<FleetRun, 'outcomes' | 'budgets'> &
  Partial<Pick<FleetRun, 'parallelism' | 'blocked'>>
type FleetOptions = Parameters<typeof runFleet>[0] & { onOutcome: (o: Outcome) => void }

/** The fleet's outcomes; if it breaks, every task reported with the failing service named. */
function fleetOrBroken(options: FleetOptions, log: (m: string) => void): Promise<FleetEnd> {
  return runFleet(options).catch((error: unknown) => ({
    // Named for the service that failed (the git remote, the GitHub API), causes kept.
    outcomes: fleetBroke(
      options.tasks,
      new Error(failureMessage(error), {
        cause: error instanceof Error ? error.cause : undefined
      }),
      log,
      options.onOutcome
    ),
    budgets: [] as string[],
    parallelism: undefined
  }))
}

/** The summary's notes after a fleet ran: the isolation's warning, the peak, the budgets, kept work. */
async function fleetNotes(
  run: Run,
  root: string,
  fleet: FleetEnd,
  isolation: Isolation
): Promise<string> {
  const { config, ctx, io } = run
  const note = await keepWork(
    root,
    `fleet-work-${ctx.runId ?? process.pid}-${config.shard}`,
    run.env
  )
  const peak = fleet.parallelism && parallelismLine(fleet.parallelism)
  if (peak) io.info(peak)
  const warned = isolation.warning ? `> [!WARNING]\n> ${isolation.warning}` : ''
  const spend = fleet.budgets.length > 0 ? `Budgets: ${fleet.budgets.join('; ')}.` : undefined
  const blocked = fleet.blocked?.length
    ? `The allowed-domains proxy refused:\n${fleet.blocked.map(line => `- ${line}`).join('\n')}`
    : undefined
  return [warned, peak, spend, blocked, note].filter(Boolean).join('\n\n')
}

/** The engine's options for this run: its workers, where it pushes, and what it tells as it goes. */
function fleetOptions(
  run: Run,
  tasks: Task[],
  at: { root: string; deadline: () => number; tracking?: IssueTracking; setup: WorkerSetup }
): FleetOptions {
  const { config, ctx, io } = run
  const byId = new Map(tasks.map(t => [t.id, t]))
  return {
    config,
    tasks,
    ...at.setup,
    gitToken: config.githubToken,
    root: at.root,
    handOver: config.land ? undefined : path.join(at.root, 'hand-over'),
    github: run.github,
    runUrl: runUrl(ctx),
    deadline: at.deadline,
    log: io.info,
    onStart: task => {
      io.info(`[${task.id}] started on ${task.branch}`)
      at.tracking?.running(task)
    },
    onProgress: io.onProgress,
    onOutcome: (o: Outcome) => {
      io.onFinish?.(o.id)
      io.info(
        `[${o.id}] ${o.status}${o.prUrl ? ` ${o.prUrl}` : ''}${o.error ? `: ${o.error}` : ''}`
      )
      at.tracking?.finished(byId.get(o.id), o)
    },
    signal: run.stop.signal
  }
}

/** The task an outcome decided before the fleet stands for (its issue's comment and labels). */
function taskOf(o: Outcome): Task {
  return { id: o.id, title: o.title, prompt: '', branch: o.branch ?? '', source: o.source }
}

/** Runs the tasks' workers and lands their work; issues are tracked unless this is one shard. */
export async function runTasks(
  run: Run,
  plan: SavedPlan,
  tasks: Task[],
  deferred: Outcome[] = [],
  /** Told why, before it is thrown, when the workers could not be prepared: no task started. */
  unprepared?: (error: unknown) => Promise<void>
): Promise<{ outcomes: Outcome[]; note?: string }> {
  const { config, ctx, io } = run
  const root = path.join(
    ctx.runnerTemp,
    'fleet-worker',
    `${ctx.runId ?? process.pid}-${config.shard}`
  )
  // No worker needs preparing when every task was deferred. The fleet's clone is begun while the
  // cage is checked and the worker binary probed: neither needs it (docs/performance.md).
  let cloning: Promise<Cloned> | undefined
  const beside = (remoteUrl: string) => {
    cloning = startClone({ config, tasks, root, remoteUrl, gitToken: config.githubToken })
    // Its failure is met where the fleet awaits it (fleetOrBroken names the service).
    cloning.catch(() => undefined)
    return cloning
  }
  const setup =
    tasks.length > 0
      ? await run.prepare.workers(beside).catch(async (error: unknown) => {
          await unprepared?.(error)
          throw error
        })
      : undefined
  const tracking =
    run.github && config.mode === 'all' && config.land
      ? trackingFor(run, run.github, [...tasks, ...deferred.map(taskOf)], plan.queue)
      : undefined
  await tracking?.start()
  // A spend cap deferred these: their issues say why, and stay queued.
  for (const o of deferred) tracking?.finished(taskOf(o), o)
  if (!setup) {
    await tracking?.finish()
    return { outcomes: [] }
  }
  let deadline = run.startedAt + config.deadlineMs
  const unsubscribe = onCancelSignals(io, run.stop, () => (deadline = 0))
  try {
    const options = {
      ...fleetOptions(run, tasks, { root, deadline: () => deadline, tracking, setup }),
      cloning
    }
    const fleet = await fleetOrBroken(options, io.info)
    return {
      outcomes: fleet.outcomes,
      note: await fleetNotes(run, root, fleet, setup.isolation)
    }
  } finally {
    unsubscribe()
    // Whatever happened, the issues say how it ended and queued ones leave 'in progress'.
    await tracking?.finish()
  }
}
