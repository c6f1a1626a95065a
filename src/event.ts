import type { Actor } from './domain.js'

/** The issue (or PR) an event is about, as the payload describes it. */
export interface IssueRef {
  number: number
  title: string
  body: string
  isPullRequest: boolean
}

/** What an event asks the fleet to do. Pure: decided from the event alone. */
export type Request =
  | { kind: 'tasks' }
  | { kind: 'comment'; issue: IssueRef; commentId: number; actor: Actor; text: string }
  | { kind: 'follow-up'; issue: IssueRef; commentId: number; actor: Actor; text: string }
  | { kind: 'labeled'; issue: IssueRef; actor: Actor }
  | { kind: 'plan'; issue: IssueRef; commentId: number; actor: Actor; text: string }
  | { kind: 'goal'; goal: string }
  | { kind: 'review'; pr: PrRef; reviewId: number; actor: Actor; text: string }
  | { kind: 'review-comment'; pr: PrRef; comment: InlineComment; actor: Actor; text: string }
  | { kind: 'failed-run'; run: FailedRun }
  | { kind: 'queue' }
  | { kind: 'refresh'; base?: string; why: string }
  | { kind: 'ignore'; reason: string }

/** A pull request as a review event names it; the trigger re-reads it from the API. */
export interface PrRef {
  number: number
  title: string
  headRef: string
}

/** An inline review comment: where it sits and what it says. */
export interface InlineComment {
  id: number
  /** The thread's first comment (replies go there); its own id when it starts the thread. */
  threadId: number
  path: string
  line: number | null
  diffHunk: string
  body: string
  author: string
}

/** A workflow run that completed red on a branch of this repository. */
export interface FailedRun {
  id: number
  name: string
  headBranch: string
  headSha: string
  conclusion: string
  url: string
}

export interface EventSettings {
  hasTasks: boolean
  triggerPhrase: string
  queueLabel: string
  /** The `goal` input: the planner makes the tasks. */
  goal?: string
  /** Answering on fleet PRs (reviews, review comments, failed checks): the branch prefix. */
  branchPrefix?: string
  /** A review that requests changes delegates without the trigger phrase. */
  addressReviews?: boolean
  /** A failed workflow run on a fleet branch delegates its fix. */
  fixFailingChecks?: boolean
  /** `update-prs`: dispatch and schedule bring the open fleet PRs up to date instead. */
  updatePrs?: boolean
}

type Obj = Record<string, unknown>
const obj = (v: unknown): Obj => (typeof v === 'object' && v !== null ? (v as Obj) : {})
const str = (v: unknown): string => (typeof v === 'string' ? v : '')

function issueOf(payload: Obj): IssueRef {
  const issue = obj(payload.issue)
  return {
    number: Number(issue.number),
    title: str(issue.title),
    body: str(issue.body),
    isPullRequest: issue.pull_request !== undefined && issue.pull_request !== null
  }
}

function actorOf(user: unknown): Actor {
  const u = obj(user)
  return { login: str(u.login), isBot: u.type === 'Bot' || str(u.login).endsWith('[bot]') }
}

/** The text after the trigger phrase, or undefined when the comment does not start with it. */
export function afterPhrase(body: string, phrase: string): string | undefined {
  const text = body.trimStart()
  if (!text.startsWith(phrase)) return undefined
  const rest = text.slice(phrase.length)
  if (rest !== '' && !/^\s/.test(rest)) return undefined // "/fleetwood" is not "/fleet"
  return rest.trim()
}

/** Why a PR event is not about a fleet PR of this repository, or undefined when it is. */
function notFleetPr(payload: Obj, s: EventSettings): string | undefined {
  const pr = obj(payload.pull_request)
  const head = obj(pr.head)
  const prefix = s.branchPrefix ?? 'fleet/'
  if (!str(head.ref).startsWith(prefix))
    return `pull request #${Number(pr.number)} is not on a ${prefix}* branch the action opened`
  if (str(obj(head.repo).full_name) !== str(obj(payload.repository).full_name))
    return `pull request #${Number(pr.number)} comes from a fork`
  return undefined
}

function prRefOf(payload: Obj): PrRef {
  const pr = obj(payload.pull_request)
  return { number: Number(pr.number), title: str(pr.title), headRef: str(obj(pr.head).ref) }
}

/**
 * A submitted review on a fleet PR: its body after the trigger phrase, or, with address-reviews,
 * the whole body of a review that requests changes (its inline comments are read by the trigger).
 */
function reviewRequest(payload: Obj, s: EventSettings): Request {
  if (payload.action !== 'submitted')
    return { kind: 'ignore', reason: `pull_request_review ${str(payload.action)}: only submitted` }
  const review = obj(payload.review)
  const body = str(review.body)
  const asked = afterPhrase(body, s.triggerPhrase)
  const changes = str(review.state).toLowerCase() === 'changes_requested'
  const text = asked ?? (s.addressReviews && changes ? body.trim() : undefined)
  if (text === undefined)
    return {
      kind: 'ignore',
      reason: `the review does not start with ${s.triggerPhrase}${changes ? ' (set address-reviews: true to answer every review that requests changes)' : ''}`
    }
  const notOurs = notFleetPr(payload, s)
  if (notOurs) return { kind: 'ignore', reason: notOurs }
  const actor = actorOf(review.user)
  return { kind: 'review', pr: prRefOf(payload), reviewId: Number(review.id), actor, text }
}

