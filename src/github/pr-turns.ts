import type { FailedJob, ThreadComment } from '../tasks/pr-turn.js'
import { logTail } from '../tasks/log-tail.js'
import { describeError } from '../errors.js'
import type { Client } from './client.js'

/**
 * What a turn on a fleet PR reads from GitHub before any model request: a review's inline
 * threads, one comment's thread, a failed run's jobs and the end of each failed job's log.
 */

interface ReviewCommentJson {
  id: number
  in_reply_to_id?: number
  path: string
  line?: number | null
  original_line?: number | null
  diff_hunk: string
  body: string
  user: { login: string } | null
}

export interface Thread {
  /** The thread's first comment: where a reply goes. */
  id: number
  comments: ThreadComment[]
}

const asThreadComment = (c: ReviewCommentJson): ThreadComment => ({
  path: c.path,
  line: c.line ?? c.original_line ?? null,
  diffHunk: c.diff_hunk,
  body: c.body,
  author: c.user?.login ?? 'ghost'
})

/** Every inline comment of the PR, grouped into threads by their first comment. */
async function threadsOf({ octokit, repo }: Client, pr: number, ids: number[]) {
  const all = (await octokit.paginate(octokit.rest.pulls.listReviewComments, {
    ...repo,
    pull_number: pr,
    per_page: 100
  })) as ReviewCommentJson[]
  return [...new Set(ids)].map((id): Thread => ({
    id,
    comments: all
      .filter(c => c.id === id || c.in_reply_to_id === id)
      .sort((a, b) => a.id - b.id)
      .map(asThreadComment)
  }))
}

/** The threads a review's inline comments start or reply in, in the order the review lists them. */
export async function reviewThreads(
  { octokit, repo }: Client,
  pr: number,
  reviewId: number
): Promise<Thread[]> {
  const mine = (await octokit.paginate(octokit.rest.pulls.listCommentsForReview, {
    ...repo,
    pull_number: pr,
    review_id: reviewId,
    per_page: 100
  })) as ReviewCommentJson[]
  if (mine.length === 0) return []
  return threadsOf(
    { octokit, repo },
    pr,
    mine.map(c => c.in_reply_to_id ?? c.id)
  )
}

/** One comment's whole thread (the comment included). */
export async function commentThread(gh: Client, pr: number, threadId: number): Promise<Thread> {
  const [thread] = await threadsOf(gh, pr, [threadId])
  return thread ?? { id: threadId, comments: [] }
}

const FAILED = ['failure', 'timed_out']
const MAX_JOBS = 5

/** A job's log text: GitHub answers with a redirect to it, which the client follows. */
async function jobLog({ octokit, repo }: Client, jobId: number): Promise<string> {
  try {
    const { data } = await octokit.rest.actions.downloadJobLogsForWorkflowRun({
      ...repo,
      job_id: jobId
    })
    const text = typeof data === 'string' ? data : new TextDecoder().decode(data as ArrayBuffer)
    return logTail(text) || '(the log is empty)'
  } catch (error) {
    // Logs expire and may be withheld: the job's name and steps still tell the worker something.
    return `(the log could not be read: ${describeError(error)})`
  }
}

/** The failed jobs of the run's latest attempt, each with its failed steps and log tail. */
export async function failedJobs({ octokit, repo }: Client, runId: number): Promise<FailedJob[]> {
  const jobs = await octokit.paginate(octokit.rest.actions.listJobsForWorkflowRun, {
    ...repo,
    run_id: runId,
    filter: 'latest',
    per_page: 100
  })
  const failed = jobs.filter(j => FAILED.includes(j.conclusion ?? '')).slice(0, MAX_JOBS)
  const out: FailedJob[] = []
  for (const job of failed)
    out.push({
      name: job.name,
      failedSteps: (job.steps ?? [])
        .filter(s => FAILED.includes(s.conclusion ?? ''))
        .map(s => s.name),
      tail: await jobLog({ octokit, repo }, job.id)
    })
  return out
}

/** The open PR whose head is this repository's `branch`, if any. */
export async function openPrOf(
  { octokit, repo }: Client,
  branch: string
): Promise<number | undefined> {
  const { data } = await octokit.rest.pulls.list({
    ...repo,
    head: `${repo.owner}:${branch}`,
    state: 'open',
    per_page: 10
  })
  return data.find(pr => pr.head.ref === branch)?.number
}
