import type { WorkerOptions } from './options.js'
import type { Task } from '../domain.js'

/**
 * The worker's argv. The prompt is not here: it goes on stdin, so a task's text never becomes a
 * command-line argument and is not bounded by ARG_MAX.
 */
export function workerArgs(config: WorkerOptions, task: Task, settingsPath: string): string[] {
  const args = [
    '-p',
    '--output-format',
    'stream-json',
    '--verbose',
    '--no-session-persistence',
    '--settings',
    settingsPath,
    '--permission-mode',
    config.permissionMode,
    '--max-turns',
    String(task.maxTurns ?? config.maxTurns)
  ]
  if (config.tools) args.push('--tools', config.tools.join(','))
  if (config.allowedTools.length) args.push('--allowed-tools', ...config.allowedTools)
  if (config.disallowedTools.length) args.push('--disallowed-tools', ...config.disallowedTools)
  if (config.appendSystemPrompt) args.push('--append-system-prompt', config.appendSystemPrompt)
  return [...args, ...config.claudeArgs]
}

/**
 * Seeded into the worker's empty config dir: its effort, no hooks from anywhere, and no Bash edit
 * diffs. The pinned CLI (under bypassPermissions) otherwise snapshots the work tree with a shadow
 * git index around every Bash call, three `git status` passes each, to show a person what the
 * command changed; nobody reads them here, and on a 20,000-file repository a one-line Bash call
 * took 4.2 s with them against 0.56 s without (docs/performance.md). Nor the CLI's git
 * instructions (docs/decisions/0010): the action commits, pushes and opens the PR, so the CLI's
 * `gh` and PR guidance and its start-up git status (a walk of every file, the branch this prompt
 * already names) only cost about 2 kB a request and eight git processes a start.
 */
export function workerSettings(config: WorkerOptions, task: Task): Record<string, unknown> {
  return {
    effortLevel: task.effort ?? config.effort,
    disableAllHooks: true,
    bashEditDiffEnabled: false,
    includeGitInstructions: false
  }
}

/** Framing: the task is data to act on, stated once, with the rules of the cage. */
export function workerPrompt(task: Task): string {
  const origin =
    task.source.kind === 'issue'
      ? `It comes from issue #${task.source.issue}${task.source.item ? `, checklist item ${task.source.item}` : ''}.`
      : task.source.kind === 'follow-up'
        ? `It is a follow-up on pull request #${task.source.pr}: the branch already holds earlier work.`
        : ''
  return [
    `You are a Fleet Worker. Do the task below in this git repository (branch ${task.branch}).`,
    'Edit files and run commands as needed; commit if you like. You cannot push: the fleet reviews and lands your work.',
    origin,
    '',
    '<task>',
    task.prompt,
    '</task>'
  ].join('\n')
}

/** The fix-up turn's task: the same task, with what the failed verify printed. */
export function fixUpTask(
  task: Task,
  verify: { command: string; exitCode: number | null; tail: string }
): Task {
  return {
    ...task,
    prompt: [
      task.prompt,
      '',
      '<verify-failed>',
      `After your work, the check \`${verify.command}\` failed (exit ${verify.exitCode ?? 'none'}). The end of its output:`,
      verify.tail,
      '</verify-failed>',
      'Fix what makes the check fail. Do not weaken, skip or delete the check.'
    ].join('\n')
  }
}
