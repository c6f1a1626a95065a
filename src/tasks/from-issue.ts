import { titleOf } from './parse.js'
import { readPlanSection, tasksFromPlan } from './plan-section.js'
import type { Task } from '../domain.js'

/**
 * Issue and comment text is data for the worker, never for a shell or a ref. Strip what a reader
 * of the issue cannot see but a model would: HTML comments, zero-width and bidi-control
 * characters, other control characters.
 */
export function cleanText(text: string): string {
  return (
    text
      .replace(/<!--[\s\S]*?(-->|$)/g, '')
      .replace(/\p{Bidi_Control}/gu, '')
      // Zero-width space and non-joiner, word joiners, BOM, soft hyphen; and tag characters, which a
      // model reads but a person does not see. The zero-width joiner U+200D stays: emoji need it.
      .replace(/[\u200B\u200C\u2060-\u2064\uFEFF\u00AD]|[\u{E0000}-\u{E007F}]/gu, '')
      // eslint-disable-next-line no-control-regex -- control characters are exactly what this removes
      .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/g, '')
      .replace(/\r\n?/g, '\n')
      .trim()
  )
}

export interface ChecklistItem {
  /** 1-based position among all checklist items, checked or not. */
  position: number
  checked: boolean
  text: string
}

const ITEM = /^\s*[-*+]\s+\[([ xX])\]\s+(.+)$/

/** The issue's `- [ ]` / `- [x]` items, numbered by position so ids stay put as items are checked. */
export function checklist(body: string): ChecklistItem[] {
  const items: ChecklistItem[] = []
  let fenced = false
  for (const line of cleanText(body).split('\n')) {
    // GitHub renders no checkbox inside a fenced code block.
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced
    if (fenced) continue
    const m = ITEM.exec(line)
    if (m?.[1] && m[2])
      items.push({ position: items.length + 1, checked: m[1] !== ' ', text: m[2].trim() })
  }
  return items
}

export interface IssueInfo {
  number: number
  title: string
  body: string
}

/**
 * The tasks an issue asks for: the unchecked items of its plan when `/fleet plan` wrote one
 * (src/tasks/plan-section.ts); else each unchecked checklist item (`issue-N-k`, k its position in
 * the checklist), or the issue itself (`issue-N`) when it has no unchecked items.
 */
export function tasksFromIssue(issue: IssueInfo, prefix: string): Task[] {
  const plan = readPlanSection(issue.body)
  if (plan) return tasksFromPlan(issue, plan, prefix)
  const title = cleanText(issue.title)
  const body = cleanText(issue.body)
  const open = checklist(issue.body).filter(i => !i.checked)
  if (open.length === 0) {
    const id = `issue-${issue.number}`
    const prompt = `${title}\n\n${body}`.trim()
    return [
      {
        id,
        title: titleOf(title || prompt),
        prompt,
        branch: `${prefix}${id}`,
        source: { kind: 'issue', issue: issue.number }
      }
    ]
  }
  return open.map(item => {
    const id = `issue-${issue.number}-${item.position}`
    return {
      id,
      title: titleOf(item.text),
      prompt: `${item.text}\n\n(This is one item of the checklist in issue #${issue.number}, "${title}". The issue reads:)\n\n${body}`,
      branch: `${prefix}${id}`,
      source: { kind: 'issue', issue: issue.number, item: item.position }
    }
  })
}

/** A `/fleet <text>` comment: the text is the task, on `issue-N`. */
export function taskFromComment(
  issue: IssueInfo,
  text: string,
  prefix: string,
  on = 'issue'
): Task {
  const id = `issue-${issue.number}`
  const prompt = cleanText(text)
  return {
    id,
    title: titleOf(prompt),
    prompt: `${prompt}\n\n(Asked in a comment on ${on} #${issue.number}, "${cleanText(issue.title)}". The ${on} reads:)\n\n${cleanText(issue.body)}`,
    branch: `${prefix}${id}`,
    source: { kind: 'issue', issue: issue.number }
  }
}
