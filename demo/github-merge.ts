// The landing train's routes of the GitHub mock: reviews, check runs per commit, the rules of the
// base (rulesets), "Update branch", and the merge itself with GitHub's refusals and messages. The
// merge moves the base branch of the git remote as GitHub would (a merge commit, a squash or a
// rebase), so the next PR in a train really is behind.
import type { MergeMethod } from './github-git.js'
import {
  type Handler,
  notFound,
  page,
  record,
  type Reply,
  type RouteRequest,
  text,
  validationFailed
} from './github-routes.js'
import {
  type GitHubState,
  type MockCheckRun,
  type MockPull,
  type MockReview,
  now
} from './github-state.js'

const DOCS = 'https://docs.github.com/rest/pulls/pulls#merge-a-pull-request'
const WRITERS = ['admin', 'maintain', 'write']

const refusal = (status: number, message: string, documentation_url = DOCS): Reply => ({
  status,
  body: { message, documentation_url, status: String(status) }
})

const withPull =
  (then: (s: GitHubState, req: RouteRequest, pr: MockPull, rest: string[]) => Reply): Handler =>
  (s, req, [n, ...rest]) => {
    const pr = s.pullByNumber(Number(n))
    return pr ? then(s, req, pr, rest) : notFound()
  }

// ---- reviews ----

function reviewJson(s: GitHubState, r: MockReview): Record<string, unknown> {
  const base = `${s.repo.apiUrl}/repos/${s.repo.owner}/${s.repo.repo}`
  const html = `${s.repo.serverUrl}/${s.repo.owner}/${s.repo.repo}/pull/${r.pull_number}`
  return {
    id: r.id,
    node_id: Buffer.from(`PRR_${r.id}`).toString('base64'),
    user: s.userJson(r.user),
    body: r.body,
    state: r.state,
    html_url: `${html}#pullrequestreview-${r.id}`,
    pull_request_url: `${base}/pulls/${r.pull_number}`,
    _links: {
      html: { href: `${html}#pullrequestreview-${r.id}` },
      pull_request: { href: `${base}/pulls/${r.pull_number}` }
    },
    submitted_at: r.submitted_at,
    commit_id: r.commit_id,
    author_association: s.collaborators.has(r.user) ? 'COLLABORATOR' : 'NONE'
  }
}

const listReviews = withPull((s, req, pr) =>
  page(
    req,
    s.reviews.filter(r => r.pull_number === pr.number),
    r => reviewJson(s, r)
  )
)

// ---- check runs and rules ----

function checkRunJson(s: GitHubState, c: MockCheckRun): Record<string, unknown> {
  const api = `${s.repo.apiUrl}/repos/${s.repo.owner}/${s.repo.repo}`
  const at = '2026-01-01T00:00:00Z'
  return {
    id: c.id,
    head_sha: c.head_sha,
    node_id: Buffer.from(`CR_${c.id}`).toString('base64'),
    external_id: '',
    url: `${api}/check-runs/${c.id}`,
    html_url: `${s.repo.serverUrl}/${s.repo.owner}/${s.repo.repo}/runs/${c.id}`,
    details_url: null,
    status: c.status,
    conclusion: c.conclusion,
    started_at: at,
    completed_at: c.status === 'completed' ? at : null,
    output: { title: null, summary: null, text: null, annotations_count: 0, annotations_url: '' },
    name: c.name,
    check_suite: { id: c.id },
    app: null,
    pull_requests: []
  }
}

const listCheckRuns: Handler = (s, req, [ref]) => {
  const wanted = decodeURIComponent(ref ?? '')
  const sha = s.git?.sha(wanted) ?? wanted
  const runs = s.checkRuns.filter(c => c.head_sha === sha)
  const one = page(req, runs, c => checkRunJson(s, c))
  return { ...one, body: { total_count: runs.length, check_runs: one.body } }
}

