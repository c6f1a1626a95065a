// Event payloads for scenarios: real examples from @octokit/webhooks-examples 7.6.1 (under
// test/fixtures/events/), patched so the repository, users, numbers and URLs agree with the
// scenario. `schedule` is not a webhook and has no example: its fixture is hand-written. GitHub
// first sent only `{"schedule": "<cron>"}`; since its 2022-09-27 changelog scheduled runs also
// carry `repository` and `sender` (and `organization` for org repos), which the fixture keeps.
import { readFileSync } from 'node:fs'

const API = 'https://api.github.com'
const WEB = 'https://github.com'

export interface UserJson {
  login: string
  id: number
  node_id: string
  type: string
  [key: string]: unknown
}

export interface RepositoryJson {
  name: string
  full_name: string
  owner: UserJson
  default_branch: string
  html_url: string
  [key: string]: unknown
}

export interface LabelJson {
  id: number
  name: string
  [key: string]: unknown
}

export interface IssueJson {
  number: number
  title: string
  body: string | null
  user: UserJson
  labels: LabelJson[]
  html_url: string
  pull_request?: {
    url: string
    html_url: string
    diff_url: string
    patch_url: string
    merged_at: string | null
  }
  [key: string]: unknown
}

export interface CommentJson {
  id: number
  body: string
  user: UserJson
  author_association: string
  html_url: string
  [key: string]: unknown
}

export interface IssueCommentPayload {
  action: 'created' | 'edited'
  issue: IssueJson
  comment: CommentJson
  repository: RepositoryJson
  sender: UserJson
  changes?: { body: { from: string } }
  [key: string]: unknown
}

export interface IssuesPayload {
  action: 'labeled' | 'opened'
  issue: IssueJson
  label?: LabelJson
  repository: RepositoryJson
  sender: UserJson
  [key: string]: unknown
}

export interface WorkflowDispatchPayload {
  inputs: Record<string, string>
  ref: string
  workflow: string
  repository: RepositoryJson
  sender: UserJson
  [key: string]: unknown
}

export interface SchedulePayload {
  schedule: string
  repository: RepositoryJson
  sender: UserJson
  [key: string]: unknown
}

export type AuthorAssociation =
  | 'OWNER'
  | 'MEMBER'
  | 'COLLABORATOR'
  | 'CONTRIBUTOR'
  | 'FIRST_TIME_CONTRIBUTOR'
  | 'FIRST_TIMER'
  | 'NONE'

interface RepoArgs {
  owner: string
  repo: string
  /** Default 'main'. */
  defaultBranch?: string
}

/**
 * The fixture with its repository renamed in every string (URLs included). `organization` is
 * dropped: scenario repositories belong to a user, and a stale org would contradict the owner.
 */
function load<T extends { repository: RepositoryJson }>(name: string, args: RepoArgs): T {
  const url = new URL(`../fixtures/events/${name}.json`, import.meta.url)
  const raw = JSON.parse(readFileSync(url, 'utf8')) as T & { organization?: unknown }
  const renamed = rewrite(raw, raw.repository.full_name, `${args.owner}/${args.repo}`)
  delete renamed.organization
  return renamed
}

/** Replaces `from` inside every string of a JSON value (URLs embed logins and repo names). */
function rewrite<T>(value: T, from: string, to: string): T {
  if (typeof value === 'string') return value.split(from).join(to) as T
  if (Array.isArray(value)) return value.map(v => rewrite(v as unknown, from, to)) as T
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, rewrite(v as unknown, from, to)])
    ) as T
  }
  return value
}

/** Stable ids, so the same login or name always gets the same number. */
function idFor(text: string): number {
  let h = 2166136261
  for (const ch of text) h = Math.imul(h ^ ch.charCodeAt(0), 16777619)
  return ((h >>> 0) % 900_000_000) + 1_000_000
}

function user(template: UserJson, login: string): UserJson {
  const id = idFor(`user:${login}`)
  return {
    ...rewrite(template, template.login, login),
    login,
    id,
    node_id: Buffer.from(`04:User${id}`).toString('base64'),
    avatar_url: `https://avatars.githubusercontent.com/u/${id}?v=4`,
    type: login.endsWith('[bot]') ? 'Bot' : template.type
  }
}

function repository(template: RepositoryJson, args: RepoArgs): RepositoryJson {
  const full = `${args.owner}/${args.repo}`
  return {
    ...template,
    id: idFor(`repo:${full}`),
    name: args.repo,
    full_name: full,
    owner: user(template.owner, args.owner),
    default_branch: args.defaultBranch ?? 'main',
    html_url: `${WEB}/${full}`
  }
}

