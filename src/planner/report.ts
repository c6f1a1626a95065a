import { stringify } from 'yaml'
import { fence } from '../report/markdown.js'
import type { Task } from '../domain.js'

/** The summary's part for a goal: the tasks as YAML, ready to paste into `tasks:`. */
export function goalReport(tasks: Task[]): string {
  return [
    "The planned tasks, ready for `tasks:` (the `plan` output holds them too, for `tasks:` or mode: run's `plan`):",
    '',
    fence(tasksYaml(tasks).trimEnd()).replace(/^(`+)\n/, '$1yaml\n')
  ].join('\n')
}

/** Tasks as the `tasks` input and `tasks-file` read them: `fleet-worker plan --goal` prints this. */
export function tasksYaml(tasks: Task[]): string {
  return stringify(
    tasks.map(t => ({
      id: t.id,
      title: t.title,
      prompt: t.prompt,
      ...(t.model ? { model: t.model } : {}),
      ...(t.maxTurns ? { 'max-turns': t.maxTurns } : {}),
      ...(t.verify ? { verify: t.verify } : {}),
      ...(t.effort ? { effort: t.effort } : {})
    })),
    { lineWidth: 0 }
  )
}