/** A new inline comment on a fleet PR that starts with the trigger phrase. */
function reviewCommentRequest(payload: Obj, s: EventSettings): Request {
  if (payload.action !== 'created')
    return {
      kind: 'ignore',
      reason: `pull_request_review_comment ${str(payload.action)}: only new comments delegate`
    }
  const c = obj(payload.comment)
  const text = afterPhrase(str(c.body), s.triggerPhrase)
  if (text === undefined)
    return { kind: 'ignore', reason: `the comment does not start with ${s.triggerPhrase}` }
  const notOurs = notFleetPr(payload, s)
  if (notOurs) return { kind: 'ignore', reason: notOurs }
  const id = Number(c.id)
  const line = c.line ?? c.original_line
  const comment: InlineComment = {
    id,
    threadId: typeof c.in_reply_to_id === 'number' ? c.in_reply_to_id : id,
    path: str(c.path),
    line: typeof line === 'number' ? line : null,
    diffHunk: str(c.diff_hunk),
    body: str(c.body),
    author: str(obj(c.user).login)
  }
  return { kind: 'review-comment', pr: prRefOf(payload), comment, actor: actorOf(c.user), text }
}

const RED = ['failure', 'timed_out']

/** A workflow run that ended red on a fleet branch of this repository (never a fork's). */
function failedRunRequest(payload: Obj, s: EventSettings): Request {
  const run = obj(payload.workflow_run)
  const conclusion = str(run.conclusion)
  if (payload.action !== 'completed' || !RED.includes(conclusion))
    return { kind: 'ignore', reason: `workflow_run ${str(payload.action)} ${conclusion}: not red` }
  if (!s.fixFailingChecks)
    return { kind: 'ignore', reason: 'failed checks are fixed only with fix-failing-checks: true' }
  const branch = str(run.head_branch)
  const prefix = s.branchPrefix ?? 'fleet/'
  if (!branch.startsWith(prefix))
    return { kind: 'ignore', reason: `the run's branch ${branch} is not a ${prefix}* branch` }
  if (str(obj(run.head_repository).full_name) !== str(obj(payload.repository).full_name))
    return { kind: 'ignore', reason: 'the run comes from a fork' }
  return {
    kind: 'failed-run',
    run: {
      id: Number(run.id),
      name: str(run.name) || str(obj(payload.workflow).name),
      headBranch: branch,
      headSha: str(run.head_sha),
      conclusion,
      url: str(run.html_url)
    }
  }
}

/**
 * A push to a branch: the open fleet PRs that target it are brought up to date (a merge into the
 * base is a push to it). Tags, deleted branches and the fleet's own branches ask nothing.
 */
function pushRequest(payload: Obj, s: EventSettings): Request {
  // Read on its own (no shared helper): `ref` and `deleted` are all a push asks for.
  const ref = typeof payload.ref === 'string' ? payload.ref : ''
  if (!ref.startsWith('refs/heads/'))
    return { kind: 'ignore', reason: `a push to ${ref || 'no ref'} is not a push to a branch` }
  const base = ref.slice('refs/heads/'.length)
  if (payload.deleted === true) return { kind: 'ignore', reason: `the push deleted ${base}` }
  const prefix = s.branchPrefix ?? 'fleet/'
  if (base.startsWith(prefix))
    return { kind: 'ignore', reason: `${base} is a fleet branch: no fleet PR targets it` }
  return { kind: 'refresh', base, why: `a push to ${base}` }
}

export function readEvent(eventName: string, payload: Obj, s: EventSettings): Request {
  if (s.hasTasks) return { kind: 'tasks' }
  if (s.goal) return { kind: 'goal', goal: s.goal }
  switch (eventName) {
    case 'issue_comment': {
      if (payload.action !== 'created')
        return {
          kind: 'ignore',
          reason: `issue_comment ${str(payload.action)}: only new comments delegate`
        }
      const comment = obj(payload.comment)
      const text = afterPhrase(str(comment.body), s.triggerPhrase)
      if (text === undefined)
        return { kind: 'ignore', reason: `the comment does not start with ${s.triggerPhrase}` }
      const issue = issueOf(payload)
      const base = { issue, commentId: Number(comment.id), actor: actorOf(comment.user), text }
      if (issue.isPullRequest) return { kind: 'follow-up', ...base }
      // "/fleet plan [text]" asks the planner; on a pull request it stays a follow-up's words.
      const plan = /^plan(?:\s+([\s\S]*))?$/.exec(text)
      if (plan) return { kind: 'plan', ...base, text: plan[1]?.trim() ?? '' }
      return { kind: 'comment', ...base }
    }
    case 'issues': {
      const label = str(obj(payload.label).name)
      if (payload.action !== 'labeled' || label !== s.queueLabel) {
        return {
          kind: 'ignore',
          reason: `issues ${str(payload.action)} ${label}: only the '${s.queueLabel}' label delegates`
        }
      }
      return { kind: 'labeled', issue: issueOf(payload), actor: actorOf(payload.sender) }
    }
    case 'pull_request_review':
      return reviewRequest(payload, s)
    case 'pull_request_review_comment':
      return reviewCommentRequest(payload, s)
    case 'workflow_run':
      return failedRunRequest(payload, s)
    case 'push':
      return pushRequest(payload, s)
    case 'schedule':
    case 'workflow_dispatch':
      if (s.updatePrs) return { kind: 'refresh', why: `${eventName} with update-prs: true` }
      return { kind: 'queue' }
    default:
      return {
        kind: 'ignore',
        reason: `the ${eventName} event delegates nothing without 'tasks' or 'tasks-file'`
      }
  }
}
