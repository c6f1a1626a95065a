import { cleanText } from '../tasks/invisible.js'
import { visibleText } from '../tasks/visible.js'
import type { PlanItem } from '../tasks/plan-section.js'

/** What the planner is asked to split: a `goal` input, or an issue with a `/fleet plan` comment. */
export type PlannerAsk =
  | { kind: 'goal'; goal: string }
  | {
      kind: 'issue'
      issue: { number: number; title: string; body: string }
      text: string
      /** The plan already on the issue, when this is a re-plan. */
      current: PlanItem[]
    }

function currentPlan(items: PlanItem[]): string[] {
  if (items.length === 0) return []
  return [
    '',
    'The issue already has a plan (below). This request replaces it. Keep the exact title of every item you keep, even if you change its prompt: the title decides the task id, branch and pull request. Items marked done are finished: plan them again only if the request asks.',
    '<current-plan>',
    ...items.map(i => `- ${i.checked ? '[done] ' : ''}${i.title}`),
    '</current-plan>'
  ]
}

/**
 * The planner's prompt. Issue and goal text is data to plan from, framed once; the rules say what
 * a good task is for a fleet: independent, one worker's size, self-contained.
 */
export function plannerPrompt(ask: PlannerAsk, maxTasks: number): string {
  const request =
    ask.kind === 'goal'
      ? ['<request>', cleanText(ask.goal), '</request>']
      : [
          ...(ask.text ? ['<request>', visibleText(ask.text).text, '</request>', ''] : []),
          `<issue number="${ask.issue.number}">`,
          `# ${cleanText(ask.issue.title)}`,
          '',
          visibleText(ask.issue.body).text,
          '</issue>',
          ...currentPlan(ask.current)
        ]
  return [
    'You are the planner of Fleet Worker. Read this repository (you can read and search files; you cannot change them or run commands) and the request below, then split the request into independent coding tasks for a fleet of workers.',
    '',
    'Rules:',
    `- At most ${maxTasks} tasks; fewer is better when the work is small. One task is fine.`,
    "- Each task is done by a separate worker on its own branch from the same starting point, at the same time as the others: no task may depend on another task's changes, and two tasks should not edit the same lines.",
    '- Size each task for one worker: one focused change a reviewer can read as one pull request.',
    '- title: a short imperative line, unique among the tasks.',
    '- prompt: self-contained instructions. The worker sees only its prompt and the repository: say what to change, in which files, and how to check it.',
    '- verify (optional): a shell command that checks the task, when the repository has one (e.g. its test command).',
    '- model: leave it out unless the request names a model.',
    '',
    'Answer by calling the StructuredOutput tool once, with {"tasks": [{"title", "prompt", "verify"?}]}. If you cannot call it, end your answer with a markdown checklist instead: one "- [ ] title" line per task, with its prompt indented by two spaces on the lines below.',
    '',
    ...request
  ].join('\n')
}
