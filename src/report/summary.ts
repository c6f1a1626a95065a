import type { Outcome, Parallelism } from '../domain.js'
import { usd } from '../prices.js'
import { cell, duration, tokens } from './markdown.js'
import { totals } from './results.js'

const ICON: Record<Outcome['status'], string> = {
  'pr-opened': '✅',
  'pr-updated': '🔁',
  pushed: '⬆️',
  'no-changes': '➖',
  'verify-failed': '⚠️',
  failed: '❌',
  'timed-out': '⏱️',
  'not-started': '⏸️',
  refused: '⛔',
  cancelled: '🛑',
  'up-to-date': '🟰',
  conflict: '🔀',
  ready: '📦',
  merged: '🚆',
  waiting: '⏳',
  blocked: '🚧',
  deferred: '💤'
}

function prCell(o: Outcome): string {
  return o.prUrl && o.prNumber ? `[#${o.prNumber}](${o.prUrl})` : cell(o.branch ?? '')
}

function limitText(p: Parallelism): string {
  switch (p.limitedBy) {
    case 'tasks':
      return 'every task had started (none was left waiting)'
    case 'max-parallel':
      return `max-parallel is ${p.cap}`
    case 'hard-cap':
      return `it reached the hard cap of 8 × cores (${p.cap})`
    case 'cpu':
      return 'the CPU had no room (two threads or more ready to run per core)'
    case 'memory':
      return "MemAvailable had no room for one more worker's reserve"
    case 'disk':
      return "the disk of the fleet's directory had no room for one more task's reserve"
    case 'upstream':
      return 'the endpoint takes no more requests at once (more workers would only queue)'
    case 'pacing':
      return 'starts are paced and workers finished as fast as they started'
  }
}

/** The scheduler's line in the summary: how wide the run got and what held it there. */
export function parallelismLine(p: Parallelism): string {
  const mode = p.mode === 'auto' ? 'max-parallel: auto' : `max-parallel: ${p.cap}`
  return `Peak parallelism: ${p.peak} worker${p.peak === 1 ? '' : 's'} at once (${mode}, ${p.cores} cores); it stopped there because ${limitText(p)}.`
}

/** A mermaid gantt of the workers: GitHub renders it in job summaries. */
export function timeline(outcomes: Outcome[]): string {
  const ran = outcomes.filter(o => o.startedAt !== undefined && o.endedAt !== undefined)
  if (ran.length === 0) return ''
  const t0 = Math.min(...ran.map(o => o.startedAt ?? 0))
  const lines = [
    '```mermaid',
    'gantt',
    '  title Workers',
    '  dateFormat x',
    '  axisFormat %M:%S',
    '  section Tasks'
  ]
  for (const o of ran) {
    const state = FAILING_TAG[o.status] ?? 'done'
    lines.push(
      `  ${o.id.replace(/:/g, '_')} :${state}, ${(o.startedAt ?? 0) - t0}, ${(o.endedAt ?? 0) - t0}`
    )
  }
  lines.push('```')
  return lines.join('\n')
}

const FAILING_TAG: Partial<Record<Outcome['status'], string>> = {
  failed: 'crit',
  'timed-out': 'crit',
  'verify-failed': 'active'
}

export function summaryMarkdown(outcomes: Outcome[], note?: string): string {
  const t = totals(outcomes)
  const out = ['## Fleet Worker', '']
  if (note) out.push(note, '')
  out.push(
    `${outcomes.length} tasks: ${t.succeeded} succeeded, ${t.failed} failed. ${t.turns} turns, ${tokens(t.tokensIn)} input and ${tokens(t.tokensOut)} output tokens${t.costUsd !== undefined ? `, about ${usd(t.costUsd)} at your prices` : ''}.`,
    '',
    '| task | status | PR | turns | tokens in / out | duration | model | note |',
    '|---|---|---|---|---|---|---|---|'
  )
  for (const o of outcomes) {
    const tin =
      o.usage.input_tokens + o.usage.cache_read_input_tokens + o.usage.cache_creation_input_tokens
    out.push(
      `| ${cell(o.title)} (\`${o.id}\`) | ${ICON[o.status]} ${o.status} | ${prCell(o)} | ${o.turns} | ${tokens(tin)} / ${tokens(o.usage.output_tokens)} | ${duration(o.durationMs)} | ${cell(o.model ?? 'default')} | ${cell(o.error ?? '')} |`
    )
  }
  const chart = timeline(outcomes)
  if (chart) out.push('', chart)
  return out.join('\n') + '\n'
}
