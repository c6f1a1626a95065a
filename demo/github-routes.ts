// The REST routes the mock answers from its state. Request shapes are already checked against
// GitHub's OpenAPI description by Prism; these handlers add what a schema cannot: state, 404s for
// things that do not exist, and GitHub's own 422s.
import { type GitHubState, type MockIssue, type MockPull, type Role, now } from './github-state.js'

export interface Reply {
  status: number
  body?: unknown
  headers?: Record<string, string>
  /** A plain-text body (a job's log), sent as is. */
  text?: string
}

export interface RouteRequest {
  method: string
  path: string
  query: URLSearchParams
  body: unknown
  caller: string
  /** Absolute URL of the request, for Link headers. */
  url: URL
}

export type Handler = (s: GitHubState, req: RouteRequest, params: string[]) => Reply
const DOCS = 'https://docs.github.com/rest'

export const notFound = (): Reply => ({
  status: 404,
  body: { message: 'Not Found', documentation_url: DOCS, status: '404' }
})

export const validationFailed = (errors: Record<string, unknown>[]): Reply => ({
  status: 422,
  body: { message: 'Validation Failed', errors, documentation_url: DOCS, status: '422' }
})

export const record = (body: unknown): Record<string, unknown> =>
  body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {}

export const text = (value: unknown): string =>
  typeof value === 'string' ? value : typeof value === 'number' ? String(value) : ''

const strings = (value: unknown): string[] =>
  Array.isArray(value) ? value.map(v => (typeof v === 'string' ? v : text(record(v).name))) : []

/** One page of `items`, with the Link header GitHub sends (per_page defaults to 30, max 100). */
export function page<T>(req: RouteRequest, items: T[], render: (item: T) => unknown): Reply {
  const perPage = Math.min(Number(req.query.get('per_page') ?? 30) || 30, 100)
  const current = Math.max(Number(req.query.get('page') ?? 1) || 1, 1)
  const last = Math.max(Math.ceil(items.length / perPage), 1)
  const link = (n: number, rel: string) => {
    const url = new URL(req.url)
    url.searchParams.set('per_page', String(perPage))
    url.searchParams.set('page', String(n))
    return `<${url.href}>; rel="${rel}"`
  }
  const links = [
    ...(current > 1 ? [link(current - 1, 'prev')] : []),
    ...(current < last ? [link(current + 1, 'next'), link(last, 'last')] : []),
    ...(current > 1 ? [link(1, 'first')] : [])
  ]
  return {
    status: 200,
    body: items.slice((current - 1) * perPage, current * perPage).map(render),
    ...(links.length > 0 && { headers: { link: links.join(', ') } })
  }
}

function order<T extends MockIssue>(items: T[], query: URLSearchParams): T[] {
  const key = query.get('sort') === 'updated' ? 'updated_at' : 'created_at'
  const sign = query.get('direction') === 'asc' ? 1 : -1
  return [...items].sort((a, b) => sign * (a[key].localeCompare(b[key]) || a.number - b.number))
}

const stateFilter = (query: URLSearchParams) => {
  const wanted = query.get('state') ?? 'open'
  return (i: MockIssue) => wanted === 'all' || i.state === wanted
}

const setState = (issue: MockIssue, state: unknown, reason?: unknown): void => {
  if (state !== 'open' && state !== 'closed') return
  if (state !== issue.state) issue.closed_at = state === 'closed' ? now() : null
  issue.state = state
  issue.state_reason =
    state === 'closed'
      ? typeof reason === 'string'
        ? reason
        : 'completed'
      : issue.pull
        ? null
        : 'reopened'
}

// ---- pulls ----

function duplicateOpenPull(s: GitHubState, head: string, base: string, except?: number) {
  return s.pulls.find(
    p => p.state === 'open' && p.pull.head === head && p.pull.base === base && p.number !== except
  )
}

const pullExists = (s: GitHubState, head: string): Reply =>
  validationFailed([
    {
      resource: 'PullRequest',
      code: 'custom',
      message: `A pull request already exists for ${s.repo.owner}:${head}.`
    }
  ])

