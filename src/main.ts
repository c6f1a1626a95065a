import * as core from '@actions/core'
import path from 'node:path'
import { type Config, InputError, parseConfig } from './config.js'
import { type RunContext, readContext, runUrl } from './context.js'
import { readEvent } from './event.js'
import { Git, tokenForms, withoutUserinfo } from './git/git.js'
import { runFleet } from './fleet/engine.js'
import { describeError } from './errors.js'
import { type Outcome, UNFINISHED } from './domain.js'
import { emptyOutcome, fleetBroke } from './fleet/pool.js'
import { createClient, type GitHub } from './github/client.js'
import { IssueTracking } from './github/tracking.js'
import { actionsIo, type Io } from './io.js'
import { matrix, parsePlan, type SavedPlan, shardCount, shardOf } from './modes/plan.js'
import { againstPlan } from './modes/missing.js'
import { landHandedOver } from './modes/land.js'
import { artifactStore, dirStore, type OutcomeStore } from './modes/store.js'
import { keepWork } from './report/artifacts.js'
import { outputs } from './report/results.js'
import { parallelismLine } from './report/summary.js'
import { huntAllChildren } from './process.js'
import type { Task } from './domain.js'
import { usePlanner } from './planning.js'
import { type Refresh, refreshPrs } from './refreshing.js'
import { goalReport } from './planner/report.js'
import { type Plan, planRequest } from './triggers.js'
import { resolveClaude } from './worker/install.js'
import { preflightSandbox } from './worker/sandbox-host.js'
import { checkBinaryInSandbox, type SandboxSetup } from './worker/sandbox-run.js'
import { resolveSkills } from './worker/skills.js'
import { GitError } from './git/git.js'
import { CANCEL_SIGNALS } from './worker/spawn.js'

export { actionsIo, type Io }

interface Run {
  config: Config
  ctx: RunContext
  io: Io
  env: NodeJS.ProcessEnv
  github?: GitHub
  startedAt: number
  /** This run's stop: aborted on a cancel; every worker, verify and wait of the run listens. */
  stop: AbortController
  apiKey?: string
  isolation?: Promise<SandboxSetup | undefined>
}

/** The model key: the input, else a key the environment already holds. Masked the moment it is read. */
function modelKey(config: Config, env: NodeJS.ProcessEnv, io: Io): string | undefined {
  const key = config.apiKey ?? env.ANTHROPIC_API_KEY ?? env.ANTHROPIC_AUTH_TOKEN
  if (key) io.setSecret(key)
  return key
}

/** Where to push: the checkout's origin (without any credential in it), else the repository on the server. */
async function remoteUrlOf(ctx: RunContext): Promise<string> {
  const got = await Git.create(ctx.workspace).exec(['remote', 'get-url', 'origin'], {
    allowFailure: true
  })
  const origin = got.exitCode === 0 ? got.stdout.trim() : ''
  return withoutUserinfo(origin) || `${ctx.serverUrl}/${ctx.owner}/${ctx.repo}.git`
}

function store(run: Run): OutcomeStore {
  return run.config.outcomesDir
    ? dirStore(path.resolve(run.ctx.workspace, run.config.outcomesDir))
    : artifactStore(path.join(run.ctx.runnerTemp, 'fleet-outcomes'))
}

