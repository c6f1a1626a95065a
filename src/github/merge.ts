import type { Client, Octokit } from './client.js'
import { isGitHubError } from './errors.js'
import { tokenIdentity, writtenBy } from './identity.js'

/**
 * What the landing train asks of GitHub: who reviewed a PR and with what access, what the
 * repository allows, the base's rules and a commit's checks, the merge itself (GitHub's answer
 * kept whole), the GraphQL mutations (ready for review, auto-merge, the merge queue), and the
 * train's one comment on a PR.
 */

const WRITERS = ['admin', 'maintain', 'write']

export type MergeMethod = 'merge' | 'squash' | 'rebase'

/** A submitted review as the train reads it. */
export interface ReviewSeen {
  id: number
  login: string
  isBot: boolean
  /** APPROVED, CHANGES_REQUESTED, COMMENTED, DISMISSED (PENDING ones are never listed to others). */
  state: string
  /** The PR's head when it was submitted. */
  commitId: string
  submittedAt: string
}

/** Every review of the PR, oldest first, as the reviews API lists them. */
export async function reviewsOf({ octokit, repo }: Client, pr: number): Promise<ReviewSeen[]> {
  const reviews = await octokit.paginate(octokit.rest.pulls.listReviews, {
    ...repo,
    pull_number: pr,
    per_page: 100
  })
  return reviews.flatMap(r =>
    r.user
      ? [
          {
            id: r.id,
            login: r.user.login,
            isBot: r.user.type === 'Bot' || r.user.login.endsWith('[bot]'),
            state: r.state,
            commitId: r.commit_id ?? '',
            submittedAt: r.submitted_at ?? ''
          }
        ]
      : []
  )
}

/**
 * Which of these people have write access (admin, maintain, write), by the permission API; one
 * call per login, remembered for the run. Someone who is not a collaborator has none.
 */
export function writersOf({ octokit, repo }: Client) {
  const known = new Map<string, Promise<boolean>>()
  const ask = async (login: string): Promise<boolean> => {
    try {
      const { data } = await octokit.rest.repos.getCollaboratorPermissionLevel({
        ...repo,
        username: login
      })
      return WRITERS.includes(data.role_name) || WRITERS.includes(data.permission)
    } catch (error) {
      if (isGitHubError(error, 'not-found')) return false
      throw error
    }
  }
  return async (logins: string[]): Promise<Set<string>> => {
    const asked = await Promise.all(
      logins.map(async l => {
        let answer = known.get(l)
        if (!answer) known.set(l, (answer = ask(l)))
        return [l, await answer] as const
      })
    )
    return new Set(asked.filter(([, ok]) => ok).map(([l]) => l))
  }
}

/** The merge methods and auto-merge the repository allows (undefined where the token cannot see). */
export async function repoMergeSettings({ octokit, repo }: Client) {
  const { data } = await octokit.rest.repos.get({ ...repo })
  return {
    merge: data.allow_merge_commit,
    squash: data.allow_squash_merge,
    rebase: data.allow_rebase_merge,
    autoMerge: data.allow_auto_merge ?? false
  }
}

/** The base's rules that the train reads: its required checks, and whether it has a merge queue. */
export async function baseRules(
  { octokit, repo }: Client,
  branch: string
): Promise<{ requiredChecks: string[]; mergeQueue: boolean }> {
  const rules = await octokit.paginate(octokit.rest.repos.getBranchRules, {
    ...repo,
    branch,
    per_page: 100
  })
  const requiredChecks = rules.flatMap(r =>
    r.type === 'required_status_checks'
      ? (r.parameters?.required_status_checks ?? []).map(c => c.context)
      : []
  )
  return { requiredChecks, mergeQueue: rules.some(r => r.type === 'merge_queue') }
}

/** The check runs on a commit that completed well (success, neutral, skipped), by name. */
export async function passedChecks({ octokit, repo }: Client, sha: string): Promise<string[]> {
  const runs = await octokit.paginate(octokit.rest.checks.listForRef, {
    ...repo,
    ref: sha,
    per_page: 100
  })
  return runs
    .filter(
      r =>
        r.status === 'completed' && ['success', 'neutral', 'skipped'].includes(r.conclusion ?? '')
    )
    .map(r => r.name)
}

/** GitHub's answer to a merge: merged, or refused with its status and its own words. */
export type MergeReply =
  { merged: true; sha: string } | { merged: false; status: number; message: string }

