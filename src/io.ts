import type { Outcome } from './domain.js'
import { logText, printable } from './report/log-text.js'
import { outputs } from './report/results.js'
import { summaryMarkdown } from './report/summary.js'
import type { Task } from './domain.js'
import type { Progress } from './worker/spawn.js'
import * as commands from './workflow-commands.js'

/** The edges where the action and the CLI differ: logging, outputs and the summary. */
export interface Io {
  info: (message: string) => void
  warning: (message: string) => void
  setSecret: (secret: string) => void
  setOutput: (name: string, value: string) => void
  group: <T>(name: string, fn: () => Promise<T>) => Promise<T>
  report: (outcomes: Outcome[], note?: string) => Promise<void>
  /** A summary of its own (the spend report), in place of the outcomes' one. */
  summary?: (markdown: string) => Promise<void>
  onProgress?: (task: Task, progress: Progress) => void
  /** A task has its outcome (its worker is done). */
  onFinish?: (id: string) => void
}

/**
 * Every line the action logs goes through log-text.ts: much of it quotes a cage (setup or verify
 * output, a worker's words, errors) or an issue, and the runner reads commands from any line.
 * A warning's text is escaped as the data of a `::warning::` command (workflow-commands.ts).
 */
export const actionsIo: Io = {
  info: m => commands.info(logText(m)),
  warning: m => commands.warning(printable(m)),
  setSecret: commands.setSecret,
  setOutput: commands.setOutput,
  group: commands.group,
  async report(outcomes, note) {
    for (const [name, value] of Object.entries(outputs(outcomes))) commands.setOutput(name, value)
    await commands.appendSummary(summaryMarkdown(outcomes, note))
  },
  summary: commands.appendSummary,
  onProgress: (task, p) =>
    commands.info(logText(`[${task.id}] turn ${p.turn}, ${p.outputTokens} output tokens`))
}