const listPulls: Handler = (s, req) => {
  const head = req.query.get('head')
  const base = req.query.get('base')
  const matches = (p: MockPull) => {
    // GitHub ignores a head filter without the owner prefix: the cause of many duplicate PRs.
    if (head?.includes(':')) {
      const [owner, branch] = head.split(/:(.*)/s)
      if (owner?.toLowerCase() !== s.repo.owner.toLowerCase() || p.pull.head !== branch)
        return false
    }
    return base === null || p.pull.base === base
  }
  const pulls = order(s.pulls.filter(stateFilter(req.query)).filter(matches), req.query)
  return page(req, pulls, p => s.pullJson(p))
}

const createPull: Handler = (s, req) => {
  const body = record(req.body)
  const head = text(body.head).replace(new RegExp(`^${s.repo.owner}:`, 'i'), '')
  const base = text(body.base)
  if (head === base)
    return validationFailed([
      { resource: 'PullRequest', code: 'custom', message: `No commits between ${base} and ${head}` }
    ])
  if (duplicateOpenPull(s, head, base)) return pullExists(s, head)
  const pr = s.addPull({
    head,
    base,
    title: text(body.title) || head,
    user: req.caller,
    draft: body.draft === true,
    ...(typeof body.body === 'string' && { body: body.body })
  })
  pr.pull.maintainer_can_modify = body.maintainer_can_modify === true
  return { status: 201, body: s.pullJson(pr) }
}

const getPull: Handler = (s, _req, [n]) => {
  const pr = s.pullByNumber(Number(n))
  return pr ? { status: 200, body: s.pullJson(pr) } : notFound()
}

const updatePull: Handler = (s, req, [n]) => {
  const pr = s.pullByNumber(Number(n))
  if (!pr) return notFound()
  const body = record(req.body)
  const base = typeof body.base === 'string' ? body.base : pr.pull.base
  const reopening = body.state === 'open' && pr.state === 'closed'
  if ((reopening || base !== pr.pull.base) && duplicateOpenPull(s, pr.pull.head, base, pr.number))
    return pullExists(s, pr.pull.head)
  if (typeof body.title === 'string') pr.title = body.title
  if (typeof body.body === 'string') pr.body = body.body
  if (typeof body.maintainer_can_modify === 'boolean')
    pr.pull.maintainer_can_modify = body.maintainer_can_modify
  pr.pull.base = base
  setState(pr, body.state)
  pr.updated_at = now()
  return { status: 200, body: s.pullJson(pr) }
}

const requestReviewers: Handler = (s, req, [n]) => {
  const pr = s.pullByNumber(Number(n))
  if (!pr) return notFound()
  const reviewers = strings(record(req.body).reviewers)
  if (reviewers.includes(pr.user))
    return validationFailed([
      {
        resource: 'PullRequest',
        code: 'custom',
        message: 'Review cannot be requested from pull request author.'
      }
    ])
  const outsider = reviewers.find(r => (s.collaborators.get(r) ?? 'none') === 'none')
  if (outsider !== undefined)
    return validationFailed([
      {
        resource: 'PullRequest',
        code: 'custom',
        message: `Reviews may only be requested from collaborators. One or more of the users or teams you specified is not a collaborator of the ${s.repo.owner}/${s.repo.repo} repository.`
      }
    ])
  for (const r of reviewers)
    if (!pr.pull.requested_reviewers.includes(r)) pr.pull.requested_reviewers.push(r)
  return { status: 201, body: s.pullJson(pr) }
}

// ---- issues ----

const listIssues: Handler = (s, req) => {
  const wanted = (req.query.get('labels') ?? '')
    .split(',')
    .map(l => l.trim().toLowerCase())
    .filter(Boolean)
  const creator = req.query.get('creator')
  const since = req.query.get('since')
  const issues = s.issues
    .filter(stateFilter(req.query))
    .filter(i => wanted.every(w => i.labels.some(l => l.toLowerCase() === w)))
    .filter(i => creator === null || i.user === creator)
    .filter(i => since === null || i.updated_at >= since)
  // Like GitHub, pull requests are listed too (they carry `pull_request`).
  return page(req, order(issues, req.query), i => s.issueJson(i))
}

