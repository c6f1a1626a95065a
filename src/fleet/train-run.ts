import { FleetRepo } from '../git/repo.js'
import type { FleetPr } from '../github/fleet-prs.js'
import type { MergeMethod } from '../github/merge.js'
import type { Outcome } from '../domain.js'
import type { WorkerContext } from '../worker/run.js'
import { outcomeOf, type RefreshConfig } from './refresh.js'
import { type RefreshOptions, workerContext } from './refresh-run.js'
import { type TrainContext, ridePr } from './train.js'
import { trainOrder } from './train-rules.js'

export interface TrainOptions extends Omit<RefreshOptions, 'config'> {
  config: RefreshConfig
  method: MergeMethod
  markReady: boolean
  autoMerge: boolean
  rules: TrainContext['rules']
}

/**
 * The landing train over the PRs that may land: one clone of the base and their branches, the
 * order of the merge-order map (those sharing no file first), then one PR at a time, each against
 * the base as the previous merge left it. The model gateway opens only if a conflict needs a worker.
 */
export async function runTrain(opts: TrainOptions): Promise<Outcome[]> {
  const { repo } = await FleetRepo.clone({
    dir: `${opts.root}/repo`,
    remoteUrl: opts.remoteUrl,
    token: opts.gitToken,
    base: opts.base,
    branches: opts.prs.map(pr => pr.branch)
  })
  await using stack = new AsyncDisposableStack()
  let worker: Promise<WorkerContext> | undefined
  const ctx: TrainContext = {
    config: opts.config,
    repo,
    base: opts.base,
    github: opts.github,
    root: opts.root,
    host: opts.hostEnv,
    isolation: opts.isolation,
    worker: () => (worker ??= workerContext({ ...opts }, ctx, stack)),
    log: opts.log,
    runUrl: opts.runUrl,
    signal: opts.signal,
    method: opts.method,
    markReady: opts.markReady,
    autoMerge: opts.autoMerge,
    rules: opts.rules
  }
  const order = trainOrder(
    await Promise.all(
      opts.prs.map(async pr => ({ ...pr, files: await changedFiles(repo, opts.base, pr) }))
    )
  )
  opts.log(`The train's order: ${order.map(pr => `#${pr.number}`).join(', ')}`)
  const outcomes: Outcome[] = []
  for (const pr of order) {
    if (opts.signal?.aborted) {
      outcomes.push(
        outcomeOf(pr, {
          status: 'not-started',
          error: `not landed: ${String(opts.signal.reason)}`
        })
      )
      continue
    }
    outcomes.push(await ridePr(ctx, pr))
  }
  return outcomes
}

/** The files the PR changes against the base, as it stands before the train moves anything. */
async function changedFiles(repo: FleetRepo, base: string, pr: FleetPr): Promise<string[]> {
  const r = await repo.git.exec(
    ['diff', '--name-only', '-z', `refs/remotes/origin/${base}...refs/remotes/origin/${pr.branch}`],
    { allowFailure: true }
  )
  return r.stdout.split('\0').filter(Boolean)
}
