/**
 * The planner's plan as it lives in an issue's description: a section between two hidden markers,
 * one checklist item per task, the item's prompt indented below its title. A person edits it
 * like any checklist; `/fleet` runs its unchecked items.
 *
 * Ids come from titles, not positions: `issue-<N>-<slug>-<hash>`, so re-planning (or a person
 * reordering, adding or deleting items) keeps the id, branch and PR of every item whose title
 * stays the same. Editing an item's prompt keeps its id; editing its title makes it a new task.
 */
import { createHash } from 'node:crypto'
import { cleanText } from './invisible.js'
import { parseMarkdown, type TaskItem, taskItems } from './markdown.js'
import { visibleText } from './visible.js'
import { inertProse } from '../inert-text.js'
import { branchFor } from './ids.js'
import { titleOf } from './parse.js'
import type { Task } from '../domain.js'

export const PLAN_START = '<!-- fleet-worker:plan -->'
export const PLAN_END = '<!-- /fleet-worker:plan -->'

export interface PlanItem {
  title: string
  prompt: string
  checked: boolean
}

/** A title as it decides an id and a duplicate: case, spacing and hidden characters do not count. */
export function titleKey(title: string): string {
  return cleanText(title).replace(/\s+/g, ' ').toLowerCase()
}

/**
 * A task id from a title: a slug of its first words plus 6 hex of its hash, after `prefix`
 * (`issue-12-` on an issue), within the 63 characters an id may have.
 */
export function planItemId(title: string, prefix = ''): string {
  const key = titleKey(title)
  const hash = createHash('sha256').update(key).digest('hex').slice(0, 6)
  const room = 63 - prefix.length - hash.length - 1
  const words = key
    .normalize('NFKD')
    .replace(/[^a-z0-9\s]+/g, ' ')
    .split(/\s+/)
    .filter(Boolean)
  let slug = ''
  for (const word of words) {
    const next = slug ? `${slug}-${word}` : word
    if (next.length > Math.min(40, room)) break
    slug = next
  }
  return `${prefix}${slug || 'task'}-${hash}`
}

/** Removes the smallest common indentation of the non-blank lines. */
function dedent(lines: string[]): string {
  const indents = lines.filter(l => l.trim() !== '').map(l => /^[ \t]*/.exec(l)?.[0].length ?? 0)
  const cut = indents.length ? Math.min(...indents) : 0
  return lines
    .map(l => l.slice(cut))
    .join('\n')
    .trim()
}

/** A top-level task item: its title is its first line, its prompt the indented lines below, dedented. */
function planItem(task: TaskItem, source: string): PlanItem | undefined {
  const from = task.paragraph?.position?.start.offset
  const to = task.item.position?.end.offset
  if (from === undefined || to === undefined) return undefined
  const [first = '', ...rest] = source.slice(from, to).split('\n')
  const title = cleanText(first)
  if (!title) return undefined
  // The prompt is the indented block below the title: an unindented line (lazy prose, or the
  // next item where a fence left open ends) is not part of it.
  const cut = rest.findIndex(line => line.trim() !== '' && !/^\s/.test(line))
  const lines = cut < 0 ? rest : rest.slice(0, cut)
  return { checked: task.checked, title, prompt: visibleText(dedent(lines)).text || title }
}

/**
 * The task-list items of a markdown text's top-level lists (as GitHub renders them), each with
 * the indented lines below its first as its prompt (the title when there are none). Nested items
 * belong to their parent's prompt; unindented prose belongs to no prompt.
 */
export function checklistItems(text: string): PlanItem[] {
  const source = text.replace(/\r\n?/g, '\n')
  const tree = parseMarkdown(source)
  const top = new Set(tree.children.flatMap(n => (n.type === 'list' ? n.children : [])))
  return taskItems(source, tree)
    .filter(task => top.has(task.item))
    .flatMap(task => planItem(task, source) ?? [])
}

function bounds(body: string): { start: number; end: number } | undefined {
  const start = body.indexOf(PLAN_START)
  if (start < 0) return undefined
  const close = body.indexOf(PLAN_END, start)
  return { start, end: close < 0 ? body.length : close + PLAN_END.length }
}

/** The plan's items, or undefined when the description holds no plan section. */
export function readPlanSection(body: string): PlanItem[] | undefined {
  const at = bounds(body)
  return at ? checklistItems(body.slice(at.start + PLAN_START.length, at.end)) : undefined
}

/** The description without its plan section: what the issue itself says. */
export function withoutPlanSection(body: string): string {
  const at = bounds(body)
  if (!at) return body
  return `${body.slice(0, at.start).trimEnd()}\n\n${body.slice(at.end).trimStart()}`.trim()
}

/** The section in place of the old one, or appended below the description. */
export function replacePlanSection(body: string, section: string): string {
  const at = bounds(body)
  if (at) return `${body.slice(0, at.start)}${section}${body.slice(at.end)}`
  return body.trim() ? `${body.trimEnd()}\n\n${section}` : section
}

/**
 * Planned text is the planner's, read from the repository and the issue: in the description it
 * must not ping anyone, reference or close an issue, hide a marker (ours would end the section
 * early), or show an image from another host. inertProse breaks each with a zero-width space,
 * which cleanText removes again before a worker reads the text; a foreign image or link becomes
 * code.
 */
const quiet = (text: string): string => inertProse(text)

export function renderPlanSection(items: PlanItem[], phrase: string): string {
  const lines = [
    PLAN_START,
    '### Plan',
    '',
    `_Planned by Fleet Worker. Edit, add or delete items as you like; an item's id (and branch) comes from its title. Comment \`${phrase}\` to run the unchecked items, or \`${phrase} plan\` to plan again._`,
    ''
  ]
  for (const item of items) {
    const title = quiet(item.title.replace(/\s+/g, ' ').trim())
    lines.push(`- [${item.checked ? 'x' : ' '}] ${title}`, '')
    for (const line of quiet(item.prompt).split('\n')) lines.push(line.trim() ? `  ${line}` : '')
    lines.push('')
  }
  lines.push(PLAN_END)
  return lines.join('\n')
}

/**
 * The unchecked plan items as tasks. Two items a person gave the same title get `-2`, `-3` in
 * order, so an edit never stops the run.
 */
export function tasksFromPlan(
  issue: { number: number; title: string },
  items: PlanItem[],
  prefix: string
): Task[] {
  const seen = new Map<string, number>()
  const tasks: Task[] = []
  items.forEach((item, index) => {
    const base = planItemId(item.title, `issue-${issue.number}-`)
    const n = (seen.get(base) ?? 0) + 1
    seen.set(base, n)
    if (item.checked) return
    const id = n === 1 ? base : `${base.slice(0, 60 - String(n).length)}-${n}`
    tasks.push({
      id,
      title: titleOf(item.title),
      prompt: item.prompt,
      branch: branchFor(prefix, id),
      source: { kind: 'issue', issue: issue.number, item: index + 1 }
    })
  })
  return tasks
}
