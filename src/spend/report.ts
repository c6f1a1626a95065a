/**
 * The spend report (mode: report with report-days, and `fleet-worker report`): what the ledger
 * says a window of UTC days cost, the PRs it opened and merged, and what each merged PR cost, by
 * model and by trigger, with a mermaid chart of spend per day against the daily cap. Pure.
 */
import { dayOf, usd } from './caps.js'
import type { Entry } from './entry.js'

export interface PrState {
  merged: boolean
}

export interface SpendReportInput {
  entries: readonly Entry[]
  /** What the API says of each PR the entries name (a PR it does not know counts as not merged). */
  prs: ReadonlyMap<number, PrState>
  /** The window's UTC days, oldest first (YYYY-MM-DD). */
  days: readonly string[]
  dailyCap?: number
  /** The ledger, as the report names it. */
  ledger: string
}

/** The last `n` UTC days up to the day of `now`, oldest first. */
export function windowDays(n: number, now: number): string[] {
  const today = Date.parse(`${dayOf(now)}T00:00:00Z`)
  return Array.from({ length: n }, (_, i) => dayOf(today - (n - 1 - i) * 86_400_000))
}

/** The entries recorded on one of the window's days. */
export function inWindow(entries: readonly Entry[], days: readonly string[]): Entry[] {
  const wanted = new Set(days)
  return entries.filter(e => wanted.has(dayOf(e.at)))
}

interface Totals {
  tasks: number
  cost: number
  opened: Set<number>
  merged: Set<number>
}

function totals(entries: readonly Entry[], prs: ReadonlyMap<number, PrState>): Totals {
  const t: Totals = { tasks: 0, cost: 0, opened: new Set(), merged: new Set() }
  for (const e of entries) {
    t.tasks++
    t.cost += e.cost
    if (e.pr === undefined) continue
    t.opened.add(e.pr)
    if (prs.get(e.pr)?.merged) t.merged.add(e.pr)
  }
  return t
}

const perMerged = (t: Totals) => (t.merged.size > 0 ? usd(t.cost / t.merged.size) : '—')

/** Markdown's table cells hold no pipe and no newline. */
const cell = (s: string) => s.replace(/[|\n\r]/g, ' ')

function table(
  title: string,
  key: string,
  groups: Map<string, Entry[]>,
  prs: ReadonlyMap<number, PrState>
): string[] {
  const rows = [...groups].sort(([a], [b]) => a.localeCompare(b))
  return [
    `### By ${title}`,
    '',
    `| ${key} | tasks | PRs opened | PRs merged | spend | spend per merged PR |`,
    '|---|---:|---:|---:|---:|---:|',
    ...rows.map(([name, entries]) => {
      const t = totals(entries, prs)
      return `| ${cell(name)} | ${t.tasks} | ${t.opened.size} | ${t.merged.size} | ${usd(t.cost)} | ${perMerged(t)} |`
    }),
    ''
  ]
}

function groupBy(entries: readonly Entry[], key: (e: Entry) => string): Map<string, Entry[]> {
  const groups = new Map<string, Entry[]>()
  for (const e of entries) groups.set(key(e), [...(groups.get(key(e)) ?? []), e])
  return groups
}

/** Each merged PR with what its tasks cost (every turn on it: the first and any follow-up). */
function mergedPrs(entries: readonly Entry[], prs: ReadonlyMap<number, PrState>): string[] {
  const byPr = groupBy(
    entries.filter(e => e.pr !== undefined && prs.get(e.pr)?.merged),
    e => String(e.pr)
  )
  if (byPr.size === 0) return []
  const rows = [...byPr].sort(([a], [b]) => Number(a) - Number(b))
  return [
    '### Merged PRs',
    '',
    '| PR | tasks | cost |',
    '|---|---:|---:|',
    ...rows.map(
      ([pr, es]) => `| #${pr} | ${es.length} | ${usd(es.reduce((s, e) => s + e.cost, 0))} |`
    ),
    ''
  ]
}

/** A number as the chart's data takes it: plain, at most 4 decimals. */
const plain = (n: number) => String(Math.round(n * 10_000) / 10_000)

/** Spend per day as a mermaid xychart: bars of spend, and the daily cap as a line. */
export function spendChart(
  entries: readonly Entry[],
  days: readonly string[],
  dailyCap?: number
): string {
  const perDay = days.map(d =>
    entries.filter(e => dayOf(e.at) === d).reduce((s, e) => s + e.cost, 0)
  )
  const top = Math.max(...perDay, dailyCap ?? 0, 0.01) * 1.1
  const title =
    dailyCap === undefined
      ? 'Spend per UTC day (USD)'
      : 'Spend per UTC day (USD) against budgets: daily-cost-usd'
  return [
    '```mermaid',
    'xychart-beta',
    `  title "${title}"`,
    `  x-axis [${days.map(d => `"${d.slice(5)}"`).join(', ')}]`,
    `  y-axis "USD" 0 --> ${plain(top)}`,
    `  bar [${perDay.map(plain).join(', ')}]`,
    ...(dailyCap === undefined ? [] : [`  line [${days.map(() => plain(dailyCap)).join(', ')}]`]),
    '```'
  ].join('\n')
}

/** The whole report, as the job summary shows it. */
export function spendReportMarkdown(input: SpendReportInput): string {
  const { prs, days } = input
  const entries = inWindow(input.entries, days)
  const t = totals(entries, prs)
  const span = `${days[0] ?? ''} to ${days.at(-1) ?? ''} (${days.length} UTC days)`
  const cap =
    input.dailyCap === undefined
      ? ''
      : ` The daily cap (budgets: daily-cost-usd) is ${usd(input.dailyCap)}.`
  return [
    `## Fleet Worker: spend, ${span}`,
    '',
    `From ${input.ledger}: ${t.tasks} tasks cost ${usd(t.cost)}; ${t.opened.size} PRs opened, ${t.merged.size} merged: ${perMerged(t)} per merged PR.${cap}`,
    '',
    ...(entries.length === 0
      ? []
      : [
          ...table(
            'model',
            'model',
            groupBy(entries, e => e.model ?? 'default'),
            prs
          ),
          ...table(
            'trigger',
            'trigger',
            groupBy(entries, e => e.trigger),
            prs
          ),
          ...mergedPrs(entries, prs)
        ]),
    '### Spend per day',
    '',
    spendChart(entries, days, input.dailyCap),
    ''
  ].join('\n')
}
