/**
 * Each PR the landing train merged, with what it cost over all its runs (its first run and every
 * follow-up turn), read from the spend ledger when the run keeps one (a cap, or spend-ledger).
 * Without a ledger, or when it cannot be read, the cost is unknown and the summary says why; a
 * ledger that cannot be read never stops a train that has already merged.
 */
import type { Outcome } from '../domain.js'
import { describeError } from '../errors.js'
import type { FleetPr } from '../github/fleet-prs.js'
import type { RefreshAction } from '../run/refreshing.js'
import { openLedger } from '../run/spend.js'
import type { LandedCostSource } from '../report/train.js'
import { ledgerName } from '../spend/entry.js'
import { costOfPr } from '../spend/pr-cost.js'

export async function withLandedCosts(
  run: RefreshAction,
  prs: readonly FleetPr[],
  outcomes: Outcome[]
): Promise<{ outcomes: Outcome[]; source: LandedCostSource }> {
  const branch = run.config.spend.ledger
  if (!branch) return { outcomes, source: { kind: 'none' } }
  if (!outcomes.some(o => o.status === 'merged'))
    return { outcomes, source: { kind: 'ledger', name: ledgerName(branch) } }
  let entries
  try {
    const name = `train-${run.ctx.runId ?? process.pid}-${run.config.shard}`
    const ledger = await openLedger(run, branch, name)
    entries = (await ledger.read()).entries
  } catch (error) {
    const reason = `${ledgerName(branch)} could not be read: ${describeError(error)}`
    run.io.warning(`The landed PRs' costs are unknown: ${reason}`)
    return { outcomes, source: { kind: 'unread', reason } }
  }
  const landed = outcomes.map(o => {
    const pr = o.status === 'merged' ? prs.find(p => p.number === o.prNumber) : undefined
    if (!pr) return o
    const { cost, runs } = costOfPr(entries, {
      number: pr.number,
      task: pr.id,
      createdAt: pr.createdAt
    })
    run.io.info(`[${o.id}] #${pr.number} cost $${cost.toFixed(4)} over ${runs} runs (the ledger)`)
    return { ...o, landedCostUsd: cost }
  })
  return { outcomes: landed, source: { kind: 'ledger', name: ledgerName(branch) } }
}