/** The rules on a branch, as a ruleset on the default branch gives them. */
const branchRules: Handler = (s, req, [branch]) => {
  if (decodeURIComponent(branch ?? '') !== s.repo.defaultBranch) return page(req, [], r => r)
  const source = {
    ruleset_source_type: 'Repository',
    ruleset_source: `${s.repo.owner}/${s.repo.repo}`,
    ruleset_id: 42
  }
  const rules = s.rules.map(rule => {
    switch (rule.type) {
      case 'required_status_checks':
        return {
          type: rule.type,
          ...source,
          parameters: {
            required_status_checks: rule.checks.map(context => ({ context })),
            strict_required_status_checks_policy: rule.strict ?? false
          }
        }
      case 'pull_request':
        return {
          type: rule.type,
          ...source,
          parameters: {
            dismiss_stale_reviews_on_push: false,
            require_code_owner_review: false,
            require_last_push_approval: false,
            required_approving_review_count: rule.approvals,
            required_review_thread_resolution: false
          }
        }
      case 'merge_queue':
        return {
          type: rule.type,
          ...source,
          parameters: {
            check_response_timeout_minutes: 60,
            grouping_strategy: 'ALLGREEN',
            max_entries_to_build: 5,
            max_entries_to_merge: 5,
            merge_method: 'SQUASH',
            min_entries_to_merge: 1,
            min_entries_to_merge_wait_minutes: 5
          }
        }
    }
  })
  return page(req, s.rules.length ? rules : [], r => r)
}

// ---- what GitHub checks before it merges ----

const METHOD_SETTING: Record<MergeMethod, keyof GitHubState['settings']> = {
  merge: 'allow_merge_commit',
  squash: 'allow_squash_merge',
  rebase: 'allow_rebase_merge'
}
const METHOD_REFUSED: Record<MergeMethod, string> = {
  merge: 'Merge commits are not allowed on this repository.',
  squash: 'Squash merges are not allowed on this repository.',
  rebase: 'Rebase merges are not allowed on this repository.'
}

/** The required checks that have not passed on `sha`, with how each stands. */
function unmetChecks(s: GitHubState, sha: string): { name: string; state: string }[] {
  const required = s.rules.flatMap(r => (r.type === 'required_status_checks' ? r.checks : []))
  return required.flatMap(name => {
    const run = s.checkRuns.filter(c => c.head_sha === sha && c.name === name).at(-1)
    if (!run) return [{ name, state: 'expected' }]
    if (run.status !== 'completed') return [{ name, state: 'in progress' }]
    return ['success', 'neutral', 'skipped'].includes(run.conclusion ?? '')
      ? []
      : [{ name, state: 'failing' }]
  })
}

function checksMessage(unmet: { name: string; state: string }[], total: number): string {
  const [one] = unmet
  if (unmet.length === 1 && one) return `Required status check "${one.name}" is ${one.state}.`
  return `${unmet.length} of ${total} required status checks are ${unmet.every(u => u.state === 'expected') ? 'expected' : 'not successful'}.`
}

/** Approvals that count: each reviewer's latest review, from people with write access. */
function approvals(s: GitHubState, pr: MockPull): number {
  const latest = new Map<string, MockReview>()
  for (const r of s.reviews.filter(r => r.pull_number === pr.number && r.state !== 'COMMENTED'))
    latest.set(r.user, r)
  return [...latest.values()].filter(
    r => r.state === 'APPROVED' && WRITERS.includes(s.collaborators.get(r.user) ?? 'none')
  ).length
}

/** Why GitHub will not merge the PR now (405), or undefined when it would. */
export function mergeBlocker(s: GitHubState, pr: MockPull): string | undefined {
  const git = s.git
  if (pr.state !== 'open' || pr.pull.merged_at) return 'Pull Request is not mergeable'
  if (pr.pull.draft) return 'Pull Request is still a draft'
  if (s.rules.some(r => r.type === 'merge_queue'))
    return 'Changes must be made through the merge queue'
  const head = s.headSha(pr)
  const base = s.baseSha(pr)
  if (git && !git.mergeable(base, head)) return 'Pull Request is not mergeable'
  for (const rule of s.rules) {
    if (rule.type === 'required_status_checks') {
      if (rule.strict && git && !git.isAncestor(base, head))
        return 'Head branch is not up to date with the base branch'
      const unmet = unmetChecks(s, head)
      if (unmet.length) return checksMessage(unmet, rule.checks.length)
    }
    if (rule.type === 'pull_request' && approvals(s, pr) < rule.approvals)
      return `At least ${rule.approvals} approving review${rule.approvals === 1 ? ' is' : 's are'} required by reviewers with write access.`
  }
  return undefined
}

