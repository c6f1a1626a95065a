import type { Client } from './client.js'

export interface PullRequestSpec {
  branch: string
  base: string
  title: string
  body: string
  draft: boolean
  labels: string[]
  /** Labels a previous run may have put on the open PR that no longer hold (fleet:verify-failed). */
  unlabel?: string[]
  reviewers: string[]
  assignees: string[]
}

export interface PullRequestRef {
  number: number
  url: string
  created: boolean
}

/** The open PR whose head is this branch of the repository, as GitHub says. */
export async function findOpenPullRequest(
  { octokit, repo }: Client,
  branch: string
): Promise<{ number: number; url: string } | undefined> {
  const head = `${repo.owner}:${branch}`
  const existing = await octokit.rest.pulls.list({ ...repo, head, state: 'open', per_page: 10 })
  const open = existing.data.find(pr => pr.head.ref === branch)
  return open ? { number: open.number, url: open.html_url } : undefined
}

/**
 * One PR per branch: the open PR whose head is this branch is updated (title, body); otherwise a
 * new one is opened. A closed or merged PR is left alone and a new PR opened for the new work:
 * its history stays as it was reviewed.
 */
export async function upsertPullRequest(
  { octokit, repo }: Client,
  spec: PullRequestSpec
): Promise<PullRequestRef> {
  const head = `${repo.owner}:${spec.branch}`
  const existing = await octokit.rest.pulls.list({ ...repo, head, state: 'open', per_page: 10 })
  const open = existing.data.find(pr => pr.head.ref === spec.branch)
  let ref: PullRequestRef
  if (open) {
    await octokit.rest.pulls.update({
      ...repo,
      pull_number: open.number,
      title: spec.title,
      body: spec.body,
      base: spec.base
    })
    ref = { number: open.number, url: open.html_url, created: false }
    const stale = open.labels.filter(l => spec.unlabel?.includes(l.name))
    for (const { name } of stale)
      await octokit.rest.issues.removeLabel({ ...repo, issue_number: open.number, name })
  } else {
    const { data } = await octokit.rest.pulls.create({
      ...repo,
      head: spec.branch,
      base: spec.base,
      title: spec.title,
      body: spec.body,
      draft: spec.draft
    })
    ref = { number: data.number, url: data.html_url, created: true }
  }
  if (spec.labels.length)
    await octokit.rest.issues.addLabels({ ...repo, issue_number: ref.number, labels: spec.labels })
  if (ref.created && spec.reviewers.length) {
    await octokit.rest.pulls.requestReviewers({
      ...repo,
      pull_number: ref.number,
      reviewers: spec.reviewers
    })
  }
  if (ref.created && spec.assignees.length) {
    await octokit.rest.issues.addAssignees({
      ...repo,
      issue_number: ref.number,
      assignees: spec.assignees
    })
  }
  return ref
}
