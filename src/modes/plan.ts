import { z } from 'zod'
import type { Outcome } from '../domain.js'
import type { QueueLabels } from '../github/queue.js'
import { branchFor, idProblem } from '../tasks/ids.js'
import type { Task } from '../domain.js'

/** What `mode: plan` hands to the `run` shards and the `report` job. */
export interface SavedPlan {
  version: 1
  shards: number
  tasks: Task[]
  refused: Outcome[]
  queue?: QueueLabels
}

/** Balanced shards: task i goes to shard i mod n, so shard sizes differ by at most one. */
export function shardCount(tasks: number, maxJobs: number): number {
  return Math.max(1, Math.min(maxJobs, tasks))
}

export function shardOf<T>(items: T[], shard: number, shards: number): T[] {
  return items.filter((_, i) => i % shards === shard)
}

export function matrix(shards: number): { include: Array<{ shard: number }> } {
  return { include: Array.from({ length: shards }, (_, shard) => ({ shard })) }
}

const source = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('input') }),
  z.object({
    kind: z.literal('issue'),
    issue: z.number().int().positive(),
    item: z.number().int().positive().optional()
  }),
  z.object({
    kind: z.literal('follow-up'),
    pr: z.number().int().positive(),
    issue: z.number().int().positive().optional()
  })
])

const task = z.object({
  id: z.string().refine(id => !idProblem(id), 'invalid task id'),
  prompt: z.string().min(1),
  title: z.string(),
  branch: z.string(),
  source,
  model: z.string().optional(),
  maxTurns: z.number().int().positive().optional(),
  verify: z.string().optional(),
  effort: z.string().optional()
})

const plan = z.object({
  version: z.literal(1),
  shards: z.number().int().positive(),
  tasks: z.array(task),
  refused: z.array(z.looseObject({ id: z.string(), status: z.literal('refused') })),
  queue: z
    .object({ queued: z.string(), inProgress: z.string(), done: z.string(), failed: z.string() })
    .optional()
})

/** A plan comes back through a workflow expression: validate it as untrusted input. */
export function parsePlan(text: string, prefix: string): SavedPlan | string {
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    return "not JSON: pass the plan job's output unchanged, e.g. ${{ needs.plan.outputs.plan }}"
  }
  const parsed = plan.safeParse(json)
  if (!parsed.success)
    return `not a plan from mode: plan (${parsed.error.issues[0]?.message ?? 'invalid'})`
  const bad = parsed.data.tasks.find(
    t =>
      t.branch !== branchFor(prefix, t.id) &&
      !(t.source.kind === 'follow-up' && t.branch.startsWith(prefix))
  )
  if (bad) return `task '${bad.id}' has branch '${bad.branch}', outside branch-prefix '${prefix}'`
  return parsed.data as unknown as SavedPlan
}