/** The tasks this run is asked for: a plan handed over from mode: plan, or read from the event. */
async function makePlan(
  run: Run
): Promise<(SavedPlan & Pick<Plan, 'planner'>) | { ignore: string } | { refresh: Refresh }> {
  const { config, ctx } = run
  if (config.mode === 'run' && config.plan) {
    const plan = parsePlan(config.plan, config.branchPrefix)
    if (typeof plan === 'string') throw new InputError('plan', plan)
    return plan
  }
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

function planned(tasks: Task[], error: string): Outcome[] {
  return tasks.map(t => ({
    ...emptyOutcome(t, { status: 'not-started', error }),
    branch: t.branch
  }))
}

/** The claude workers run: in container isolation the image's own, so the runner needs none. */
async function workerClaude(run: Run): Promise<{ file: string; version: string }> {
  const { config, ctx, io } = run
  const claude =
    config.isolation === 'container'
      ? { file: 'claude', version: `the one in ${config.container.image}` }
      : await io.group('Worker binary', () =>
          resolveClaude({
            claudePath: config.claudePath,
            pathVar: run.env.PATH,
            host: run.env,
            installDir: path.join(ctx.runnerTemp, 'fleet-worker-claude'),
            log: io.info
          })
        )
  io.info(`claude: ${claude.version} (${claude.file})`)
  const sandbox = await prepareIsolation(run)
  if (sandbox) await checkBinaryInSandbox(sandbox, claude.file)
  return claude
}

const PROCESS_WARNING =
  "isolation: process gives workers no boundary: a worker can read the runner's secrets (the GitHub token in the action's environment), use sudo and reach every host. Use isolation: sandbox (the default) unless you trust every task's text."

/**
 * The cage before any worker or model request: the sandbox's preflight (which fails closed with
 * one sentence naming the fix, never falling back to process), or the warning that process is none.
 */
function prepareIsolation(run: Run): Promise<SandboxSetup | undefined> {
  // Once per run: the planner and the workers share it.
  run.isolation ??= isolationOnce(run)
  return run.isolation
}

async function isolationOnce(run: Run): Promise<SandboxSetup | undefined> {
  const { config, io } = run
  if (config.isolation === 'process') io.warning(PROCESS_WARNING)
  if (config.isolation !== 'sandbox') return undefined
  const host = await io.group('Sandbox', () => preflightSandbox(run.env, io.info))
  return { host, allowed: config.allowedDomains, blocked: new Map() }
}

/** The issues a run reports to, as one tracker (the GitHub client and this run's URL filled in). */
function trackingFor(
  run: Run,
  github: NonNullable<Run['github']>,
  tasks: Task[],
  queue: SavedPlan['queue']
): IssueTracking {
  const { octokit, repo } = github
  const url = runUrl(run.ctx)
  return new IssueTracking(octokit, repo, tasks, queue, url, run.io.info, run.stop.signal)
}

function requireApiKey(run: Run): string {
  if (!run.apiKey)
    throw new InputError(
      'api-key',
      'no model key: pass a repository secret, e.g. api-key: ${{ secrets.ANTHROPIC_API_KEY }}'
    )
  return run.apiKey
}

/**
 * The runner cancels with SIGINT, then SIGTERM 7.5 s later, then kills the process tree: on the
 * first, no new worker starts (`onCancel`) and the running ones stop. Returns the unsubscribe.
 */
function onCancelSignals(io: Io, stop: AbortController, onCancel: () => void): () => void {
  const handler = (signal: NodeJS.Signals) => {
    io.warning(
      `Cancelled (${signal}): no new worker starts; stopping the running ones and reporting every task.`
    )
    onCancel()
    stop.abort('the run was cancelled')
  }
  for (const signal of CANCEL_SIGNALS) process.once(signal, handler)
  return () => {
    for (const signal of CANCEL_SIGNALS) process.off(signal, handler)
  }
}

type FleetRun = Awaited<ReturnType<typeof runFleet>>
type FleetEnd = Pick<FleetRun, 'outcomes' | 'budgets'> &
  Partial<Pick<FleetRun, 'parallelism' | 'blocked'>>
type FleetOptions = Parameters<typeof runFleet>[0] & { onOutcome: (o: Outcome) => void }

/** The fleet's outcomes; if it breaks, every task reported with the failing service named. */
function fleetOrBroken(options: FleetOptions, io: Io): Promise<FleetEnd> {
  return runFleet(options).catch((error: unknown) => ({
    // Named for the service that failed (the git remote, the GitHub API), causes kept.
    outcomes: fleetBroke(
      options.tasks,
      new Error(failureMessage(error), {
        cause: error instanceof Error ? error.cause : undefined
      }),
      io.info,
      options.onOutcome
    ),
    budgets: [] as string[],
    parallelism: undefined
  }))
}

/** The summary's notes after a fleet ran: the process warning, the peak, the budgets, kept work. */
async function fleetNotes(run: Run, root: string, fleet: FleetEnd): Promise<string> {
  const { config, ctx, io } = run
  const note = await keepWork(
    root,
    `fleet-work-${ctx.runId ?? process.pid}-${config.shard}`,
    run.env
  )
  const peak = fleet.parallelism && parallelismLine(fleet.parallelism)
  if (peak) io.info(peak)
  const warned = config.isolation === 'process' ? `> [!WARNING]\n> ${PROCESS_WARNING}` : ''
  const spend = fleet.budgets.length > 0 ? `Budgets: ${fleet.budgets.join('; ')}.` : undefined
  const blocked = fleet.blocked?.length
    ? `The sandbox's proxy refused:\n${fleet.blocked.map(line => `- ${line}`).join('\n')}`
    : undefined
  return [warned, peak, spend, blocked, note].filter(Boolean).join('\n\n')
}

/** What every worker of the run needs before the first starts: the key, skills, cage, binary. */
async function workerSetup(run: Run) {
  // Read beside the steps below (it never throws): one git process off the way to the first worker.
  const remoteUrl = remoteUrlOf(run.ctx)
  const apiKey = requireApiKey(run)
  const skills = await resolveSkills(run.config.skills, run.ctx.workspace)
  const sandbox = await prepareIsolation(run)
  const claude = await workerClaude(run)
  return { apiKey, skills, sandbox, claude: claude.file, remoteUrl: await remoteUrl }
}

/** The engine's options for this run: its workers, where it pushes, and what it tells as it goes. */
function fleetOptions(
  run: Run,
  tasks: Task[],
  at: {
    root: string
    deadline: () => number
    tracking?: IssueTracking
    setup: Awaited<ReturnType<typeof workerSetup>>
  }
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

/** Runs the tasks' workers and lands their work; issues are tracked unless this is one shard. */
async function runTasks(
  run: Run,
  plan: SavedPlan,
  tasks: Task[]
): Promise<{ outcomes: Outcome[]; note?: string }> {
  const { config, ctx, io } = run
  const setup = await workerSetup(run)
  const tracking =
    run.github && config.mode === 'all' && config.land
      ? trackingFor(run, run.github, tasks, plan.queue)
      : undefined
  await tracking?.start()
  let deadline = run.startedAt + config.deadlineMs
  const unsubscribe = onCancelSignals(io, run.stop, () => (deadline = 0))
  const root = path.join(
    ctx.runnerTemp,
    'fleet-worker',
    `${ctx.runId ?? process.pid}-${config.shard}`
  )
  try {
    const options = fleetOptions(run, tasks, {
      root,
      deadline: () => deadline,
      tracking,
      setup
    })
    const fleet = await fleetOrBroken(options, io)
    return { outcomes: fleet.outcomes, note: await fleetNotes(run, root, fleet) }
  } finally {
    unsubscribe()
    // Whatever happened, the issues say how it ended and queued ones leave 'in progress'.
    await tracking?.finish()
  }
}

/** mode: land — handed-over work checked, pushed and PR'd (modes/land.ts); no worker, no model key. */
async function landShards(run: Run, outcomes: Outcome[]): Promise<Outcome[]> {
  const { config, ctx, io } = run
  return io.group('Land', async () =>
    landHandedOver(
      {
        config,
        store: store(run),
        remoteUrl: await remoteUrlOf(ctx),
        gitToken: config.githubToken,
        github: run.github,
        root: path.join(ctx.runnerTemp, 'fleet-land', `${ctx.runId ?? process.pid}`),
        checkout: run.env.GITHUB_WORKSPACE,
        runUrl: runUrl(ctx),
        log: io.info
      },
      outcomes
    )
  )
}

/**
 * mode: report — every shard's outcomes, merged into one summary, one comment per issue, the
 * outputs. mode: land the same, once the handed-over work is landed.
 */
async function reportShards(run: Run): Promise<Outcome[]> {
  const files = (await store(run).loadAll()).sort((a, b) => a.shard - b.shard)
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
  const outcomes = run.config.mode === 'land' ? await landShards(run, merged) : merged
  if (run.github) await reportToIssues(run, run.github, outcomes, files[0]?.queue ?? plan?.queue)
  await run.io.report(outcomes, `Merged from ${files.length} shards.`)
  if (lost.missing.length)
    throw new Error(
      `${lost.missing.map(s => `shard ${s}`).join(', ')} left no outcome: ${lost.outcomes.length} planned tasks were not run (reported as not-started)`
    )
  return outcomes
}

/** mode: report — each merged outcome told to its issue, as the shard itself would have. */
async function reportToIssues(
  run: Run,
  github: NonNullable<Run['github']>,
  outcomes: Outcome[],
  queue: SavedPlan['queue']
): Promise<void> {
  const tasks: Task[] = outcomes.map(o => ({
    id: o.id,
    title: o.title,
    prompt: '',
    branch: o.branch ?? '',
    source: o.source
  }))
  const tracking = trackingFor(run, github, tasks, queue)
  for (const o of outcomes)
    tracking.finished(
      tasks.find(t => t.id === o.id),
      o
    )
  await tracking.finish()
}

/** Inputs parsed, secrets masked, the runner's context read, the GitHub client made. */
async function startRun(env: NodeJS.ProcessEnv, io: Io): Promise<Run> {
  const config = parseConfig(env)
  for (const form of tokenForms(config.githubToken)) io.setSecret(form)
  const apiKey = modelKey(config, env, io)
  const ctx = await readContext(env)
  const octokit =
    config.githubToken && ctx.owner
      ? createClient(config.githubToken, ctx.apiUrl, io.info)
      : undefined
  return {
    config,
    ctx,
    io,
    env,
    startedAt: Date.now(),
    stop: new AbortController(),
    apiKey,
    github: octokit ? { octokit, repo: { owner: ctx.owner, repo: ctx.repo } } : undefined
  }
}

/**
 * A goal or `/fleet plan`: the planner worker writes the plan. Either the run ends here (its
 * outcomes reported) or it goes on with the planner's plan and a note for the summary.
 */
async function planByPlanner(
  run: Run,
  ask: NonNullable<Plan['planner']>
): Promise<{ outcomes: Outcome[] } | { plan: SavedPlan; note: string }> {
  const { config, ctx, io, env, apiKey } = run
  const made = await usePlanner(
    {
      config,
      ctx,
      io,
      env,
      github: run.github,
      apiKey,
      claude: async () => (await workerClaude(run)).file,
      remoteUrl: () => remoteUrlOf(ctx),
      isolation: () => prepareIsolation(run),
      signal: run.stop.signal
    },
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

/** A push to a base, or update-prs: the open fleet PRs on it brought up to date (src/refreshing.ts). */
async function refreshByRun(run: Run, ask: Refresh): Promise<Outcome[]> {
  // A cancel stops the running merge turn or verify, and no further PR is started.
  const unsubscribe = onCancelSignals(run.io, run.stop, () => undefined)
  try {
    return await refreshPrs(
      {
        config: run.config,
        ctx: run.ctx,
        io: run.io,
        env: run.env,
        github: run.github,
        apiKey: run.apiKey,
        claude: async () => (await workerClaude(run)).file,
        remoteUrl: () => remoteUrlOf(run.ctx),
        isolation: () => prepareIsolation(run),
        signal: run.stop.signal
      },
      ask
    )
  } finally {
    unsubscribe()
  }
}

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
    await io.report(
      outcomes,
      [
        tasks.length
          ? 'Dry run: the tasks below were planned; no worker ran and nothing was pushed.'
          : undefined,
        planNote
      ]
        .filter(Boolean)
        .join('\n\n') || undefined
    )
    return outcomes
  }
  const ran = await runTasks(run, plan, tasks)
  const outcomes = [...refused, ...ran.outcomes]
  if (isShard || !config.land)
    await store(run).save({ shard: config.shard, outcomes, queue: plan.queue })
  await io.report(outcomes, [planNote, ran.note].filter(Boolean).join('\n\n') || undefined)
  return outcomes
}

/** The whole flow, from inputs and event to reported outcomes. */
export async function fleetAction(env: NodeJS.ProcessEnv, io: Io): Promise<Outcome[]> {
  const run = await startRun(env, io)
  if (run.config.mode === 'report' || run.config.mode === 'land') return reportShards(run)
  const asked = await makePlan(run)
  if ('refresh' in asked) return refreshByRun(run, asked.refresh)
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

/** An error as one line that names the service that failed: GitHub API, git remote, or the input. */
export function failureMessage(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error)
  const request = (error as { request?: { method?: string; url?: string } } | null)?.request
  if (request?.url && typeof (error as { status?: unknown }).status === 'number')
    return `GitHub API (${request.method ?? 'GET'} ${request.url}): ${message}`
  if (error instanceof GitError && ['fetch', 'push', 'ls-remote'].includes(error.args[0] ?? ''))
    return `git remote: ${message}`
  return message
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
      core.setFailed(
        `${bad.length} of ${outcomes.length} tasks did not land: ${bad.map(o => `${o.id} (${o.status})`).join(', ')}`
      )
    }
  } catch (error: unknown) {
    if (!reported)
      for (const [name, value] of Object.entries(outputs([]))) core.setOutput(name, value)
    // The step's error stays one sentence; what caused it goes to the log, not lost.
    if (error instanceof Error && error.cause !== undefined)
      io.info(`Caused by: ${describeError(error.cause)}`)
    core.setFailed(failureMessage(error))
  } finally {
    // Whatever the outcome, nothing this action started outlives it (a daemon a verify left).
    const left = await huntAllChildren()
    if (left > 0) core.info(`Stopped ${left} processes this run had left running.`)
  }
}
