import { type PrMarker, prMarker } from '../report/pr-body.js'
import { CONFLICT_MARKER } from '../report/refresh.js'
import { idProblem } from '../tasks/ids.js'
import type { Client } from './client.js'
import { tokenIdentity, writtenBy } from './identity.js'

/**
 * The fleet's open PRs on a base, as the action reads them when the base moves: only those it
 * opened (head on the branch prefix, in this repository, its own marker naming the branch's task).
 */
export interface FleetPr {
  number: number
  title: string
  body: string
  url: string
  branch: string
  /** The task id: the branch without the prefix, and the marker's task. */
  id: string
  marker: PrMarker
  labels: string[]
  createdAt: string
  /** The head as the listing saw it (the landing train reads the branch itself). */
  headSha: string
  draft: boolean
  /** GraphQL's id of the PR (ready for review, auto-merge, the merge queue). */
  nodeId: string
  /** Who opened it: the token's own account for every PR the action opened. */
  author: { login: string; type: string }
}

/** The open fleet PRs targeting `base`, oldest first: one listing (paged past 100). */
export async function listFleetPrs(
  { octokit, repo }: Client,
  base: string,
  prefix: string
): Promise<FleetPr[]> {
  const pulls = await octokit.paginate(octokit.rest.pulls.list, {
    ...repo,
    state: 'open',
    base,
    sort: 'created',
    direction: 'asc',
    per_page: 100
  })
  const own = `${repo.owner}/${repo.repo}`.toLowerCase()
  const found: FleetPr[] = []
  for (const pr of pulls) {
    const id = pr.head.ref.startsWith(prefix) ? pr.head.ref.slice(prefix.length) : ''
    // A fork's PR may have a branch called fleet/x too: it is not the action's to push to.
    const fromFork = pr.head.repo?.full_name?.toLowerCase() !== own
    const marker = prMarker(pr.body ?? '')
    if (!id || idProblem(id) || fromFork || marker?.task !== id) continue
    found.push({
      number: pr.number,
      title: pr.title,
      body: pr.body ?? '',
      url: pr.html_url,
      branch: pr.head.ref,
      id,
      marker,
      labels: pr.labels.map(l => l.name ?? '').filter(Boolean),
      createdAt: pr.created_at,
      headSha: pr.head.sha,
      draft: pr.draft ?? false,
      nodeId: pr.node_id,
      author: { login: pr.user?.login ?? '', type: pr.user?.type ?? '' }
    })
  }
  return found.sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.number - b.number)
}

/** A refreshed PR's new title and body, and the labels that now hold or no longer do. */
export async function updateFleetPr(
  { octokit, repo }: Client,
  pr: FleetPr,
  change: { title: string; body: string; add: string[]; remove: string[] }
): Promise<void> {
  await octokit.rest.pulls.update({
    ...repo,
    pull_number: pr.number,
    title: change.title,
    body: change.body
  })
  const add = change.add.filter(l => !pr.labels.includes(l))
  if (add.length)
    await octokit.rest.issues.addLabels({ ...repo, issue_number: pr.number, labels: add })
  for (const name of change.remove.filter(l => pr.labels.includes(l)))
    await octokit.rest.issues.removeLabel({ ...repo, issue_number: pr.number, name })
}

/** The token's own conflict comment on the PR, if it wrote one (anyone can paste the marker). */
async function conflictComment({ octokit, repo }: Client, pr: number) {
  const identity = await tokenIdentity(octokit)
  const comments = await octokit.paginate(octokit.rest.issues.listComments, {
    ...repo,
    issue_number: pr,
    per_page: 100
  })
  return comments.find(c => writtenBy(identity, c) && (c.body ?? '').includes(CONFLICT_MARKER))
}

/** Whether the PR's conflict comment already says exactly this (a rerun with nothing new). */
export async function conflictSaid(gh: Client, pr: number, key: string): Promise<boolean> {
  return ((await conflictComment(gh, pr))?.body ?? '').includes(key)
}

/**
 * A conflict the action could not resolve: one comment on the PR (kept up to date, never a second)
 * and the label. The branch itself is not touched.
 */
export async function sayConflict(
  { octokit, repo }: Client,
  pr: FleetPr,
  body: string,
  label: string
): Promise<void> {
  const said = await conflictComment({ octokit, repo }, pr.number)
  if (said) await octokit.rest.issues.updateComment({ ...repo, comment_id: said.id, body })
  else await octokit.rest.issues.createComment({ ...repo, issue_number: pr.number, body })
  if (!pr.labels.includes(label))
    await octokit.rest.issues.addLabels({ ...repo, issue_number: pr.number, labels: [label] })
}
