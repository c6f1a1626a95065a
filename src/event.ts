/** The issue (or PR) an event is about, as the payload describes it. */
export interface IssueRef {
  number: number
  title: string
  body: string
  isPullRequest: boolean
}

export interface Actor {
  login: string
  isBot: boolean
}

/** What an event asks the fleet to do. Pure: decided from the event alone. */
export type Request =
  | { kind: 'tasks' }
  | { kind: 'comment'; issue: IssueRef; commentId: number; actor: Actor; text: string }
  | { kind: 'follow-up'; issue: IssueRef; commentId: number; actor: Actor; text: string }
  | { kind: 'labeled'; issue: IssueRef; actor: Actor }
  | { kind: 'plan'; issue: IssueRef; commentId: number; actor: Actor; text: string }
  | { kind: 'goal'; goal: string }
  | { kind: 'queue' }
  | { kind: 'ignore'; reason: string }

export interface EventSettings {
  hasTasks: boolean
  triggerPhrase: string
  queueLabel: string
  /** The `goal` input: the planner makes the tasks. */
  goal?: string
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
    case 'schedule':
    case 'workflow_dispatch':
      return { kind: 'queue' }
    default:
      return {
        kind: 'ignore',
        reason: `the ${eventName} event delegates nothing without 'tasks' or 'tasks-file'`
      }
  }
}
