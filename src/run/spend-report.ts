/**
 * mode: report with report-days (and `fleet-worker report`): the spend ledger over a window of
 * UTC days, with each PR's merged state read from the API, rendered into the job summary
 * (src/spend/report.ts). Runs no worker and writes nothing.
 */
import type { Outcome } from '../domain.js'
import { type Entry, ledgerName } from '../spend/entry.js'
import { inWindow, type PrState, spendReportMarkdown, windowDays } from '../spend/report.js'
import { outputs } from '../report/results.js'
import type { Run } from './run.js'
import { openLedger } from './spend.js'

/** Each PR the entries name, merged or not, as the API says now. */
async function prStates(run: Run, entries: readonly Entry[]): Promise<Map<number, PrState>> {
  if (!run.github) return new Map()
  const numbers = entries.flatMap(e => (e.pr === undefined ? [] : [e.pr]))
  return run.github.mergedStates(numbers, run.io.info)
}

export async function spendReport(run: Run): Promise<Outcome[]> {
  const { config, ctx, io } = run
  const branch = config.spend.ledgerBranch
  const ledger = await openLedger(run, branch, `report-${ctx.runId ?? process.pid}`)
  const read = await ledger.read()
  const days = windowDays(config.spend.reportDays ?? 7, Date.now())
  const entries = inWindow(read.entries, days)
  const prs = await prStates(run, entries)
  const merged = [...prs.values()].filter(p => p.merged).length
  const cost = entries.reduce((s, e) => s + e.cost, 0)
  io.info(
    `${ledgerName(branch)}: ${entries.length} entries in ${days.length} days, $${cost.toFixed(4)}, ${merged} merged PRs`
  )
  const where = run.github ? '' : '\n\n(No GitHub API to ask: every PR counts as not merged.)'
  const markdown = spendReportMarkdown({
    entries,
    prs,
    days,
    dailyCap: config.spend.caps.daily,
    ledger: ledgerName(branch)
  })
  for (const [name, value] of Object.entries(outputs([]))) io.setOutput(name, value)
  io.setOutput(
    'spend',
    JSON.stringify({
      days,
      tasks: entries.length,
      'cost-usd': Math.round(cost * 1e6) / 1e6,
      'prs-opened': new Set(entries.flatMap(e => (e.pr ? [e.pr] : []))).size,
      'prs-merged': merged,
      'cost-per-merged-pr-usd': merged ? Math.round((cost / merged) * 1e6) / 1e6 : null
    })
  )
  await (io.summary ? io.summary(markdown + where) : io.report([], markdown + where))
  return []
}
