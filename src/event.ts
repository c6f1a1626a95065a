import { z } from 'zod'
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
  | { kind: 'train'; why: string; issue?: IssueRef; commentId?: number; actor?: Actor }
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
  /** Bots that may delegate (`allowed-bots`); any other bot's comment is ignored quietly. */
  allowedBots?: string[]
  /** `update-prs`: dispatch and schedule bring the open fleet PRs up to date instead. */
  updatePrs?: boolean
}

/** A payload that lacks a field the action reads, or holds it in another shape. */
export class EventError extends Error {
  override name = 'EventError'
}

type Obj = Record<string, unknown>

// What the action reads of each payload, and nothing more: unknown keys pass, a missing or
// malformed field read here ends the run with a sentence naming the event and the field.
const userSchema = z.object({ login: z.string().min(1), type: z.string().optional() })
const repoSchema = z.object({ full_name: z.string().min(1) })
const threadState = { state: z.string().min(1), locked: z.boolean() }
const issueSchema = z.object({
  number: z.number().int().positive(),
  title: z.string(),
  body: z.string().nullish(),
  ...threadState,
  pull_request: z.unknown().optional()
})
const commentSchema = z.object({ id: z.number().int(), body: z.string(), user: userSchema })
const prSchema = z.object({
  number: z.number().int().positive(),
  title: z.string(),
  ...threadState,
  head: z.object({ ref: z.string().min(1), repo: repoSchema.nullable() })
})
const reviewSchema = z.object({
  id: z.number().int(),
  body: z.string().nullable(),
  state: z.string(),
  user: userSchema
})
const reviewCommentSchema = z.object({
  id: z.number().int(),
  body: z.string(),
  user: userSchema,
  path: z.string(),
  diff_hunk: z.string(),
  line: z.number().int().nullish(),
  original_line: z.number().int().nullish(),
  in_reply_to_id: z.number().int().optional()
})
const runSchema = z.object({
  id: z.number().int(),
  name: z.string().nullish(),
  conclusion: z.string().nullable(),
  head_branch: z.string().nullable(),
  head_sha: z.string().min(1),
  html_url: z.string(),
  head_repository: repoSchema.nullable()
})

/** The payload's fields per `schema`, or an EventError naming the event and the field. */
export function payloadOf<T>(schema: z.ZodType<T>, payload: unknown, event: string): T {
  const parsed = schema.safeParse(payload)
  if (parsed.success) return parsed.data
  const issue = parsed.error.issues[0]
  const field = issue?.path.join('.') || 'payload'
  throw new EventError(
    `The ${event} event's payload has no valid '${field}' (${issue?.message ?? 'invalid'}): the action reads it to decide what to do, so it stops here`
  )
}

const actionOf = (payload: Obj, event: string): string =>
  payloadOf(z.object({ action: z.string() }), payload, event).action

function issueOf(issue: z.infer<typeof issueSchema>): IssueRef {
  return {
    number: issue.number,
    title: issue.title,
    body: issue.body ?? '',
    isPullRequest: issue.pull_request !== undefined && issue.pull_request !== null
  }
}

function actorOf(user: z.infer<typeof userSchema>): Actor {
  return { login: user.login, isBot: user.type === 'Bot' || user.login.endsWith('[bot]') }
}

/** Why a closed or locked issue or pull request starts nothing; undefined when it is open. */
function notOpen(thread: { state: string; locked: boolean }, what: string): string | undefined {
  if (thread.state !== 'open') return `${what} is ${thread.state}: a closed one starts nothing`
  if (thread.locked) return `${what} is locked: a locked one starts nothing (and gets no comment)`
  return undefined
}

/**
 * A bot not named in allowed-bots is not answered, whether it commented or applied a label: two
 * bots must never talk to each other.
 */
export function unlistedBot(
  actor: Actor,
  s: Pick<EventSettings, 'allowedBots'>
): string | undefined {
  if (!actor.isBot) return undefined
  const name = actor.login.replace(/\[bot\]$/, '')
  const listed = s.allowedBots ?? []
  if (listed.includes(actor.login) || listed.includes(name)) return undefined
  return `@${actor.login} is a bot not listed in allowed-bots: ignored without a reply`
}

