/**
 * The issue, comment and reaction calls the trigger paths and the planner make: the one place they
 * reach Octokit (nothing outside src/github/ does; a unit test holds it).
 */
import type { Client } from './client.js'

/** A comment on an issue or PR. */
export async function commentOn(gh: Client, issue: number, body: string): Promise<void> {
  await gh.octokit.rest.issues.createComment({ ...gh.repo, issue_number: issue, body })
}

/** 👀 on the comment that asked: an acknowledgement, so a failure only goes to the log. */
export async function ackComment(
  gh: Client,
  comment: { id: number; review?: boolean },
  log: (m: string) => void
): Promise<void> {
  const args = { ...gh.repo, comment_id: comment.id, content: 'eyes' as const }
  const made = comment.review
    ? gh.octokit.rest.reactions.createForPullRequestReviewComment(args)
    : gh.octokit.rest.reactions.createForIssueComment(args)
  await made.catch((error: unknown) => {
    const why = error instanceof Error ? error.message : String(error)
    log(`could not react to ${comment.review ? 'review comment' : 'comment'} ${comment.id}: ${why}`)
  })
}

/** An issue as it is now (its body may have changed since the event). */
export async function getIssue(gh: Client, issue: number) {
  return (await gh.octokit.rest.issues.get({ ...gh.repo, issue_number: issue })).data
}

/** Replaces an issue's description. */
export async function setIssueBody(gh: Client, issue: number, body: string): Promise<void> {
  await gh.octokit.rest.issues.update({ ...gh.repo, issue_number: issue, body })
}

/** A pull request as it is now. */
export async function getPull(gh: Client, pull: number) {
  return (await gh.octokit.rest.pulls.get({ ...gh.repo, pull_number: pull })).data
}

/** The repository's default branch. */
export async function defaultBranch(gh: Client): Promise<string> {
  return (await gh.octokit.rest.repos.get({ ...gh.repo })).data.default_branch
}