const withIssue =
  (then: (s: GitHubState, req: RouteRequest, issue: MockIssue, rest: string[]) => Reply): Handler =>
  (s, req, [n, ...rest]) => {
    const issue = s.issue(Number(n))
    return issue ? then(s, req, issue, rest) : notFound()
  }

const updateIssue = withIssue((s, req, issue) => {
  const body = record(req.body)
  if (typeof body.title === 'string') issue.title = body.title
  if (typeof body.body === 'string' || body.body === null) issue.body = body.body
  if (Array.isArray(body.labels))
    issue.labels = strings(body.labels).map(l => s.ensureLabel(l).name)
  if (Array.isArray(body.assignees)) issue.assignees = assignable(s, strings(body.assignees))
  setState(issue, body.state, body.state_reason)
  issue.updated_at = now()
  return { status: 200, body: s.issueJson(issue) }
})

const assignable = (s: GitHubState, logins: string[]): string[] =>
  logins.filter(l => (s.collaborators.get(l) ?? 'none') !== 'none')

const addAssignees = withIssue((s, req, issue) => {
  for (const login of assignable(s, strings(record(req.body).assignees)))
    if (!issue.assignees.includes(login)) issue.assignees.push(login)
  return { status: 201, body: s.issueJson(issue) }
})

const addLabels = withIssue((s, req, issue) => {
  const names = Array.isArray(req.body) ? strings(req.body) : strings(record(req.body).labels)
  for (const name of names) {
    const label = s.ensureLabel(name)
    if (!issue.labels.some(l => l.toLowerCase() === label.name.toLowerCase())) {
      issue.labels.push(label.name)
      s.labelEvent(issue.number, 'labeled', label.name, req.caller)
    }
  }
  return { status: 200, body: issue.labels.map(l => s.labelJson(s.ensureLabel(l))) }
})

const removeLabel = withIssue((s, req, issue, [encoded]) => {
  const name = decodeURIComponent(encoded ?? '').toLowerCase()
  const at = issue.labels.findIndex(l => l.toLowerCase() === name)
  if (at < 0)
    return {
      status: 404,
      body: { message: 'Label does not exist', documentation_url: DOCS, status: '404' }
    }
  const [removed] = issue.labels.splice(at, 1)
  if (removed) s.labelEvent(issue.number, 'unlabeled', removed, req.caller)
  return { status: 200, body: issue.labels.map(l => s.labelJson(s.ensureLabel(l))) }
})

// ---- comments and reactions ----

const listComments = withIssue((s, req, issue) => {
  const since = req.query.get('since')
  const comments = s.comments.filter(
    c => c.issue_number === issue.number && (since === null || c.updated_at >= since)
  )
  return page(req, comments, c => s.commentJson(c))
})

const createComment = withIssue((s, req, issue) => {
  const comment = s.addComment(issue.number, text(record(req.body).body), req.caller)
  return { status: 201, body: s.commentJson(comment) }
})

const updateComment: Handler = (s, req, [id]) => {
  const comment = s.comment(Number(id))
  if (!comment) return notFound()
  comment.body = text(record(req.body).body)
  comment.updated_at = now()
  return { status: 200, body: s.commentJson(comment) }
}

const createReaction: Handler = (s, req, [id]) => {
  const comment = s.comment(Number(id))
  if (!comment) return notFound()
  const content = text(record(req.body).content)
  const existing = s.reactions.find(
    r => r.comment_id === comment.id && r.user === req.caller && r.content === content
  )
  if (existing) return { status: 200, body: s.reactionJson(existing) }
  const reaction = {
    id: s.id(),
    comment_id: comment.id,
    content,
    user: req.caller,
    created_at: now()
  }
  s.reactions.push(reaction)
  return { status: 201, body: s.reactionJson(reaction) }
}

// ---- review comments (inline, in threads) ----

const withPull =
  (then: (s: GitHubState, req: RouteRequest, pr: MockPull, rest: string[]) => Reply): Handler =>
  (s, req, [n, ...rest]) => {
    const pr = s.pullByNumber(Number(n))
    return pr ? then(s, req, pr, rest) : notFound()
  }

