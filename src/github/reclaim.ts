import type { Client } from './client.js'
import { isGitHubError } from './errors.js'
import { findLiveComment } from './live-comment.js'

/**
 * Whether a `fleet:in-progress` issue was left behind: the run named in its live comment's "Latest
 * run" link (written by the token itself, so trusted) is no longer in progress — completed, or
 * gone. A run killed outright never got to move the labels back. Undefined when it cannot tell.
 */
export async function abandonedBy(
  { octokit, repo }: Client,
  issue: number,
  currentRun: string | undefined
): Promise<{ run: number; status: string } | undefined> {
  const comment = await findLiveComment({ octokit, repo }, issue)
  const id = /\/actions\/runs\/(\d+)\)/.exec(comment?.body ?? '')?.[1]
  if (!id || id === currentRun) return undefined
  const run = Number(id)
  try {
    const { data } = await octokit.rest.actions.getWorkflowRun({ ...repo, run_id: run })
    return data.status === 'completed' ? { run, status: 'completed' } : undefined
  } catch (error) {
    if (isGitHubError(error, 'not-found')) return { run, status: 'gone' }
    throw error
  }
}
