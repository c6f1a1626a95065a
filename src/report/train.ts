import type { Outcome } from '../domain.js'
import { usd } from '../prices.js'
import { duration, tokens } from './markdown.js'
import { REFRESH_END, REFRESH_START } from './refresh.js'
import { cell, codeBlock, inert } from './worker-text.js'

/**
 * What the landing train writes: the PR body's record of the heads the action's own updates
 * carried a PR's content through (so an approval survives them), the train's one comment on a PR,
 * and the train's section of the summary. Pure.
 */

const CARRIED = /^<!-- fleet-worker:carried head=([0-9a-f]{40}) from=([0-9a-f,]*) -->$/m

/**
 * The heads whose content the PR's head `head` still is: the action brought the branch up to date
 * from them without a worker. Empty when the record is about another head (a worker's turn, or a
 * person's push, came after it).
 */
export function carriedFrom(body: string, head: string): string[] {
  const m = CARRIED.exec(body)
  if (!m || m[1] !== head) return []
  return (m[2] ?? '').split(',').filter(Boolean)
}

/** Most heads one record keeps: an approval older than that many updates is asked again. */
const KEPT = 20

/**
 * The body with its record replaced: `head` now carries the content of `from` (and of whatever
 * `from` carried). Undefined `head` drops the record (new content: a worker's turn). The record
 * sits just before the task marker, which stays last.
 */
export function withCarried(body: string, change?: { head: string; from: string }): string {
  const before = change ? carriedFrom(body, change.from) : []
  const lines = body.split('\n').filter(l => !CARRIED.test(l))
  if (!change) return lines.join('\n')
  const from = [change.from, ...before.filter(h => h !== change.from)].slice(0, KEPT)
  const record = `<!-- fleet-worker:carried head=${change.head} from=${from.join(',')} -->`
  const marker = lines.findLastIndex(l => l.startsWith('<!-- fleet-worker:task='))
  lines.splice(marker >= 0 ? marker : lines.length, 0, record)
  return lines.join('\n')
}

/** Starts the train's one comment on a PR; the key after it says what it is about. */
export const TRAIN_MARKER = '<!-- fleet-worker:train'

export const BLOCKED_LABEL = 'fleet:blocked'

/** The comment on a PR the train did not land: why, in GitHub's or verify's words, and what next. */
export function trainComment(c: {
  status: 'waiting' | 'blocked'
  base: string
  reason: string
  key: string
  tail?: string
  runUrl?: string
}): string {
  const lines =
    c.status === 'blocked'
      ? [
          `Fleet Worker's landing train did not merge this PR: brought up to date with \`${inert(c.base)}\`, its verify failed, so it is labelled \`${BLOCKED_LABEL}\` and the branch is left as it was. ${inert(c.reason)}.`,
          ...(c.tail ? ['', 'Its output ended:', '', codeBlock(c.tail)] : []),
          '',
          'Fix the branch (or ask for a follow-up with the trigger phrase); the next train tries it again.'
        ]
      : [
          `Fleet Worker's landing train is waiting to merge this PR into \`${inert(c.base)}\`: ${inert(c.reason)}.`,
          '',
          'The next train (or GitHub, where auto-merge is on) lands it once that is met.'
        ]
  return [...lines, ...(c.runUrl ? ['', `[The run](${c.runUrl})`] : []), '', c.key].join('\n')
}

export const trainKey = (what: string): string => `${TRAIN_MARKER} ${what} -->`

/** Where the landed PRs' costs come from: the spend ledger, none kept, or a ledger not read. */
export type LandedCostSource =
  { kind: 'ledger'; name: string } | { kind: 'none' } | { kind: 'unread'; reason: string }

/** The cost column's note: what a landed PR's cost is, or why it is unknown (—). */
function costNote(source: LandedCostSource): string {
  switch (source.kind) {
    case 'ledger':
      return `A landed PR's cost is everything its runs cost, its first run and each follow-up turn, as ${source.name} records them.`
    case 'none':
      return "A landed PR's cost is unknown (—): no spend ledger is kept, so its earlier runs were not recorded (set `spend-ledger`, or a spend cap, to keep one; docs/budgets.md)."
    case 'unread':
      return `A landed PR's cost is unknown (—): ${inert(source.reason)}.`
  }
}

/**
 * The train in the summary: its order, what landed (each with its cost over all its runs, from the
 * spend ledger, and what landing it took here: time, and the tokens and cost of a conflict's worker
 * turn), and why the rest wait or are blocked.
 */
export function trainSection(t: {
  base: string
  method?: string
  stops: Outcome[]
  cost?: LandedCostSource
}): string {
  const landed = t.stops.filter(o => o.status === 'merged')
  const rows = t.stops.map((o, i) => {
    const spent = `${tokens(o.usage.input_tokens + o.usage.output_tokens)} tokens${o.costUsd !== undefined ? `, ${usd(o.costUsd)}` : ''}`
    const cost =
      o.status !== 'merged' ? '' : o.landedCostUsd !== undefined ? usd(o.landedCostUsd) : '—'
    return `| ${i + 1} | [#${o.prNumber}](${o.prUrl}) ${cell(o.title)} | ${o.status} | ${cost} | ${duration(o.durationMs)} | ${spent} | ${cell(o.error ?? '')} |`
  })
  return [
    `### Landing train on \`${t.base}\``,
    '',
    `${landed.length} of ${t.stops.length} fleet PRs landed${t.method ? ` (${t.method})` : ''}, one at a time in this order; each was brought up to date with \`${t.base}\` as it then was and verified again before its merge.`,
    ...(landed.length ? ['', costNote(t.cost ?? { kind: 'none' })] : []),
    '',
    '| order | PR | outcome | cost | time | model use in this run | why |',
    '|---|---|---|---:|---|---|---|',
    ...rows
  ].join('\n')
}

/**
 * The train on an issue's live comment, in the merge-order slot (keep-fresh's section is replaced,
 * and replaces it next time): the issue's fleet PRs in the order the train took them, and what
 * became of each.
 */
export function trainIssueSection(t: { base: string; stops: Outcome[]; runUrl?: string }): string {
  const rows = t.stops.map(
    (o, i) =>
      `| ${i + 1} | #${o.prNumber} ${cell(o.title)} | ${o.status}${o.error ? `: ${cell(o.error)}` : ''} |`
  )
  return [
    REFRESH_START,
    `### Landing train on \`${inert(t.base)}\``,
    '',
    `The train took this issue's fleet PRs in this order${t.runUrl ? ` ([the run](${t.runUrl}))` : ''}: each approved one was brought up to date, verified again and merged, one at a time.`,
    '',
    '| order | PR | outcome |',
    '|---|---|---|',
    ...rows,
    REFRESH_END
  ].join('\n')
}