/** The text after the trigger phrase, or undefined when the comment does not start with it. */
export function afterPhrase(body: string, phrase: string): string | undefined {
  const text = body.trimStart()
  if (!text.startsWith(phrase)) return undefined
  const rest = text.slice(phrase.length)
  if (rest !== '' && !/^\s/.test(rest)) return undefined // "/fleetwood" is not "/fleet"
  return rest.trim()
}

const prPayload = z.object({ pull_request: prSchema, repository: repoSchema })

/** Why a PR event is not about an open fleet PR of this repository, or undefined when it is. */
function notFleetPr(payload: z.infer<typeof prPayload>, s: EventSettings): string | undefined {
  const pr = payload.pull_request
  const prefix = s.branchPrefix ?? 'fleet/'
  if (!pr.head.ref.startsWith(prefix))
    return `pull request #${pr.number} is not on a ${prefix}* branch the action opened`
  if (pr.head.repo?.full_name !== payload.repository.full_name)
    return `pull request #${pr.number} comes from a fork`
  return notOpen(pr, `pull request #${pr.number}`)
}

function prRefOf(pr: z.infer<typeof prSchema>): PrRef {
  return { number: pr.number, title: pr.title, headRef: pr.head.ref }
}

/** Why an actor's words on a fleet PR start nothing: not ours, closed, locked, an unlisted bot. */
function notForUs(
  payload: Obj,
  event: string,
  actor: Actor,
  s: EventSettings
): { reason: string } | { pr: PrRef } {
  const parsed = payloadOf(prPayload, payload, event)
  const reason = notFleetPr(parsed, s) ?? unlistedBot(actor, s)
  return reason ? { reason } : { pr: prRefOf(parsed.pull_request) }
}

/**
 * A submitted review on a fleet PR: its body after the trigger phrase, or, with address-reviews,
 * the whole body of a review that requests changes (its inline comments are read by the trigger).
 */
function reviewRequest(payload: Obj, s: EventSettings): Request {
  const event = 'pull_request_review'
  const action = actionOf(payload, event)
  if (action !== 'submitted')
    return { kind: 'ignore', reason: `${event} ${action}: only submitted` }
  const review = payloadOf(z.object({ review: reviewSchema }), payload, event).review
  const body = review.body ?? ''
  const asked = afterPhrase(body, s.triggerPhrase)
  const changes = review.state.toLowerCase() === 'changes_requested'
  const text = asked ?? (s.addressReviews && changes ? body.trim() : undefined)
  if (text === undefined)
    return {
      kind: 'ignore',
      reason: `the review does not start with ${s.triggerPhrase}${changes ? ' (set follow-ups: {address-reviews: true} to answer every review that requests changes)' : ''}`
    }
  const actor = actorOf(review.user)
  const ours = notForUs(payload, event, actor, s)
  if ('reason' in ours) return { kind: 'ignore', reason: ours.reason }
  return { kind: 'review', pr: ours.pr, reviewId: review.id, actor, text }
}

/** A new inline comment on a fleet PR that starts with the trigger phrase. */
function reviewCommentRequest(payload: Obj, s: EventSettings): Request {
  const event = 'pull_request_review_comment'
  const action = actionOf(payload, event)
  if (action !== 'created')
    return { kind: 'ignore', reason: `${event} ${action}: only new comments delegate` }
  const c = payloadOf(z.object({ comment: reviewCommentSchema }), payload, event).comment
  const text = afterPhrase(c.body, s.triggerPhrase)
  if (text === undefined)
    return { kind: 'ignore', reason: `the comment does not start with ${s.triggerPhrase}` }
  const actor = actorOf(c.user)
  const ours = notForUs(payload, event, actor, s)
  if ('reason' in ours) return { kind: 'ignore', reason: ours.reason }
  const comment: InlineComment = {
    id: c.id,
    threadId: c.in_reply_to_id ?? c.id,
    path: c.path,
    line: c.line ?? c.original_line ?? null,
    diffHunk: c.diff_hunk,
    body: c.body,
    author: c.user.login
  }
  return { kind: 'review-comment', pr: ours.pr, comment, actor, text }
}

const RED = ['failure', 'timed_out']
const runPayload = z.object({
  workflow_run: runSchema,
  repository: repoSchema,
  workflow: z.object({ name: z.string().nullish() }).optional()
})

