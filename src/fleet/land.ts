import path from 'node:path'
import type { FleetConfig } from './options.js'
import type { FleetRepo } from '../git/repo.js'
import type { GitHub } from '../github/github.js'
import type { Task } from '../domain.js'
import type { Outcome } from '../domain.js'
import { describeError } from '../errors.js'

export interface LandContext {
  config: FleetConfig
  repo: FleetRepo
  base: string
  github?: GitHub
  preserveDir: string
  prBody: (outcome: Outcome) => string
  /** land: false — where each task's work is sealed as a bundle instead of pushed (hand-over.ts). */
  handOver?: string
}

const VERIFY_FAILED = 'fleet:verify-failed'

type Landing = Pick<Outcome, 'status' | 'prNumber' | 'prUrl' | 'error' | 'preserved' | 'branch'>

/**
 * Pushes the task's branch and, when `openPr`, opens or updates its PR. Work that cannot be pushed
 * or PR'd is preserved (bundle + local ref) and the outcome says where.
 */
export async function land(
  ctx: LandContext,
  task: Task,
  draft: Outcome,
  openPr: boolean
): Promise<Landing> {
  // Branches that finish while another's push is in flight go together in the next (pushLanded).
  const pushed = await ctx.repo.pushLanded(task.branch)
  if (!pushed.ok) {
    const preserved = await preserve(ctx, task)
    return {
      status: 'failed',
      branch: task.branch,
      error: `${pushed.reason}; ${preserved.note}`,
      preserved: preserved.where
    }
  }
  if (!openPr) return { status: draft.status, branch: task.branch }
  // No API client (the CLI without --repository): the branch is the deliverable.
  if (!ctx.github)
    return {
      status: draft.status === 'verify-failed' ? 'verify-failed' : 'pushed',
      branch: task.branch
    }
  try {
    const verifyFailed = draft.status === 'verify-failed'
    const pr = await ctx.github.upsertPullRequest({
      branch: task.branch,
      base: ctx.base,
      title: verifyFailed ? `[verify failed] ${task.title}` : task.title,
      body: ctx.prBody({ ...draft, branch: task.branch }),
      draft: ctx.config.draft || verifyFailed,
      labels: verifyFailed ? [...ctx.config.labels, VERIFY_FAILED] : ctx.config.labels,
      // A passing re-run must not leave the PR marked as failing (REST cannot undo draft, though).
      unlabel: verifyFailed ? [] : [VERIFY_FAILED],
      reviewers: ctx.config.reviewers,
      assignees: ctx.config.assignees
    })
    const status = verifyFailed ? 'verify-failed' : pr.created ? 'pr-opened' : 'pr-updated'
    return { status, branch: task.branch, prNumber: pr.number, prUrl: pr.url }
  } catch (error) {
    const preserved = await preserve(ctx, task)
    const message = describeError(error)
    return {
      status: 'failed',
      branch: task.branch,
      error: `the branch was pushed but the pull request could not be opened: ${message}; ${preserved.note}`,
      preserved: preserved.where
    }
  }
}

async function preserve(ctx: LandContext, task: Task): Promise<{ where?: string; note: string }> {
  const file = path.join(ctx.preserveDir, `${task.id}.bundle`)
  try {
    await ctx.repo.preserve(task.branch, ctx.base, file)
    return {
      where: file,
      note: `the work is preserved in ${file} (git bundle) and ref refs/fleet-preserved/${task.branch}`
    }
  } catch (error) {
    return {
      note: `preserving the work also failed: ${describeError(error)}`
    }
  }
}