function label(full: string, name: string): LabelJson {
  return {
    id: idFor(`label:${full}:${name}`),
    node_id: Buffer.from(`010:Label${idFor(name)}`).toString('base64'),
    url: `${API}/repos/${full}/labels/${encodeURIComponent(name)}`,
    name,
    color: 'ededed',
    default: false,
    description: null
  }
}

function issue(
  template: IssueJson,
  full: string,
  args: {
    number: number
    title: string
    body: string
    author: UserJson
    labels: string[]
    isPr: boolean
  }
): IssueJson {
  const api = `${API}/repos/${full}/issues/${args.number}`
  const html = `${WEB}/${full}/${args.isPr ? 'pull' : 'issues'}/${args.number}`
  const rest: IssueJson = { ...template }
  delete rest.pull_request
  return {
    ...rest,
    url: api,
    repository_url: `${API}/repos/${full}`,
    labels_url: `${api}/labels{/name}`,
    comments_url: `${api}/comments`,
    events_url: `${api}/events`,
    html_url: html,
    id: idFor(`issue:${full}#${args.number}`),
    number: args.number,
    title: args.title,
    body: args.body,
    user: args.author,
    labels: [...new Set(args.labels)].map(name => label(full, name)),
    assignee: null,
    assignees: [],
    milestone: null,
    ...(typeof rest.reactions === 'object'
      ? { reactions: { ...rest.reactions, url: `${api}/reactions` } }
      : {}),
    ...(args.isPr
      ? {
          pull_request: {
            url: `${API}/repos/${full}/pulls/${args.number}`,
            html_url: html,
            diff_url: `${html}.diff`,
            patch_url: `${html}.patch`,
            merged_at: null
          }
        }
      : {})
  }
}

export function issueComment(
  args: RepoArgs & {
    issueNumber: number
    issueTitle: string
    issueBody: string
    commentBody: string
    commenter: string
    /** Default: derived from the issue and comment body, stable across runs. */
    commentId?: number
    /** Default: the repository owner. */
    issueAuthor?: string
    issueLabels?: string[]
    /** Default 'OWNER' when the commenter is the repository owner, otherwise 'NONE'. */
    authorAssociation?: AuthorAssociation
    /**
     * The issue is a pull request: adds `issue.pull_request` {url, html_url, diff_url, patch_url,
     * merged_at}. The real payload carries no head ref; an action must ask the pulls API for it.
     */
    onPullRequest?: boolean
    action?: 'created' | 'edited'
    /** For 'edited': the body before the edit (`changes.body.from`). */
    previousBody?: string
  }
): IssueCommentPayload {
  const action = args.action ?? 'created'
  const base = load<IssueCommentPayload>(`issue_comment.${action}`, args)
  const repo = repository(base.repository, args)
  const full = repo.full_name
  const commenter = user(base.sender, args.commenter)
  const theIssue = issue(base.issue, full, {
    number: args.issueNumber,
    title: args.issueTitle,
    body: args.issueBody,
    author: user(base.sender, args.issueAuthor ?? args.owner),
    labels: args.issueLabels ?? [],
    isPr: args.onPullRequest ?? false
  })
  const commentId =
    args.commentId ?? idFor(`comment:${full}#${args.issueNumber}:${args.commentBody}`)
  const payload: IssueCommentPayload = {
    ...base,
    action,
    issue: theIssue,
    comment: {
      ...base.comment,
      url: `${API}/repos/${full}/issues/comments/${commentId}`,
      html_url: `${theIssue.html_url}#issuecomment-${commentId}`,
      issue_url: `${API}/repos/${full}/issues/${args.issueNumber}`,
      id: commentId,
      node_id: Buffer.from(`012:IssueComment${commentId}`).toString('base64'),
      user: commenter,
      author_association:
        args.authorAssociation ?? (args.commenter === args.owner ? 'OWNER' : 'NONE'),
      body: args.commentBody
    },
    repository: repo,
    sender: commenter
  }
  if (action === 'edited') payload.changes = { body: { from: args.previousBody ?? '' } }
  return payload
}

