import { branchFor } from './ids.js'
import { titleOf } from './parse.js'
import { cleanText } from './invisible.js'
import { plainText, taskItems } from './markdown.js'
import { readPlanSection, tasksFromPlan } from './plan-section.js'
import { visibleText } from './visible.js'
import type { Task } from '../domain.js'

/** Says how many hidden characters a text lost on its way to a prompt (nothing when none). */
export type HiddenNote = (message: string) => void

/** Markdown as a person sees it on github.com, the hidden characters it lost told to `note`. */
export function shownText(markdown: string, what: string, note?: HiddenNote): string {
  const { text, hidden } = visibleText(markdown)
  if (hidden > 0 && note)
    note(`${what}: dropped ${hidden} hidden character${hidden === 1 ? '' : 's'} before the prompt`)
  return text
}

export interface ChecklistItem {
  /** 1-based position among all task-list items, checked or not. */
  position: number
  checked: boolean
  /** The item's first paragraph as plain text; empty for an empty checkbox. */
  text: string
}

/**
 * The issue's task-list items as github.com renders them (any list, ordered or not, block quotes
 * included; never code, fences or HTML blocks), numbered by position so ids stay put as items
 * are checked.
 */
export function checklist(body: string): ChecklistItem[] {
  return taskItems(body).map((task, index) => ({
    position: index + 1,
    checked: task.checked,
    text: task.paragraph ? cleanText(plainText(task.paragraph)) : ''
  }))
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
export function tasksFromIssue(issue: IssueInfo, prefix: string, note?: HiddenNote): Task[] {
  const plan = readPlanSection(issue.body)
  if (plan) return tasksFromPlan(issue, plan, prefix)
  const title = cleanText(issue.title)
  const body = shownText(issue.body, `issue #${issue.number}'s description`, note)
  // An empty checkbox counts in k but asks for nothing.
  const open = checklist(issue.body).filter(i => !i.checked && i.text !== '')
  if (open.length === 0) {
    const id = `issue-${issue.number}`
    const prompt = `${title}\n\n${body}`.trim()
    return [
      {
        id,
        title: titleOf(title || prompt),
        prompt,
        branch: branchFor(prefix, id),
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
      branch: branchFor(prefix, id),
      source: { kind: 'issue', issue: issue.number, item: item.position }
    }
  })
}

/** A `/fleet <text>` comment: the text is the task, on `issue-N`. */
export function taskFromComment(
  issue: IssueInfo,
  text: string,
  prefix: string,
  on = 'issue',
  note?: HiddenNote
): Task {
  const id = `issue-${issue.number}`
  const prompt = shownText(text, `the comment on ${on} #${issue.number}`, note)
  const body = shownText(issue.body, `${on} #${issue.number}'s description`, note)
  return {
    id,
    title: titleOf(prompt),
    prompt: `${prompt}\n\n(Asked in a comment on ${on} #${issue.number}, "${cleanText(issue.title)}". The ${on} reads:)\n\n${body}`,
    branch: branchFor(prefix, id),
    source: { kind: 'issue', issue: issue.number }
  }
}