/** The merge made: the base moved on the remote, the PR closed as merged. */
function doMerge(
  s: GitHubState,
  pr: MockPull,
  how: { method: MergeMethod; title?: string; message?: string; by: string }
): string | undefined {
  const title =
    how.title ||
    (how.method === 'merge'
      ? `Merge pull request #${pr.number} from ${s.repo.owner}/${pr.pull.head}`
      : `${pr.title} (#${pr.number})`)
  const message = how.message ?? (how.method === 'merge' ? pr.title : '')
  const head = s.headSha(pr)
  const landed = s.git
    ? s.git.land(how.method, {
        base: pr.pull.base,
        head: pr.pull.head,
        title,
        message,
        by: { name: how.by, email: `${how.by}@users.noreply.github.com` }
      })
    : head
  if (!landed) return undefined
  const at = now()
  pr.pull.head_sha = head
  pr.pull.merged_at = at
  pr.pull.merge_commit_sha = landed
  pr.pull.auto_merge = null
  pr.pull.queued = false
  pr.state = 'closed'
  pr.closed_at = at
  pr.updated_at = at
  return landed
}

const MERGE_METHODS = ['merge', 'squash', 'rebase'] as const

const mergePull = withPull((s, req, pr) => {
  const body = record(req.body)
  const method = (MERGE_METHODS as readonly string[]).includes(text(body.merge_method))
    ? (text(body.merge_method) as MergeMethod)
    : 'merge'
  const sha = text(body.sha)
  if (pr.state === 'open' && !pr.pull.merged_at && sha && sha !== s.headSha(pr))
    return refusal(409, 'Head branch was modified. Review and try the merge again.')
  if (!s.settings[METHOD_SETTING[method]]) return refusal(405, METHOD_REFUSED[method])
  const blocker = mergeBlocker(s, pr)
  if (blocker) return refusal(405, blocker)
  const landed = doMerge(s, pr, {
    method,
    title: text(body.commit_title),
    ...(typeof body.commit_message === 'string' && { message: body.commit_message }),
    by: req.caller
  })
  if (!landed) return refusal(405, 'Pull Request is not mergeable')
  return {
    status: 200,
    body: { sha: landed, merged: true, message: 'Pull Request successfully merged' }
  }
})

/** "Update branch": 202 while GitHub merges the base into the head (here, at once). */
const updateBranch = withPull((s, req, pr) => {
  const expected = text(record(req.body).expected_head_sha)
  const head = s.headSha(pr)
  if (expected && expected !== head)
    return validationFailed([
      {
        resource: 'PullRequest',
        code: 'custom',
        message: 'expected head sha didn’t match current head ref.'
      }
    ])
  if (s.git && s.git.isAncestor(s.baseSha(pr), head))
    return validationFailed([
      {
        resource: 'PullRequest',
        code: 'custom',
        message: 'There are no new commits on the base branch.'
      }
    ])
  const merged = s.git?.updateBranch(pr.pull.head, pr.pull.base, {
    name: req.caller,
    email: `${req.caller}@users.noreply.github.com`
  })
  if (s.git && !merged)
    return validationFailed([
      { resource: 'PullRequest', code: 'custom', message: 'merge conflict between base and head' }
    ])
  return {
    status: 202,
    body: {
      message: 'Updating pull request branch.',
      url: `${s.repo.serverUrl}/${s.repo.owner}/${s.repo.repo}/pull/${pr.number}`
    }
  }
})

/**
 * A check run reported on a commit (a test's stand-in for CI); a PR with auto-merge on whose
 * requirements now pass is merged, as GitHub does.
 */
export function reportCheck(
  s: GitHubState,
  sha: string,
  name: string,
  conclusion: string | null = 'success'
): MockCheckRun {
  const run = s.addCheckRun(sha, name, conclusion)
  for (const pr of s.pulls.filter(p => p.pull.auto_merge && p.state === 'open'))
    if (!mergeBlocker(s, pr) && pr.pull.auto_merge)
      doMerge(s, pr, { method: pr.pull.auto_merge.merge_method, by: pr.pull.auto_merge.enabled_by })
  return run
}

export { doMerge }

export const MERGE_ROUTES: Array<[string, RegExp, Handler]> = [
  ['GET', /^\/pulls\/(\d+)\/reviews$/, listReviews],
  ['PUT', /^\/pulls\/(\d+)\/merge$/, mergePull],
  ['PUT', /^\/pulls\/(\d+)\/update-branch$/, updateBranch],
  ['GET', /^\/commits\/([^/]+)\/check-runs$/, listCheckRuns],
  ['GET', /^\/rules\/branches\/(.+)$/, branchRules]
]