export function issuesLabeled(
  args: RepoArgs & {
    issueNumber: number
    title: string
    body: string
    label: string
    /** Who added the label. */
    sender: string
    /** Labels the issue already had; the new label is added to them. */
    labels?: string[]
    /** Default: the repository owner. */
    issueAuthor?: string
  }
): IssuesPayload {
  const base = load<IssuesPayload>('issues.labeled', args)
  const repo = repository(base.repository, args)
  return {
    ...base,
    action: 'labeled',
    issue: issue(base.issue, repo.full_name, {
      number: args.issueNumber,
      title: args.title,
      body: args.body,
      author: user(base.sender, args.issueAuthor ?? args.owner),
      labels: [...(args.labels ?? []), args.label],
      isPr: false
    }),
    label: label(repo.full_name, args.label),
    repository: repo,
    sender: user(base.sender, args.sender)
  }
}

export function issuesOpened(
  args: RepoArgs & {
    issueNumber: number
    title: string
    body: string
    author: string
    labels?: string[]
  }
): IssuesPayload {
  const base = load<IssuesPayload>('issues.opened', args)
  const repo = repository(base.repository, args)
  const author = user(base.sender, args.author)
  return {
    ...base,
    action: 'opened',
    issue: issue(base.issue, repo.full_name, {
      number: args.issueNumber,
      title: args.title,
      body: args.body,
      author,
      labels: args.labels ?? [],
      isPr: false
    }),
    repository: repo,
    sender: author
  }
}

export function workflowDispatch(
  args: RepoArgs & {
    /** As GitHub sends them: every value a string. */
    inputs: Record<string, string>
    /** Default refs/heads/<defaultBranch>. */
    ref?: string
    /** Default .github/workflows/fleet.yml */
    workflow?: string
    /** Default: the repository owner. */
    sender?: string
  }
): WorkflowDispatchPayload {
  const base = load<WorkflowDispatchPayload>('workflow_dispatch', args)
  const repo = repository(base.repository, args)
  return {
    ...base,
    inputs: { ...args.inputs },
    ref: args.ref ?? `refs/heads/${repo.default_branch}`,
    workflow: args.workflow ?? '.github/workflows/fleet.yml',
    repository: repo,
    sender: user(base.sender, args.sender ?? args.owner)
  }
}

export function schedule(
  args: RepoArgs & {
    cron: string
    /** Who last changed the cron line. Default: the repository owner. */
    sender?: string
  }
): SchedulePayload {
  const base = load<SchedulePayload>('schedule', args)
  return {
    ...base,
    schedule: args.cron,
    repository: repository(base.repository, args),
    sender: user(base.sender, args.sender ?? args.owner)
  }
}

export interface PushPayload {
  ref: string
  before: string
  after: string
  created: boolean
  deleted: boolean
  forced: boolean
  repository: RepositoryJson
  sender: UserJson
  [key: string]: unknown
}

/**
 * A push to a branch (#25: a merge into the base is one). Its fixture is hand-written from
 * GitHub's documented push webhook fields (ref, before, after, created, deleted, forced, base_ref,
 * compare, commits, head_commit, pusher, repository, sender), as schedule's is.
 */
export function push(
  args: RepoArgs & {
    /** Default refs/heads/<defaultBranch>. */
    ref?: string
    before?: string
    after?: string
    deleted?: boolean
    /** Default: the repository owner. */
    sender?: string
  }
): PushPayload {
  const base = load<PushPayload>('push', args)
  const repo = repository(base.repository, args)
  const sender = user(base.sender, args.sender ?? args.owner)
  return {
    ...base,
    ref: args.ref ?? `refs/heads/${repo.default_branch}`,
    before: args.before ?? base.before,
    after: args.deleted ? '0'.repeat(40) : (args.after ?? base.after),
    deleted: args.deleted ?? false,
    repository: repo,
    pusher: { name: sender.login, email: null },
    sender
  }
}

// ---- answering on the PR (#18): reviews, inline comments, failed runs ----

export interface PullRequestJson {
  number: number
  title: string
  body: string | null
  head: { ref: string; sha: string; repo: RepositoryJson | null; [key: string]: unknown }
  [key: string]: unknown
}

interface PrArgs extends RepoArgs {
  pr: { number: number; title: string; body: string; head: string; headSha?: string }
  /** The PR's head repository, when it is a fork: `owner/name`. */
  forkOf?: string
}

