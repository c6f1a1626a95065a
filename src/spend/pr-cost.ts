/**
 * What one fleet PR cost over all its runs, from the spend ledger: the landing train's cost column.
 * Pure.
 */
import type { Entry } from './entry.js'

/** The PR as the ledger knows it: its number, its task id, and when it was opened. */
export interface LedgerPr {
  number: number
  /** The task id (the branch without branch-prefix). */
  task: string
  /** When the PR was opened (ISO 8601). */
  createdAt: string
}

/**
 * The ledger's entries for the PR: every run that opened or updated it (its first run and each
 * follow-up turn record its number in `pr`). An entry without `pr` counts when it is the PR's task
 * and was recorded once the PR existed: a turn on the PR that left no PR outcome (no changes, a
 * failure) in a ledger written before such entries named the PR.
 */
export function entriesOfPr(entries: readonly Entry[], pr: LedgerPr): Entry[] {
  const opened = Date.parse(pr.createdAt)
  return entries.filter(e =>
    e.pr !== undefined
      ? e.pr === pr.number
      : e.task === pr.task && !Number.isNaN(opened) && Date.parse(e.at) >= opened
  )
}

/** The PR's cost in USD: the sum over its entries, rounded to the ledger's micro-dollars. */
export function costOfPr(entries: readonly Entry[], pr: LedgerPr): { cost: number; runs: number } {
  const mine = entriesOfPr(entries, pr)
  const cost = mine.reduce((s, e) => s + e.cost, 0)
  return { cost: Math.round(cost * 1e6) / 1e6, runs: mine.length }
}
