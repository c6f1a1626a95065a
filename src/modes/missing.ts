import type { Outcome } from '../domain.js'
import { emptyOutcome } from '../domain.js'
import { type SavedPlan, shardOf } from './plan.js'
import type { ShardFile } from './store.js'

/**
 * The report job held against the plan: every planned task whose shard left no outcome (the job
 * was cancelled, crashed, or never started) is `not-started`, naming the shard, so no task
 * vanishes from the report. `missing` lists those shards; the report then fails the step.
 */
export function againstPlan(
  plan: SavedPlan,
  files: ShardFile[]
): { outcomes: Outcome[]; missing: number[] } {
  const reported = new Set(files.flatMap(f => f.outcomes.map(o => o.id)))
  const outcomes: Outcome[] = []
  const missing: number[] = []
  for (let shard = 0; shard < plan.shards; shard++) {
    const lost = shardOf(plan.tasks, shard, plan.shards).filter(t => !reported.has(t.id))
    if (lost.length === 0) continue
    missing.push(shard)
    const error = `shard ${shard} left no outcome`
    outcomes.push(
      ...lost.map(t => ({ ...emptyOutcome(t, { status: 'not-started', error }), branch: t.branch }))
    )
  }
  // Refusals are saved by shard 0: without its file they are reported from the plan.
  if (!files.some(f => f.shard === 0))
    outcomes.push(...plan.refused.filter(r => !reported.has(r.id)))
  return { outcomes, missing }
}