const listReviewComments = withPull((s, req, pr) =>
  page(
    req,
    s.reviewComments.filter(c => c.pull_number === pr.number),
    c => s.reviewCommentJson(c)
  )
)

const listCommentsOfReview = withPull((s, req, pr, [review]) =>
  page(
    req,
    s.reviewComments.filter(c => c.pull_number === pr.number && c.review_id === Number(review)),
    c => s.reviewCommentJson(c)
  )
)

/** GitHub takes replies only to a thread's first comment ("Replies to replies are not supported"). */
const replyToReviewComment = withPull((s, req, pr, [id]) => {
  const target = s.reviewComment(Number(id))
  if (!target || target.pull_number !== pr.number) return notFound()
  if (target.in_reply_to_id !== undefined)
    return validationFailed([
      { resource: 'PullRequestReviewComment', code: 'custom', field: 'in_reply_to_id' }
    ])
  const [reply] = s.addReviewComments(
    pr.number,
    req.caller,
    [
      {
        path: target.path,
        line: target.line ?? 1,
        body: text(record(req.body).body),
        diff_hunk: target.diff_hunk,
        in_reply_to_id: target.id
      }
    ],
    null
  )
  return { status: 201, body: reply && s.reviewCommentJson(reply) }
})

const reactToReviewComment: Handler = (s, req, [id]) => {
  const comment = s.reviewComment(Number(id))
  if (!comment) return notFound()
  const reaction = {
    id: s.id(),
    comment_id: comment.id,
    content: text(record(req.body).content),
    user: req.caller,
    created_at: now()
  }
  s.reactions.push(reaction)
  return { status: 201, body: s.reactionJson(reaction) }
}

// ---- workflow runs: jobs and their logs ----

const listJobs: Handler = (s, req, [id]) => {
  if (!s.runs.has(Number(id))) return notFound()
  const jobs = s.jobs.filter(j => j.run_id === Number(id))
  const one = page(req, jobs, j => s.jobJson(j))
  return { ...one, body: { total_count: jobs.length, jobs: one.body } }
}

/** As GitHub: a 302 to the log text on another (unauthenticated, signed) URL. */
const jobLogs: Handler = (s, _req, [id]) => {
  const job = s.jobs.find(j => j.id === Number(id))
  if (!job) return notFound()
  return { status: 302, headers: { location: `${s.repo.apiUrl}${JOB_LOG_PATH}${job.id}` } }
}

/** Where the mock serves a job's log text, outside the API (see github-mock.ts). */
export const JOB_LOG_PATH = '/_blob/job-logs/'

// ---- repository, labels, permissions ----

/** GitHub's legacy `permission` field folds the finer roles into admin/write/read/none. */
const LEGACY_PERMISSION: Record<Role, string> = {
  admin: 'admin',
  maintain: 'write',
  write: 'write',
  triage: 'read',
  read: 'read',
  none: 'none'
}

const permission: Handler = (s, _req, [encoded]) => {
  const login = decodeURIComponent(encoded ?? '')
  const role = s.collaborators.get(login) ?? 'none'
  return {
    status: 200,
    body: {
      permission: LEGACY_PERMISSION[role],
      role_name: role,
      user: { ...s.userJson(login), role_name: role }
    }
  }
}

