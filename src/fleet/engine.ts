import path from 'node:path'
import type { FleetConfig } from './options.js'
import { FleetRepo } from '../git/repo.js'
import type { GitHub } from '../github/github.js'
import { checkPrices, namedModels, runModels } from './models.js'
import { prBody } from '../report/pr-body.js'
import type { Outcome, Parallelism, Task } from '../domain.js'
import type { Progress } from '../worker/spawn.js'
import { thisMachine } from './machine.js'
import { runPool } from './pool.js'
import { runTask, type TaskContext } from './task.js'
import { budgetLines } from '../gateway/budgets.js'
import { startGateway } from '../gateway/gateway.js'
import { keyVariable } from '../worker/env.js'
import type { WorkerGateway } from '../worker/run.js'
import { type Isolation, mayShowCheckout } from '../cage/isolation.js'

export interface FleetOptions {
  config: FleetConfig
  tasks: Task[]
  remoteUrl: string
  /** Credential for fetch and push, scoped to those commands. */
  gitToken?: string
  /** A fresh directory for the fleet's clone, worktrees, cages and transcripts. */
  root: string
  claude: string
  apiKey: string
  github?: GitHub
  runUrl?: string
  deadline: () => number
  log: (message: string) => void
  onStart?: (task: Task) => void
  onProgress?: (task: Task, progress: Progress) => void
  onOutcome?: (outcome: Outcome) => void
  hostEnv?: NodeJS.ProcessEnv
  /** The workspace's checkout, whose objects the fleet's clone borrows (GITHUB_WORKSPACE's). */
  checkout?: string
  /** Skill folders copied into every worker's config dir. */
  skills?: string[]
  /** Where the workers run, prepared once per run (prepareIsolation). */
  isolation: Isolation
  /** The run's stop: aborted (with its reason) on a cancel. */
  signal?: AbortSignal
  /** land: false — the directory each task's work is sealed into instead of pushed. */
  handOver?: string
  /**
   * The fleet's clone, already begun (startClone) beside the workers' preparation: the sandbox's
   * preflight and the worker binary's probes need none of it. Absent: runFleet begins it.
   */
  cloning?: Promise<Cloned>
}

/** The fleet's clone as FleetRepo.clone made it. */
export type Cloned = Awaited<ReturnType<typeof FleetRepo.clone>>

export interface FleetRun {
  outcomes: Outcome[]
  base: string
  /** Spend against each budget given, one line each, for the summary. */
  budgets: string[]
  /** How many workers ran at once at most, and what held it there. */
  parallelism: Parallelism
  /** What the allowed-domains proxy refused, one line each with the entry that would allow it. */
  blocked: string[]
}

/**
 * The model gateway for this run: the real key stays in it; workers get tokens, and its URL is
 * the one model endpoint a sandboxed worker can reach.
 */
export async function openGateway(
  opts: Pick<FleetOptions, 'config' | 'apiKey' | 'hostEnv' | 'log'> & {
    tasks?: readonly Task[]
    isolation: Pick<Isolation, 'gatewayHost'>
  }
): Promise<WorkerGateway & AsyncDisposable> {
  const { config } = opts
  const models = runModels(config, opts.tasks ?? [])
  checkPrices(config, namedModels(config, opts.tasks ?? []))
  const host = await opts.isolation.gatewayHost(opts.hostEnv ?? process.env)
  const gateway = await startGateway({
    upstream: config.baseUrl ?? 'https://api.anthropic.com',
    key: opts.apiKey,
    authHeader: keyVariable(config) === 'ANTHROPIC_AUTH_TOKEN' ? 'bearer' : 'x-api-key',
    budgets: config.budgets,
    prices: config.prices,
    models,
    allowedBetas: config.allowedBetas,
    concurrency: config.modelConcurrency,
    perWorker: config.maxRequestsPerWorker,
    maxAttempts: config.maxAttempts,
    smallModel: config.smallModel,
    recordBodies: config.recordBodies,
    host,
    log: opts.log
  })
  return { gateway, url: gateway.url, [Symbol.asyncDispose]: () => gateway.close() }
}

/** The engine the action and the CLI share: clone, then run every task through the pool. */
/** What one task's life needs: its worker's setting and where and how its work lands. */
function taskContext(
  opts: FleetOptions,
  run: { model: WorkerGateway; repo: FleetRepo; base: string; isolation: Isolation },
  prBodyFor: (outcome: Outcome) => string
): TaskContext {
  const { config } = opts
  return {
    worker: {
      config,
      claude: opts.claude,
      model: run.model,
      isolation: run.isolation,
      root: opts.root,
      host: opts.hostEnv ?? process.env,
      isRoot: process.getuid?.() === 0,
      skills: opts.skills,
      log: opts.log,
      onProgress: opts.onProgress,
      signal: opts.signal,
      deadline: opts.deadline
    },
    land: {
      config,
      repo: run.repo,
      base: run.base,
      github: opts.github,
      preserveDir: path.join(opts.root, 'preserved'),
      prBody: prBodyFor,
      handOver: opts.handOver
    }
  }
}

