import type { Outcome } from '../fleet/outcome.js'
import type { Task } from '../tasks/task.js'
import { duration, fence, tokens } from './markdown.js'

export interface RunInfo {
  runUrl?: string
}

/** The PR body: the task, what the worker said, the verify result and the worker's accounting. */
export function prBody(task: Task, o: Outcome, run: RunInfo): string {
  const u = o.usage
  const lines: string[] = []
  if (task.source.kind === 'issue') lines.push(`Refs #${task.source.issue}`, '')
  if (task.source.kind === 'follow-up' && task.source.issue)
    lines.push(`Refs #${task.source.issue}`, '')
  lines.push(`Opened by Fleet Worker for task \`${task.id}\`. A person reviews and merges.`, '')
  lines.push('### Task', '', fence(task.prompt.slice(0, 6000)), '')
  if (o.finalMessage)
    lines.push("### Worker's final message", '', o.finalMessage.slice(0, 6000), '')
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
      `\`${v.command}\``,
      '',
      fence(v.tail || '(no output)'),
      ''
    )
    const first = o.verifyBeforeFixUp
    if (first) {
      lines.push(
        `It failed first (exit ${first.exitCode ?? 'none'}) and the worker had one fix-up turn. The first run's output ended:`,
        '',
        fence(first.tail || '(no output)'),
        ''
      )
    }
  }
  lines.push(
    '### Worker',
    '',
    '| model | turns | input tokens | output tokens | cache read | attempts | duration |',
    '|---|---|---|---|---|---|---|',
    `| ${o.model ?? 'default'} | ${o.turns} | ${tokens(u.input_tokens)} | ${tokens(u.output_tokens)} | ${tokens(u.cache_read_input_tokens)} | ${o.attempts} | ${duration(o.durationMs)} |`,
    ''
  )
  if (run.runUrl) lines.push(`[The run](${run.runUrl})`, '')
  lines.push(`<!-- fleet-worker:task=${task.id} -->`)
  return lines.join('\n')
}