const createLabel: Handler = (s, req) => {
  const body = record(req.body)
  const name = text(body.name)
  if (s.label(name))
    return validationFailed([{ resource: 'Label', code: 'already_exists', field: 'name' }])
  const color = typeof body.color === 'string' ? body.color.replace(/^#/, '') : 'ededed'
  const description = typeof body.description === 'string' ? body.description : null
  return { status: 201, body: s.labelJson(s.ensureLabel(name, color, description)) }
}

const getLabel: Handler = (s, _req, [encoded]) => {
  const label = s.label(decodeURIComponent(encoded ?? ''))
  return label ? { status: 200, body: s.labelJson(label) } : notFound()
}

const listEvents = withIssue((s, req, issue) =>
  page(
    req,
    s.events.filter(e => e.issue_number === issue.number),
    e => s.eventJson(e)
  )
)

const getRun: Handler = (s, _req, [id]) => {
  const run = s.runs.get(Number(id))
  return run ? { status: 200, body: s.runJson(run) } : notFound()
}

/** GET /user: an installation token (GITHUB_TOKEN, an app's) is not a user and gets 403. */
function authenticatedUser(s: GitHubState, req: RouteRequest): Reply {
  if (req.caller.endsWith('[bot]'))
    return {
      status: 403,
      body: {
        message: 'Resource not accessible by integration',
        documentation_url: `${DOCS}/users/users#get-the-authenticated-user`,
        status: '403'
      }
    }
  return { status: 200, body: s.userJson(req.caller) }
}

const ROUTES: Array<[string, RegExp, Handler]> = [
  ['GET', /^$/, s => ({ status: 200, body: s.repoJson() })],
  ['GET', /^\/pulls$/, listPulls],
  ['POST', /^\/pulls$/, createPull],
  ['GET', /^\/pulls\/(\d+)$/, getPull],
  ['PATCH', /^\/pulls\/(\d+)$/, updatePull],
  ['POST', /^\/pulls\/(\d+)\/requested_reviewers$/, requestReviewers],
  ['GET', /^\/issues$/, listIssues],
  ['GET', /^\/issues\/(\d+)$/, withIssue((s, _r, i) => ({ status: 200, body: s.issueJson(i) }))],
  ['PATCH', /^\/issues\/(\d+)$/, updateIssue],
  ['GET', /^\/issues\/(\d+)\/comments$/, listComments],
  ['GET', /^\/issues\/(\d+)\/events$/, listEvents],
  ['GET', /^\/actions\/runs\/(\d+)$/, getRun],
  ['POST', /^\/issues\/(\d+)\/comments$/, createComment],
  ['PATCH', /^\/issues\/comments\/(\d+)$/, updateComment],
  ['POST', /^\/issues\/comments\/(\d+)\/reactions$/, createReaction],
  ['POST', /^\/issues\/(\d+)\/labels$/, addLabels],
  ['DELETE', /^\/issues\/(\d+)\/labels\/([^/]+)$/, removeLabel],
  ['POST', /^\/issues\/(\d+)\/assignees$/, addAssignees],
  ['GET', /^\/pulls\/(\d+)\/comments$/, listReviewComments],
  ['GET', /^\/pulls\/(\d+)\/reviews\/(\d+)\/comments$/, listCommentsOfReview],
  ['POST', /^\/pulls\/(\d+)\/comments\/(\d+)\/replies$/, replyToReviewComment],
  ['POST', /^\/pulls\/comments\/(\d+)\/reactions$/, reactToReviewComment],
  ['GET', /^\/actions\/runs\/(\d+)\/jobs$/, listJobs],
  ['GET', /^\/actions\/jobs\/(\d+)\/logs$/, jobLogs],
  ['GET', /^\/collaborators\/([^/]+)\/permission$/, permission],
  ['GET', /^\/labels$/, (s, req) => page(req, s.labels, l => s.labelJson(l))],
  ['POST', /^\/labels$/, createLabel],
  ['GET', /^\/labels\/([^/]+)$/, getLabel]
]

/** The state's answer, or undefined when the mock does not model the route (Prism's example then). */
export function route(
  s: GitHubState,
  req: RouteRequest,
  more: Array<[string, RegExp, Handler]> = []
): Reply | undefined {
  if (req.method === 'GET' && req.path === '/user') return authenticatedUser(s, req)
  const repo = /^\/repos\/([^/]+)\/([^/]+)(\/.*)?$/.exec(req.path)
  if (!repo) return undefined
  const [, owner = '', name = '', rest = ''] = repo
  for (const [method, pattern, handler] of [...ROUTES, ...more]) {
    const match = method === req.method ? pattern.exec(rest) : null
    if (!match) continue
    const sameRepo =
      decodeURIComponent(owner).toLowerCase() === s.repo.owner.toLowerCase() &&
      decodeURIComponent(name).toLowerCase() === s.repo.repo.toLowerCase()
    return sameRepo ? handler(s, req, match.slice(1)) : notFound()
  }
  return undefined
}
