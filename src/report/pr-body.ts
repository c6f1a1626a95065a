import type { Outcome } from '../domain.js'
import type { Task } from '../domain.js'
import { duration, tokens } from './markdown.js'
import { cell, codeBlock, inlineCode } from './worker-text.js'

export interface RunInfo {
  runUrl?: string
}

/** What the action's own marker (the body's last line of its kind) says about a PR it opened. */
export interface PrMarker {
  task: string
  issue?: number
  /** Failed-check turns the PR has had. */
  fixUps: number
}

const MARKER_LINE =
  /^<!-- fleet-worker:task=([a-z0-9._-]+)(?: issue=(\d+))?(?: fix-ups=(\d+))? -->$/gm

/** The action's marker of a PR body; worker text cannot forge one (worker-text.ts breaks `<!--`). */
export function prMarker(body: string): PrMarker | undefined {
  const m = [...body.matchAll(MARKER_LINE)].at(-1)
  if (!m?.[1]) return undefined
  return { task: m[1], ...(m[2] ? { issue: Number(m[2]) } : {}), fixUps: Number(m[3] ?? 0) }
}

/** The issue a PR works on, as the action's own marker says (never a "Refs #N" a worker wrote). */
export function issueOfPrBody(body: string): number | undefined {
  return prMarker(body)?.issue
}

function issueOf(task: Task): number | undefined {
  if (task.source.kind === 'issue') return task.source.issue
  return task.source.kind === 'follow-up' ? task.source.issue : undefined
}

/**
 * The PR body: the task, what the worker said, the verify result and the worker's accounting.
 * Everything not written by the action is a code block of inert text (worker-text.ts), so the
 * one live marker is the action's own, last line.
 */
export function prBody(task: Task, o: Outcome, run: RunInfo): string {
  const u = o.usage
  const lines: string[] = []
  const issue = issueOf(task)
  if (issue) lines.push(`Refs #${issue}`, '')
  lines.push(`Opened by Fleet Worker for task \`${task.id}\`. A person reviews and merges.`, '')
  lines.push('### Task', '', codeBlock(task.prompt.slice(0, 6000)), '')
  if (o.finalMessage)
    lines.push("### Worker's final message", '', codeBlock(o.finalMessage.slice(0, 6000)), '')
  if (o.verify) {
    const v = o.verify
    const verdict = v.timedOut
      ? 'timed out'
      : v.exitCode === 0
        ? 'passed'
        : `failed (exit ${v.exitCode})`
    lines.push(
      `### Verify: ${verdict}`,
      '',
      inlineCode(v.command),
      '',
      codeBlock(v.tail || '(no output)'),
      ''
    )
    const first = o.verifyBeforeFixUp
    if (first) {
      lines.push(
        `It failed first (exit ${first.exitCode ?? 'none'}) and the worker had one fix-up turn. The first run's output ended:`,
        '',
        codeBlock(first.tail || '(no output)'),
        ''
      )
    }
  }
  lines.push(
    '### Worker',
    '',
    '| model | turns | input tokens | output tokens | cache read | attempts | duration |',
    '|---|---|---|---|---|---|---|',
    `| ${cell(o.model ?? 'default')} | ${o.turns} | ${tokens(u.input_tokens)} | ${tokens(u.output_tokens)} | ${tokens(u.cache_read_input_tokens)} | ${o.attempts} | ${duration(o.durationMs)} |`,
    ''
  )
  if (run.runUrl) lines.push(`[The run](${run.runUrl})`, '')
  const fixUps = task.source.kind === 'follow-up' ? (task.source.fixUps ?? 0) : 0
  lines.push(
    `<!-- fleet-worker:task=${task.id}${issue ? ` issue=${issue}` : ''}${fixUps ? ` fix-ups=${fixUps}` : ''} -->`
  )
  return lines.join('\n')
}
