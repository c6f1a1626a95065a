import type { Outcome } from '../domain.js'
import { emptyOutcome } from '../domain.js'
import { branchFor } from '../tasks/ids.js'
import { planItemId } from '../tasks/plan-section.js'
import { titleOf } from '../tasks/parse.js'
import type { Task } from '../domain.js'
import { ZERO_USAGE } from '../domain.js'
import { plannerSpent } from './issue.js'
import { type PlannerDeps, runPlanner } from './run.js'
import type { PlannedTask } from './schema.js'

/** Goal tasks get ids from their titles (slug + hash), like prompts do, so a re-plan keeps them. */
export function goalTasks(planned: PlannedTask[], prefix: string): Task[] {
  return planned.map(t => {
    const id = planItemId(t.title)
    return {
      id,
      title: titleOf(t.title),
      prompt: t.prompt,
      branch: branchFor(prefix, id),
      source: { kind: 'input' },
      ...(t.model ? { model: t.model } : {}),
      ...(t.verify ? { verify: t.verify } : {})
    }
  })
}

/** The `goal` input through the planner: its tasks, or the one failed outcome saying why not. */
export async function planGoal(
  deps: PlannerDeps,
  goal: string
): Promise<{ tasks: Task[]; note: string } | { failed: Outcome }> {
  const run = await runPlanner(deps, { kind: 'goal', goal })
  const turns = run.worker?.turns ?? 0
  if (run.answer.ok) {
    const tasks = goalTasks(run.answer.tasks, deps.config.branchPrefix)
    const spent = plannerSpent({ turns, usage: run.worker?.usage ?? ZERO_USAGE })
    return {
      tasks,
      note: `The planner split the goal into ${tasks.length} tasks (from its ${run.answer.via}). ${spent}`
    }
  }
  const task: Task = {
    id: 'plan',
    title: 'plan the goal',
    prompt: '',
    branch: '',
    source: { kind: 'input' }
  }
  const failed = emptyOutcome(task, { status: 'failed', error: run.answer.error })
  return {
    failed: {
      ...failed,
      turns,
      usage: run.worker?.usage ?? failed.usage,
      attempts: run.worker?.attempts ?? 0,
      model: run.worker?.model
    }
  }
}
