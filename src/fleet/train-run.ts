import type { MergeMethod } from '../github/merge.js'
import type { Outcome } from '../domain.js'
import { outcomeOf, type RefreshConfig } from './refresh.js'
import { changedFiles, openRefresh, type RefreshOptions } from './refresh-run.js'
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
  await using stack = new AsyncDisposableStack()
  const ctx: TrainContext = {
    ...(await openRefresh(opts, stack)),
    method: opts.method,
    markReady: opts.markReady,
    autoMerge: opts.autoMerge,
    rules: opts.rules
  }
  // The files each PR changes are read from the commit it shares with the base: behind a shallow
  // checkout each is deepened until it is here, one at a time (one clone, one shallow file).
  for (const pr of opts.prs) await ctx.repo.meet(opts.base, pr.branch)
  const order = trainOrder(
    await Promise.all(
      opts.prs.map(async pr => ({
        ...pr,
        files: await changedFiles(ctx.repo, opts.base, pr.branch)
      }))
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