/** One line for the log: what the fleet's clone took from the checkout, and what it fetched. */
export function borrowedNote(b: {
  files: number
  shallow?: string[]
  partial: boolean
  fetched: number
  noFetch?: boolean
}): string {
  const cut = !b.partial && Boolean(b.shallow?.length)
  const history = b.partial
    ? "its objects are partial (a filter: checkout), so the base's history was fetched whole"
    : cut
      ? 'its history is cut (fetch-depth: 1), and so is the clone'
      : b.shallow
        ? "its history is cut but its boundary or HEAD could not be read, so the base's history was fetched whole"
        : undefined
  const fetch = b.noFetch
    ? "the remote's base is the checkout's HEAD, so there was no fetch"
    : cut
      ? 'the fetch brought only what it lacked at depth 1'
      : history
        ? undefined
        : 'the fetch brought only what it lacked'
  return `fleet clone: borrowed ${b.files} object files from the checkout; ${[history, fetch].filter(Boolean).join('; ')}: ${b.fetched} objects fetched`
}

/**
 * Begins the fleet's clone for this run, under `root`: it needs only where to fetch from, so a
 * caller may start it before the workers are prepared (FleetOptions.cloning).
 */
export function startClone(
  opts: Pick<
    FleetOptions,
    'root' | 'remoteUrl' | 'gitToken' | 'config' | 'tasks' | 'checkout' | 'hostEnv'
  >
): Promise<Cloned> {
  return FleetRepo.clone({
    dir: path.join(opts.root, 'repo'),
    remoteUrl: opts.remoteUrl,
    token: opts.gitToken,
    base: opts.config.baseBranch,
    branches: opts.tasks.map(t => t.branch),
    checkout: opts.checkout ?? (opts.hostEnv ?? process.env).GITHUB_WORKSPACE,
    checkoutViews:
      mayShowCheckout(opts.config.isolation) && opts.tasks.some(t => t.source.kind !== 'follow-up')
  })
}

/**
 * The fleet's clone for this run (begun by the caller, or here); its note said, the repository
 * told where its own notes go, and the commit the tasks that start at the base start at read
 * (FleetRepo.prepareStart), with the base of their views begun where they get views
 * (FleetRepo.prepareViews), to be made while the gateway opens (`views`: settled when made).
 */
async function cloneFor(
  opts: FleetOptions
): Promise<{ repo: FleetRepo; base: string; views?: Promise<void> }> {
  const { repo, base, borrowed } = await (opts.cloning ?? startClone(opts))
  if (borrowed) opts.log(borrowedNote(borrowed))
  repo.log = opts.log
  const { views, viewOwner, viewsHide } = opts.isolation
  if (opts.tasks.every(t => t.source.kind === 'follow-up')) return { repo, base }
  const ref = `refs/remotes/origin/${base}`
  if (!views) {
    // A failure is met by the first task, which awaits the same read.
    repo.prepareStart(ref).catch(() => undefined)
    return { repo, base }
  }
  return { repo, base, views: repo.prepareViews(ref, { owner: viewOwner, workspace: viewsHide }) }
}

/**
 * Workers per request slot the endpoint takes, once its limit is learnt: tuned on bench:parallel's
 * capped row (4 slots, 24 tasks of three 3 s turns, quiet): 1.5 took 1.20-1.24x the endpoint's
 * floor, 2 took 1.14-1.16x, 2.5 took 1.11-1.13x, 3 took 1.10-1.11x (docs/performance.md).
 */
const UPSTREAM_HEADROOM = 2.5

export async function runFleet(opts: FleetOptions): Promise<FleetRun> {
  const { config, tasks } = opts
  const { repo, base, views } = await cloneFor(opts)
  const byId = new Map(tasks.map(t => [t.id, t]))
  // The PR body reads the task by the outcome's id (the task itself as the fallback).
  const prBodyOf = (task: Task) => (outcome: Outcome) =>
    prBody(byId.get(outcome.id) ?? task, outcome, { runUrl: opts.runUrl })
  await using model = await openGateway({ ...opts, tasks })
  // The run's one base of the views (the workspace's checkout once checked, or the run's own) is
  // made once, before the first task starts: a task's own start then costs the same on any size.
  await views
  const { isolation } = opts
  const { outcomes, parallelism } = await runPool(tasks, {
    // In auto, workers start up to 2.5 times what the endpoint was learnt to take at once: a
    // worker spends part of its life between requests (starting, running tools, its exit), and
    // those beyond the limit wait in the gateway's queue, so a slot freed finds a request waiting.
    upstreamLimit: () => {
      const limit = model.gateway.limit()
      return Number.isFinite(limit) ? Math.ceil(limit * UPSTREAM_HEADROOM) : undefined
    },
    modelWaits: () => model.gateway.modelWaits(),
    maxParallel: config.maxParallel,
    machine: thisMachine(opts.hostEnv ?? process.env, opts.root),
    deadline: opts.deadline,
    stopReason: () => model.gateway.runBudgetSpent(),
    signal: opts.signal,
    onOutcome: opts.onOutcome,
    run: async (task, slot) => {
      const outcome = await runTask(
        taskContext(opts, { model, repo, base, isolation }, prBodyOf(task)),
        task,
        fn =>
          slot(() => {
            opts.onStart?.(task)
            return fn()
          })
      )
      return config.prices
        ? { ...outcome, costUsd: model.gateway.taskSpend(task.id).cost }
        : outcome
    }
  })
  const spend = budgetLines(
    config.budgets,
    config.prices !== undefined,
    model.gateway.runSpend(),
    outcomes.map(o => model.gateway.taskSpend(o.id))
  )
  return {
    outcomes,
    base,
    budgets: spend,
    parallelism,
    blocked: isolation.refused()
  }
}
