import { mkdir } from 'node:fs/promises'
import path from 'node:path'
import type { Outcome, Task } from '../domain.js'
import type { LandContext } from './land.js'

/**
 * land: false — instead of a push, the task's branch (as the exit accepted it) written as a bundle
 * from its start commit into the hand-over directory, for mode: land to check and push. Finished
 * work ends `ready`; partial work keeps its failing status and is only pushed there, as today.
 */
export async function handOver(
  ctx: LandContext & { handOver: string },
  task: Task,
  worked: { outcome: Outcome; start: string; pr: boolean }
): Promise<Outcome> {
  const bundle = path.join(ctx.handOver, `${task.id}.bundle`)
  await mkdir(ctx.handOver, { recursive: true })
  await ctx.repo.git.exec([
    'bundle',
    'create',
    '--quiet',
    bundle,
    `refs/heads/${task.branch}`,
    `^${worked.start}`
  ])
  return {
    ...worked.outcome,
    status: worked.pr ? 'ready' : worked.outcome.status,
    branch: task.branch,
    sealed: { bundle, start: worked.start, pr: worked.pr, prompt: task.prompt }
  }
}