/** The merge, with the head pinned: GitHub merges only if the PR's head is still `sha`. */
export async function mergePr(
  { octokit, repo }: Client,
  pr: { number: number; sha: string; method: MergeMethod; title: string }
): Promise<MergeReply> {
  try {
    const { data } = await octokit.rest.pulls.merge({
      ...repo,
      pull_number: pr.number,
      sha: pr.sha,
      merge_method: pr.method,
      commit_title: `${pr.title} (#${pr.number})`,
      // GitHub's 405 and 409 are answers, not faults: the retry plugin would ask three more times
      // (it retries every 4xx but 400, 401, 403, 404, 422, 451), with seconds of backoff.
      request: { retries: 0 }
    })
    return { merged: true, sha: data.sha }
  } catch (error) {
    const e = error as { status?: unknown; response?: { data?: { message?: unknown } } }
    if (typeof e.status !== 'number' || e.status < 400 || e.status >= 500) throw error
    const said = e.response?.data?.message
    return {
      merged: false,
      status: e.status,
      message: typeof said === 'string' ? said : String(error)
    }
  }
}

/** The PR's head as GitHub has it now (after a 409: someone pushed). */
export async function headNow({ octokit, repo }: Client, pr: number) {
  const { data } = await octokit.rest.pulls.get({ ...repo, pull_number: pr })
  return { sha: data.head.sha, state: data.state, merged: data.merged }
}

/** A GraphQL error's messages as one sentence. */
function graphqlMessage(error: unknown): string {
  const errors = (error as { errors?: Array<{ message?: string }> }).errors
  if (Array.isArray(errors) && errors.length) return errors.map(e => e.message ?? '').join('; ')
  return error instanceof Error ? error.message : String(error)
}

/** Runs one mutation; undefined when GitHub took it, else GitHub's words. */
async function mutate(
  octokit: Octokit,
  query: string,
  variables: Record<string, string>
): Promise<string | undefined> {
  try {
    await octokit.graphql(query, variables)
    return undefined
  } catch (error) {
    return graphqlMessage(error)
  }
}

export function markReady({ octokit }: Client, nodeId: string): Promise<string | undefined> {
  return mutate(
    octokit,
    'mutation($id: ID!) { markPullRequestReadyForReview(input: {pullRequestId: $id}) { pullRequest { isDraft } } }',
    { id: nodeId }
  )
}

/** Auto-merge on the PR: GitHub merges it once its requirements pass, if the head is still `sha`. */
export function enableAutoMerge(
  { octokit }: Client,
  pr: { nodeId: string; method: MergeMethod; sha: string }
): Promise<string | undefined> {
  return mutate(
    octokit,
    // @octokit/graphql keeps `method`, `query`, `url` and `headers` for itself: not variable names.
    'mutation($id: ID!, $mergeMethod: PullRequestMergeMethod!, $sha: GitObjectID!) { enablePullRequestAutoMerge(input: {pullRequestId: $id, mergeMethod: $mergeMethod, expectedHeadOid: $sha}) { pullRequest { autoMergeRequest { enabledAt } } } }',
    { id: pr.nodeId, mergeMethod: pr.method.toUpperCase(), sha: pr.sha }
  )
}

/** The PR added to the base's merge queue, if its head is still `sha`. */
export function enqueue(
  { octokit }: Client,
  pr: { nodeId: string; sha: string }
): Promise<string | undefined> {
  return mutate(
    octokit,
    'mutation($id: ID!, $sha: GitObjectID!) { enqueuePullRequest(input: {pullRequestId: $id, expectedHeadOid: $sha}) { mergeQueueEntry { position } } }',
    { id: pr.nodeId, sha: pr.sha }
  )
}

/**
 * The train's one comment on a PR (found by `marker`, only among the token's own comments): written
 * once, edited when what it says changes, left alone when it already says `key`.
 */
export async function sayOnPr(
  { octokit, repo }: Client,
  pr: number,
  said: { marker: string; key: string; body: string }
): Promise<'new' | 'edited' | 'same'> {
  const identity = await tokenIdentity(octokit)
  const comments = await octokit.paginate(octokit.rest.issues.listComments, {
    ...repo,
    issue_number: pr,
    per_page: 100
  })
  const mine = comments.find(c => writtenBy(identity, c) && (c.body ?? '').includes(said.marker))
  if (mine && (mine.body ?? '').includes(said.key)) return 'same'
  if (mine) {
    await octokit.rest.issues.updateComment({ ...repo, comment_id: mine.id, body: said.body })
    return 'edited'
  }
  await octokit.rest.issues.createComment({ ...repo, issue_number: pr, body: said.body })
  return 'new'
}

/** Labels added and removed, each only if it is (not) there. */
export async function relabel(
  { octokit, repo }: Client,
  pr: { number: number; labels: string[] },
  change: { add: string[]; remove: string[] }
): Promise<void> {
  const has = (l: string) => pr.labels.some(x => x.toLowerCase() === l.toLowerCase())
  const add = change.add.filter(l => !has(l))
  if (add.length)
    await octokit.rest.issues.addLabels({ ...repo, issue_number: pr.number, labels: add })
  for (const name of change.remove.filter(has))
    await octokit.rest.issues.removeLabel({ ...repo, issue_number: pr.number, name })
}