/** The example's pull_request with this scenario's number, title, body and head. */
function pullRequest(
  template: PullRequestJson,
  repo: RepositoryJson,
  args: PrArgs
): PullRequestJson {
  const full = repo.full_name
  const html = `${WEB}/${full}/pull/${args.pr.number}`
  const [forkOwner = '', forkName = ''] = (args.forkOf ?? '').split('/')
  const headRepo = args.forkOf ? repository(repo, { owner: forkOwner, repo: forkName }) : repo
  return {
    ...template,
    url: `${API}/repos/${full}/pulls/${args.pr.number}`,
    html_url: html,
    id: idFor(`pull:${full}#${args.pr.number}`),
    number: args.pr.number,
    title: args.pr.title,
    body: args.pr.body,
    head: {
      ...template.head,
      label: `${headRepo.owner.login}:${args.pr.head}`,
      ref: args.pr.head,
      sha: args.pr.headSha ?? 'f'.repeat(40),
      repo: headRepo
    }
  }
}

export function pullRequestReview(
  args: PrArgs & {
    reviewer: string
    reviewId: number
    state: 'changes_requested' | 'commented' | 'approved'
    body: string
  }
): Record<string, unknown> {
  const base = load<{
    repository: RepositoryJson
    pull_request: PullRequestJson
    review: Record<string, unknown>
  }>('pull_request_review.submitted', args)
  const repo = repository(base.repository, args)
  const pull = pullRequest(base.pull_request, repo, args)
  const reviewer = user(base.repository.owner, args.reviewer)
  return {
    ...base,
    action: 'submitted',
    review: {
      ...base.review,
      id: args.reviewId,
      user: reviewer,
      body: args.body,
      state: args.state,
      html_url: `${pull.html_url as string}#pullrequestreview-${args.reviewId}`
    },
    pull_request: pull,
    repository: repo,
    sender: reviewer
  }
}

export function pullRequestReviewComment(
  args: PrArgs & {
    commenter: string
    comment: {
      id: number
      body: string
      path: string
      line: number
      diffHunk: string
      inReplyTo?: number
    }
  }
): Record<string, unknown> {
  const base = load<{
    repository: RepositoryJson
    pull_request: PullRequestJson
    comment: Record<string, unknown>
  }>('pull_request_review_comment.created', args)
  const repo = repository(base.repository, args)
  const pull = pullRequest(base.pull_request, repo, args)
  const commenter = user(base.repository.owner, args.commenter)
  const c = args.comment
  return {
    ...base,
    action: 'created',
    comment: {
      ...base.comment,
      id: c.id,
      body: c.body,
      path: c.path,
      line: c.line,
      original_line: c.line,
      diff_hunk: c.diffHunk,
      user: commenter,
      ...(c.inReplyTo !== undefined && { in_reply_to_id: c.inReplyTo })
    },
    pull_request: pull,
    repository: repo,
    sender: commenter
  }
}

/** A completed run (the example's `success`, patched to the scenario's conclusion). */
export function workflowRunCompleted(
  args: RepoArgs & {
    runId: number
    name: string
    headBranch: string
    headSha: string
    conclusion: 'failure' | 'success' | 'timed_out' | 'cancelled'
    /** The head repository, when the run is a fork's: `owner/name`. */
    forkOf?: string
  }
): Record<string, unknown> {
  const base = load<{
    repository: RepositoryJson
    workflow_run: Record<string, unknown>
    sender: UserJson
  }>('workflow_run.completed', args)
  const repo = repository(base.repository, args)
  const [forkOwner = '', forkName = ''] = (args.forkOf ?? '').split('/')
  const headRepo = args.forkOf
    ? repository(base.repository, { owner: forkOwner, repo: forkName })
    : repo
  return {
    ...base,
    workflow_run: {
      ...base.workflow_run,
      id: args.runId,
      name: args.name,
      head_branch: args.headBranch,
      head_sha: args.headSha,
      conclusion: args.conclusion,
      status: 'completed',
      html_url: `${WEB}/${repo.full_name}/actions/runs/${args.runId}`,
      head_repository: headRepo,
      repository: repo
    },
    repository: repo
  }
}

/**
 * The payload as GitHub sends it for a closed or a locked issue (or PR): `state`, `closed_at`,
 * `locked` and `active_lock_reason` set as on a real one.
 */
export function onClosedOrLocked<T extends { issue: IssueJson }>(
  payload: T,
  how: 'closed' | 'locked'
): T {
  const closed = how === 'closed'
  return {
    ...payload,
    issue: {
      ...payload.issue,
      state: closed ? 'closed' : 'open',
      closed_at: closed ? '2026-11-30T12:00:00Z' : null,
      ...(closed ? { state_reason: 'completed' } : {}),
      locked: !closed,
      active_lock_reason: closed ? null : 'too heated'
    }
  }
}
