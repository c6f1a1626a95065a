import type { Outcome, Task } from '../domain.js'
import { describeError } from '../errors.js'
import {
  answerMarker,
  answerSummary,
  FIX_UPS_STOPPED,
  fixUpsStopped,
  repliesFrom,
  threadReply
} from '../report/pr-answer.js'
import type { Client } from './client.js'
import { markedBy, tokenIdentity } from './identity.js'

/**
 * After a turn asked on the PR: one reply in each inline thread it was given, then one summary
 * comment. A reply that fails is logged and the others still go: the work itself has landed.
 */
export async function answerOnPr(
  { octokit, repo }: Client,
  task: Task,
  outcome: Outcome,
  log: (m: string) => void
): Promise<void> {
  if (task.source.kind !== 'follow-up' || !task.source.answer) return
  const { pr, answer } = task.source
  const said = repliesFrom(outcome.finalMessage, answer.threads.length)
  for (const [i, thread] of answer.threads.entries()) {
    await octokit.rest.pulls
      .createReplyForReviewComment({
        ...repo,
        pull_number: pr,
        comment_id: thread,
        body: threadReply(outcome, said[i])
      })
      .catch((error: unknown) =>
        log(`could not reply in thread ${thread} of #${pr}: ${describeError(error)}`)
      )
  }
  await octokit.rest.issues
    .createComment({ ...repo, issue_number: pr, body: answerSummary(answer, outcome) })
    .catch((error: unknown) =>
      log(`could not comment the summary on #${pr}: ${describeError(error)}`)
    )
}

/**
 * Whether the token's own comment on the PR ends with `marker`, the line the action ends it with
 * (anyone can paste a marker, and a worker's or setup's text could quote one: only this counts).
 */
async function markedOnPr({ octokit, repo }: Client, pr: number, marker: string): Promise<boolean> {
  const identity = await tokenIdentity(octokit)
  const comments = await octokit.paginate(octokit.rest.issues.listComments, {
    ...repo,
    issue_number: pr,
    per_page: 100
  })
  return comments.some(c => markedBy(identity, c, marker, 'last'))
}

/** Whether a turn already answered this review, comment or run (the event was re-run). */
export async function alreadyAnswered(gh: Client, pr: number, key: string): Promise<boolean> {
  return markedOnPr(gh, pr, answerMarker(key))
}

/**
 * Past max-fix-ups: one comment says the check loop stopped, unless the token already said so on
 * this PR (only its own comment counts: anyone can paste the marker).
 */
export async function sayFixUpsStopped(
  { octokit, repo }: Client,
  pr: number,
  text: { max: number; run: string; phrase: string }
): Promise<boolean> {
  if (await markedOnPr({ octokit, repo }, pr, FIX_UPS_STOPPED)) return false
  await octokit.rest.issues.createComment({
    ...repo,
    issue_number: pr,
    body: fixUpsStopped(text.max, text.run, text.phrase)
  })
  return true
}
