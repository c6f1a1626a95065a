import type { Outcome } from '../domain.js'
import { emptyOutcome } from '../domain.js'
import type { GitHub } from '../github/github.js'
import { LiveComment } from '../github/live-comment.js'
import { cell, tokens } from '../report/markdown.js'
import { inertProse } from '../report/worker-text.js'
import {
  type PlanItem,
  readPlanSection,
  renderPlanSection,
  replacePlanSection,
  tasksFromPlan,
  titleKey,
  withoutPlanSection
} from '../tasks/plan-section.js'
import type { Task } from '../domain.js'
import type { PlannedTask } from './schema.js'
import { type PlannerDeps, runPlanner } from './run.js'

export interface IssuePlanDeps extends PlannerDeps {
  github: GitHub
  runUrl?: string
}

/**
 * On an issue, a plan is a title and a prompt per item: issue text never becomes a command the
 * action runs or a model it pays for, so a suggested verify command becomes a line of the prompt
 * (the worker may run it in its cage) and the workflow's own `verify` and `model` apply.
 */
function toItem(t: PlannedTask, done: Set<string>): PlanItem {
  const prompt = t.verify ? `${t.prompt}\n\nWhen done, check it with: \`${t.verify}\`` : t.prompt
  return { title: t.title, prompt, checked: done.has(titleKey(t.title)) }
}

function planTable(items: PlanItem[], tasks: Task[], phrase: string): string {
  const open = new Map(tasks.map(t => [t.source.kind === 'issue' ? t.source.item : 0, t]))
  const rows = items.map((item, i) => {
    const task = open.get(i + 1)
    return `| ${cell(item.title)}${task ? ` (\`${task.id}\`)` : ''} | ${task ? 'planned' : 'done'} |`
  })
  return [
    `Planned ${items.length} task${items.length === 1 ? '' : 's'}, added to the issue's description under **Plan**. Review and edit them there, then comment \`${phrase}\` to run the unchecked ones (\`${phrase} plan\` plans again). Nothing has run yet.`,
    '',
    '| task | state |',
    '|---|---|',
    ...rows
  ].join('\n')
}

/** What the planner cost, for the summary: a plan that worked has no outcome of its own. */
export function plannerSpent(o: Pick<Outcome, 'turns' | 'usage'>): string {
  const u = o.usage
  const input = u.input_tokens + u.cache_read_input_tokens + u.cache_creation_input_tokens
  return `The planner used ${o.turns} turns, ${tokens(input)} input and ${tokens(u.output_tokens)} output tokens.`
}

function plannerOutcome(issue: number, run: Awaited<ReturnType<typeof runPlanner>>): Outcome {
  const task: Task = {
    id: `issue-${issue}-plan`,
    title: `plan for #${issue}`,
    prompt: '',
    branch: '',
    source: { kind: 'issue', issue }
  }
  const error = run.answer.ok ? undefined : run.answer.error
  return {
    ...emptyOutcome(task, { status: 'failed', error }),
    turns: run.worker?.turns ?? 0,
    usage: run.worker?.usage ?? emptyOutcome(task, { status: 'failed' }).usage,
    attempts: run.worker?.attempts ?? 0,
    model: run.worker?.model,
    finalMessage: run.worker?.finalMessage
  }
}

/** The plan section into the description as it is now (a person may have edited it meanwhile). */
async function writePlan(
  deps: IssuePlanDeps,
  issue: number,
  section: string,
  live: LiveComment
): Promise<string> {
  const latest = (await deps.github.getIssue(issue)).body ?? ''
  await deps.github
    .setIssueBody(issue, replacePlanSection(latest, section))
    .catch(async (error: unknown) => {
      const why = error instanceof Error ? error.message : String(error)
      await live.say(`Could not write the plan into the description: ${inertProse(why)}.`)
      throw new Error(
        `could not write the plan into the description of #${issue} (the token needs issues: write): ${why}`,
        { cause: error }
      )
    })
  return section
}

/**
 * `/fleet plan [text]` on an issue: the live comment says "planning", the planner runs, and its
 * plan replaces the plan section of the issue's description (or is appended). Nothing is
 * committed or pushed. A bad answer leaves the description as it was and says why.
 */
export async function planOnIssue(
  deps: IssuePlanDeps,
  ask: { number: number; text: string; phrase: string; prefix: string }
): Promise<{ outcomes: Outcome[]; note: string }> {
  const github = deps.github
  const read = () => github.getIssue(ask.number)
  const issue = await read()
  const live = github.liveComment(ask.number, [], deps.runUrl, deps.log)
  await live.say(
    'Planning: a planner is reading the repository and this issue. The plan will appear here and in the description.'
  )
  const body = issue.body ?? ''
  const current = readPlanSection(body) ?? []
  const run = await runPlanner(deps, {
    kind: 'issue',
    issue: { number: ask.number, title: issue.title, body: withoutPlanSection(body) },
    text: ask.text,
    current
  })
  const usage = plannerOutcome(ask.number, run)
  const spent = plannerSpent(usage)
  if (!run.answer.ok) {
    await live.say(
      `Could not plan: ${inertProse(run.answer.error)}. The description was not changed and nothing ran.`
    )
    return { outcomes: [usage], note: `Planning #${ask.number} failed. ${spent}` }
  }
  const done = new Set(current.filter(i => i.checked).map(i => titleKey(i.title)))
  const items = run.answer.tasks.map(t => toItem(t, done))
  const section = await writePlan(deps, ask.number, renderPlanSection(items, ask.phrase), live)
  // The ids a later `/fleet` run reads from the description, where a foreign link shows as code.
  const tasks = tasksFromPlan(issue, readPlanSection(section) ?? items, ask.prefix)
  await live.say(planTable(items, tasks, ask.phrase))
  const outcomes = tasks.map(t => ({
    ...emptyOutcome(t, {
      status: 'not-started' as const,
      error: `planned, not run: comment ${ask.phrase} on #${ask.number} to run it`
    }),
    branch: t.branch
  }))
  return {
    outcomes,
    note: `Planned ${items.length} tasks on #${ask.number} (from the planner's ${run.answer.via}); comment \`${ask.phrase}\` there to run them. ${spent}`
  }
}