/** A workflow run that ended red on a fleet branch of this repository (never a fork's). */
function failedRunRequest(payload: Obj, s: EventSettings): Request {
  const event = 'workflow_run'
  const action = actionOf(payload, event)
  const parsed = payloadOf(runPayload, payload, event)
  const run = parsed.workflow_run
  const conclusion = run.conclusion ?? ''
  if (action !== 'completed' || !RED.includes(conclusion))
    return { kind: 'ignore', reason: `${event} ${action} ${conclusion}: not red` }
  if (!s.fixFailingChecks)
    return {
      kind: 'ignore',
      reason: 'failed checks are fixed only with follow-ups: {fix-failing-checks: true}'
    }
  const branch = run.head_branch ?? ''
  const prefix = s.branchPrefix ?? 'fleet/'
  if (!branch.startsWith(prefix))
    return { kind: 'ignore', reason: `the run's branch ${branch} is not a ${prefix}* branch` }
  if (run.head_repository?.full_name !== parsed.repository.full_name)
    return { kind: 'ignore', reason: 'the run comes from a fork' }
  const name = run.name || parsed.workflow?.name || ''
  return {
    kind: 'failed-run',
    run: {
      id: run.id,
      name,
      headBranch: branch,
      headSha: run.head_sha,
      conclusion,
      url: run.html_url
    }
  }
}

const commentPayload = z.object({ issue: issueSchema, comment: commentSchema })

/** A new comment on an issue or PR that starts with the trigger phrase. */
function commentRequest(payload: Obj, s: EventSettings): Request {
  const event = 'issue_comment'
  const action = actionOf(payload, event)
  if (action !== 'created')
    return { kind: 'ignore', reason: `${event} ${action}: only new comments delegate` }
  const parsed = payloadOf(commentPayload, payload, event)
  const text = afterPhrase(parsed.comment.body, s.triggerPhrase)
  if (text === undefined)
    return { kind: 'ignore', reason: `the comment does not start with ${s.triggerPhrase}` }
  const issue = issueOf(parsed.issue)
  const actor = actorOf(parsed.comment.user)
  const what = `${issue.isPullRequest ? 'pull request' : 'issue'} #${issue.number}`
  const reason = notOpen(parsed.issue, what) ?? unlistedBot(actor, s)
  if (reason) return { kind: 'ignore', reason }
  const base = { issue, commentId: parsed.comment.id, actor, text }
  // "/fleet merge": the landing train, on that PR or on the issue's fleet PRs.
  if (/^merge\s*$/i.test(text))
    return { kind: 'train', why: `${s.triggerPhrase} merge on ${what}`, ...base }
  if (issue.isPullRequest) return { kind: 'follow-up', ...base }
  // "/fleet plan [text]" asks the planner; on a pull request it stays a follow-up's words.
  const plan = /^plan(?:\s+([\s\S]*))?$/.exec(text)
  if (plan) return { kind: 'plan', ...base, text: plan[1]?.trim() ?? '' }
  return { kind: 'comment', ...base }
}

const labeledPayload = z.object({
  label: z.object({ name: z.string() }),
  issue: issueSchema,
  sender: userSchema
})

/** The queue label put on an open issue; GitHub's label names ignore case, so does this. */
function labeledRequest(payload: Obj, s: EventSettings): Request {
  const event = 'issues'
  const action = actionOf(payload, event)
  const only = `only the '${s.queueLabel}' label delegates`
  if (action !== 'labeled') return { kind: 'ignore', reason: `${event} ${action}: ${only}` }
  const parsed = payloadOf(labeledPayload, payload, event)
  const label = parsed.label.name
  if (label.toLowerCase() !== s.queueLabel.toLowerCase())
    return { kind: 'ignore', reason: `${event} ${action} ${label}: ${only}` }
  const actor = actorOf(parsed.sender)
  const reason = notOpen(parsed.issue, `issue #${parsed.issue.number}`) ?? unlistedBot(actor, s)
  if (reason) return { kind: 'ignore', reason }
  return { kind: 'labeled', issue: issueOf(parsed.issue), actor }
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
    case 'issue_comment':
      return commentRequest(payload, s)
    case 'issues':
      return labeledRequest(payload, s)
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
