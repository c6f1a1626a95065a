import { fence } from '../report/markdown.js'
import type { Task } from '../domain.js'
import { tasksYaml } from './goal.js'

/** The summary's part for a goal: the tasks as YAML, ready to paste into `tasks:`. */
export function goalReport(tasks: Task[]): string {
  return [
    "The planned tasks, ready for `tasks:` (the `plan` output holds them too, for `tasks:` or mode: run's `plan`):",
    '',
    fence(tasksYaml(tasks).trimEnd()).replace(/^(`+)\n/, '$1yaml\n')
  ].join('\n')
}
