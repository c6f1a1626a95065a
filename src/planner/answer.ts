import { checklistItems, titleKey } from '../tasks/plan-section.js'
import { cleanText } from '../tasks/invisible.js'
import { AnswerSchema, type PlannedTask } from './schema.js'

export type PlanAnswer =
  | { ok: true; tasks: PlannedTask[]; via: 'structured output' | 'checklist' }
  | { ok: false; error: string }

const fail = (error: string): PlanAnswer => ({ ok: false, error })

function fromStructured(value: unknown): PlannedTask[] | string {
  const parsed = AnswerSchema.safeParse(value)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    const at = issue?.path.length ? ` at ${issue.path.join('.')}` : ''
    return `the planner's structured output is not a task list (${issue?.message ?? 'invalid'}${at})`
  }
  return parsed.data.tasks.map(t => ({
    title: cleanText(t.title).replace(/\s+/g, ' '),
    prompt: cleanText(t.prompt),
    ...(t.model?.trim() ? { model: t.model.trim() } : {}),
    ...(t.verify?.trim() ? { verify: t.verify.trim() } : {})
  }))
}

/** Nothing usable, too many, duplicate titles, empty prompts: each one sentence a person can act on. */
export function checkTasks(tasks: PlannedTask[], maxTasks: number): string | undefined {
  if (tasks.length === 0) return 'the planner proposed no tasks'
  if (tasks.length > maxTasks)
    return `the planner proposed ${tasks.length} tasks, more than max-tasks (${maxTasks}); ask for a smaller split or raise max-tasks`
  const untitled = tasks.findIndex(t => t.title === '')
  if (untitled >= 0) return `the planner's task ${untitled + 1} has no title`
  const seen = new Set<string>()
  for (const t of tasks) {
    const key = titleKey(t.title)
    if (seen.has(key))
      return `the planner gave two tasks the title '${t.title}'; each task needs its own title (its id comes from it)`
    seen.add(key)
  }
  const empty = tasks.find(t => t.prompt.trim() === '')
  if (empty) return `the planner's task '${empty.title}' has an empty prompt`
  return undefined
}

/**
 * The planner's answer: its structured output when the CLI has one, else the `- [ ]` checklist of
 * its final message (each item's indented lines are its prompt).
 */
export function readAnswer(
  answer: { structured?: unknown; finalMessage?: string },
  maxTasks: number
): PlanAnswer {
  let tasks: PlannedTask[]
  let via: 'structured output' | 'checklist' = 'structured output'
  if (answer.structured !== undefined && answer.structured !== null) {
    const read = fromStructured(answer.structured)
    if (typeof read === 'string') return fail(read)
    tasks = read
  } else {
    via = 'checklist'
    tasks = checklistItems(answer.finalMessage ?? '').map(i => ({
      title: i.title,
      prompt: i.prompt
    }))
    if (tasks.length === 0)
      return fail(
        'the planner answered without a plan: no structured output, and no `- [ ]` checklist in its final message'
      )
  }
  const problem = checkTasks(tasks, maxTasks)
  return problem ? fail(problem) : { ok: true, tasks, via }
}
