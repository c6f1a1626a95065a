import { parseDocument } from 'yaml'
import { z } from 'zod'
import { EFFORTS } from '../domain.js'
import { branchFor, idFromPrompt, idProblem } from './ids.js'
import type { Task } from '../domain.js'

export class TaskListError extends Error {
  override name = 'TaskListError'
}

const objectItem = z
  .object({
    id: z.string().optional(),
    prompt: z.string().min(1, 'prompt must not be empty'),
    title: z.string().optional(),
    model: z.string().optional(),
    'max-turns': z.number().int().min(1).optional(),
    verify: z.string().optional(),
    effort: z.enum(EFFORTS).optional()
  })
  .strict()

const item = z.union([z.string().min(1), objectItem])

type Item = z.infer<typeof item>

/** The first line of the prompt, cut to a PR-title length. */
export function titleOf(prompt: string): string {
  const line = prompt.trim().split('\n')[0]?.trim() ?? ''
  return line.length > 72 ? `${line.slice(0, 69)}...` : line
}

/** A YAML list starts with '- '; a JSON list is bracketed. A line like "[docs] fix" is a prompt. */
function looksLikeList(text: string): boolean {
  const t = text.trim()
  return (
    /^-\s/.test(t) ||
    (t.startsWith('[') && (t.endsWith(']') || /^\[\s*[{"'[]/.test(t))) ||
    /^\{\s*"version"\s*:/.test(t)
  )
}

/**
 * The `plan` output of mode: plan or of a `goal` (a SavedPlan) is a task list too: its tasks as
 * items, so `tasks: ${{ needs.plan.outputs.plan }}` works. Branches are made again from ids.
 */
function fromSavedPlan(value: unknown): unknown[] | undefined {
  const v = value as { version?: unknown; tasks?: unknown }
  if (typeof v !== 'object' || v === null || v.version !== 1 || !Array.isArray(v.tasks))
    return undefined
  return v.tasks.map((t: Record<string, unknown>) =>
    Object.fromEntries(
      Object.entries({
        id: t.id,
        prompt: t.prompt,
        title: t.title,
        model: t.model,
        'max-turns': t.maxTurns,
        verify: t.verify,
        effort: t.effort
      }).filter(([, x]) => x !== undefined)
    )
  )
}

function parseStructured(text: string, source: string): unknown[] {
  // maxAliasCount guards against alias bombs ("billion laughs"); a list of tasks needs no aliases.
  const doc = parseDocument(text, { prettyErrors: true })
  if (doc.errors.length > 0) {
    throw new TaskListError(`${source}: not valid YAML/JSON: ${doc.errors[0]?.message ?? ''}`)
  }
  let value: unknown
  try {
    value = doc.toJS({ maxAliasCount: 0 })
  } catch (error) {
    throw new TaskListError(`${source}: ${(error as Error).message}`, { cause: error })
  }
  const saved = fromSavedPlan(value)
  if (saved) return saved
  if (!Array.isArray(value)) {
    throw new TaskListError(
      `${source}: expected a list of tasks (YAML '- ...' items or a JSON array)`
    )
  }
  return value
}

function toTask(raw: Item, index: number, source: string, prefix: string): Task {
  const fields = typeof raw === 'string' ? { prompt: raw } : raw
  const prompt = fields.prompt.trim()
  const id = fields.id ?? idFromPrompt(prompt)
  const problem = idProblem(id)
  if (problem) throw new TaskListError(`${source}: item ${index + 1}: ${problem}`)
  const task: Task = {
    id,
    prompt,
    title: fields.title?.trim() || titleOf(prompt),
    branch: branchFor(prefix, id),
    source: { kind: 'input' }
  }
  if (typeof raw !== 'string') {
    if (raw.model) task.model = raw.model
    if (raw['max-turns']) task.maxTurns = raw['max-turns']
    if (raw.verify) task.verify = raw.verify
    if (raw.effort) task.effort = raw.effort
  }
  return task
}

/**
 * Tasks from text: a YAML/JSON list, or else one prompt per non-empty line.
 * `source` names the input in errors, e.g. "Input 'tasks'".
 */
export function parseTasks(
  text: string,
  source: string,
  prefix: string,
  opts: { list?: boolean } = {}
): Task[] {
  if (text.trim() === '' && !opts.list) return []
  const items: unknown[] =
    opts.list || looksLikeList(text)
      ? parseStructured(text, source)
      : text
          .split('\n')
          .map(l => l.trim())
          .filter(Boolean)
  const tasks = items.map((raw, index) => {
    const isObject = typeof raw === 'object' && raw !== null && !Array.isArray(raw)
    const parsed = (isObject ? objectItem : item).safeParse(raw)
    if (!parsed.success) {
      const issue = parsed.error.issues[0]
      const field = issue?.path.length ? `'${issue.path.join('.')}': ` : ''
      const hint =
        'each item must be a prompt string or {id?, prompt, title?, model?, max-turns?, verify?, effort?}'
      throw new TaskListError(
        `${source}: item ${index + 1}: ${field}${issue?.message ?? 'invalid'}; ${hint}`
      )
    }
    return toTask(parsed.data, index, source, prefix)
  })
  assertUniqueIds(tasks, source)
  return tasks
}

export function assertUniqueIds(tasks: Task[], source: string): void {
  const seen = new Set<string>()
  for (const task of tasks) {
    if (seen.has(task.id))
      throw new TaskListError(`${source}: two tasks have the id '${task.id}'; ids must be unique`)
    seen.add(task.id)
  }
}
