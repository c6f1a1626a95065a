import path from 'node:path'
import { type Outcome, ZERO_USAGE } from '../domain.js'
import { FleetRepo } from '../git/repo.js'
import type { FleetPr } from '../github/fleet-prs.js'
import type { GitHub } from '../github/github.js'
import type { OpenFleetPr } from '../report/refresh.js'
import type { Isolation } from '../cage/isolation.js'
import type { WorkerContext } from '../worker/run.js'
import { borrowedNote, openGateway } from './engine.js'
import { type RefreshConfig, type RefreshContext, refreshPr } from './refresh.js'

export interface RefreshOptions {
  config: RefreshConfig
  base: string
  prs: FleetPr[]
  remoteUrl: string
  gitToken?: string
  /** A fresh directory for the clone, worktrees and cages. */
  root: string
  /**
   * The workspace's checkout, whose objects the clone borrows; behind a shallow one the clone
   * stays shallow, each PR's history deepened only until it meets the base's (FleetRepo.meet).
   */
  checkout?: string
  github: GitHub
  /** Where a merge turn and verify run, prepared once per run (prepareIsolation). */
  isolation: Isolation
  /** The worker binary and the model key, asked for only when a conflict needs a worker turn. */
  claude: () => Promise<string>
  apiKey?: string
  hostEnv: NodeJS.ProcessEnv
  log: (message: string) => void
  runUrl?: string
  signal?: AbortSignal
}

/**
 * The fleet's open PRs on a base brought up to date, one at a time, oldest first: one clone of the
 * base and their branches; the model gateway opened only if a conflict needs a worker. Returns one
 * outcome per PR and, for the merge order, the files each now changes against the base.
 */
export async function refreshFleet(
  opts: RefreshOptions
): Promise<{ outcomes: Outcome[]; open: OpenFleetPr[] }> {
  await using stack = new AsyncDisposableStack()
  const ctx = await openRefresh(opts, stack)
  const outcomes: Outcome[] = []
  for (const pr of opts.prs) {
    if (opts.signal?.aborted) {
      outcomes.push(cancelled(pr, String(opts.signal.reason)))
      continue
    }
    outcomes.push(await refreshPr(ctx, pr))
  }
  const open = await Promise.all(
    opts.prs.map(async pr => ({
      number: pr.number,
      title: pr.title,
      status: outcomes.find(o => o.prNumber === pr.number)?.status,
      files: await changedFiles(ctx.repo, opts.base, pr.branch)
    }))
  )
  return { outcomes, open }
}

/**
 * The fleet's clone of the base and the PRs' branches, and the context their refreshes (or the
 * train's rides) share; the model gateway opens on `stack` only when a conflict needs a worker.
 */
export async function openRefresh(
  opts: RefreshOptions,
  stack: AsyncDisposableStack
): Promise<RefreshContext> {
  const { repo, borrowed } = await FleetRepo.clone({
    dir: path.join(opts.root, 'repo'),
    remoteUrl: opts.remoteUrl,
    token: opts.gitToken,
    base: opts.base,
    branches: opts.prs.map(pr => pr.branch),
    checkout: opts.checkout
  })
  if (borrowed) opts.log(borrowedNote(borrowed))
  repo.log = opts.log
  let worker: Promise<WorkerContext> | undefined
  const ctx: RefreshContext = {
    config: opts.config,
    repo,
    base: opts.base,
    github: opts.github,
    root: opts.root,
    host: opts.hostEnv,
    isolation: opts.isolation,
    worker: () => (worker ??= workerContext(opts, ctx, stack)),
    log: opts.log,
    runUrl: opts.runUrl,
    signal: opts.signal
  }
  return ctx
}

/** What a merge turn's worker needs: the gateway (closed with the run), the binary, the cage. */
export async function workerContext(
  opts: RefreshOptions,
  ctx: RefreshContext,
  stack: AsyncDisposableStack
): Promise<WorkerContext> {
  if (!opts.apiKey)
    throw new Error(
      "a conflict needs a worker turn, and there is no model key: pass 'api-key' (a repository secret)"
    )
  const model = stack.use(
    await openGateway({
      config: opts.config,
      apiKey: opts.apiKey,
      hostEnv: opts.hostEnv,
      log: opts.log,
      isolation: ctx.isolation
    })
  )
  return {
    config: opts.config,
    claude: await opts.claude(),
    model,
    isolation: ctx.isolation,
    root: opts.root,
    host: opts.hostEnv,
    isRoot: process.getuid?.() === 0,
    log: opts.log,
    signal: opts.signal
  }
}

function cancelled(pr: FleetPr, reason: string): Outcome {
  return {
    id: pr.id,
    title: pr.title,
    source: { kind: 'follow-up', pr: pr.number },
    status: 'not-started',
    branch: pr.branch,
    prNumber: pr.number,
    prUrl: pr.url,
    turns: 0,
    durationMs: 0,
    usage: ZERO_USAGE,
    attempts: 0,
    error: `not brought up to date: ${reason}`
  }
}

/** The files the branch changes against the base, as the PR shows them (the remote's heads). */
export async function changedFiles(
  repo: FleetRepo,
  base: string,
  branch: string
): Promise<string[]> {
  const r = await repo.git.exec(
    ['diff', '--name-only', '-z', `refs/remotes/origin/${base}...refs/remotes/origin/${branch}`],
    { allowFailure: true }
  )
  return r.stdout.split('\0').filter(Boolean)
}
