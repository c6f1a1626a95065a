import { describeError } from '../errors.js'
import type { Client } from './client.js'
import { isGitHubError } from './errors.js'

export interface QueueLabels {
  queued: string
  inProgress: string
  done: string
  failed: string
}

export function queueLabels(queueLabel: string): QueueLabels {
  return {
    queued: queueLabel,
    inProgress: `${queueLabel}:in-progress`,
    done: `${queueLabel}:done`,
    failed: `${queueLabel}:failed`
  }
}

/**
 * An open issue (not a PR) that carries the queue's label or its in-progress label on GitHub now;
 * false when it cannot be read.
 */
export async function isQueued(
  { octokit, repo }: Client,
  labels: QueueLabels,
  issue: number,
  log: (m: string) => void
): Promise<boolean> {
  try {
    const { data } = await octokit.rest.issues.get({ ...repo, issue_number: issue })
    const names = data.labels.map(l => (typeof l === 'string' ? l : (l.name ?? '')).toLowerCase())
    const queued = [labels.queued, labels.inProgress].some(l => names.includes(l.toLowerCase()))
    return data.state === 'open' && !data.pull_request && queued
  } catch (error) {
    log(`could not read #${issue} to check it is queued: ${describeError(error)}`)
    return false
  }
}

export interface QueuedIssue {
  number: number
  title: string
  body: string
}

/**
 * Open issues carrying the queue label and not already taken, oldest first, at most `max`. An
 * issue marked in progress is taken back when `reclaim` says its run was abandoned.
 */
export async function listQueue(
  { octokit, repo }: Client,
  labels: QueueLabels,
  max: number,
  reclaim: (issue: number) => Promise<boolean> = () => Promise.resolve(false)
): Promise<QueuedIssue[]> {
  const taken: QueuedIssue[] = []
  for await (const page of octokit.paginate.iterator(octokit.rest.issues.listForRepo, {
    ...repo,
    state: 'open',
    labels: labels.queued,
    sort: 'created',
    direction: 'asc',
    per_page: 100
  })) {
    for (const issue of page.data) {
      if (issue.pull_request) continue
      const names = issue.labels.map(l => (typeof l === 'string' ? l : (l.name ?? '')))
      if (names.includes(labels.inProgress)) {
        if (!(await reclaim(issue.number))) continue
        await moveIssue({ octokit, repo }, issue.number, [], [labels.inProgress])
      }
      taken.push({ number: issue.number, title: issue.title, body: issue.body ?? '' })
      if (taken.length >= max) return taken
    }
  }
  return taken
}

/** Moves an issue along queued -> in progress -> done | failed (or back to queued). */
export async function moveIssue(
  { octokit, repo }: Client,
  issue: number,
  add: string[],
  remove: string[]
): Promise<void> {
  if (add.length) await octokit.rest.issues.addLabels({ ...repo, issue_number: issue, labels: add })
  for (const name of remove) {
    await octokit.rest.issues
      .removeLabel({ ...repo, issue_number: issue, name })
      .catch((error: unknown) => {
        if (!isGitHubError(error, 'not-found')) throw error
      })
  }
}
