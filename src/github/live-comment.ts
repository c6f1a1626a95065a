import type { Outcome } from '../domain.js'
import { cell } from '../report/markdown.js'
import { markedBy, tokenIdentity } from './identity.js'
import type { Task } from '../domain.js'
import type { Client } from './client.js'
import { describeError } from '../errors.js'

export const MARKER = '<!-- fleet-worker:status -->'

export type TaskState =
  { state: 'queued' } | { state: 'running' } | { state: 'done'; outcome: Outcome }

function stateCell(s: TaskState): string {
  if (s.state !== 'done') return s.state
  const o = s.outcome
  const pr = o.prUrl ? ` [#${o.prNumber}](${o.prUrl})` : ''
  return `${o.status}${pr}${o.error ? `: ${cell(o.error)}` : ''}`
}

export function liveBody(tasks: Task[], states: Map<string, TaskState>, runUrl?: string): string {
  const lines = [
    MARKER,
    '### Fleet Worker',
    '',
    '| task | state |',
    '|---|---|',
    ...tasks.map(
      t =>
        `| ${cell(t.title)} (\`${t.id}\`) | ${stateCell(states.get(t.id) ?? { state: 'queued' })} |`
    )
  ]
  if (runUrl) lines.push('', `[Latest run](${runUrl})`)
  return lines.join('\n')
}

/**
 * One comment per issue, found again by its hidden marker so reruns never add a second one, and
 * rewritten as the issue's tasks move. Only a comment the token itself wrote counts: anyone can
 * post the marker, and the action must never edit their comment. Updates are serialised and
 * never fail the run.
 */
export class LiveComment {
  private id: number | undefined
  private chain: Promise<void> = Promise.resolve()
  private readonly states = new Map<string, TaskState>()

  constructor(
    /** The client, made on first use (GitHub.connect). */
    private readonly client: () => Promise<Client>,
    readonly issue: number,
    private readonly tasks: Task[],
    private readonly runUrl: string | undefined,
    private readonly log: (m: string) => void
  ) {}

  /** Free text in place of the task table: the planner's "planning", then its plan. */
  private text: string | undefined

  set(taskId: string, state: TaskState): Promise<void> {
    this.states.set(taskId, state)
    return this.update()
  }

  say(text: string): Promise<void> {
    this.text = text
    return this.update()
  }

  private update(): Promise<void> {
    this.chain = this.chain
      .then(() => this.write())
      .catch((error: unknown) => {
        this.log(`could not update the fleet comment on #${this.issue}: ${describeError(error)}`)
      })
    return this.chain
  }

  flush(): Promise<void> {
    return this.chain
  }

  private async write(): Promise<void> {
    const body =
      this.text === undefined
        ? liveBody(this.tasks, this.states, this.runUrl)
        : [
            MARKER,
            '### Fleet Worker',
            '',
            this.text,
            ...(this.runUrl ? ['', `[Latest run](${this.runUrl})`] : [])
          ].join('\n')
    const gh = await this.client()
    this.id ??= (await findLiveComment(gh, this.issue))?.id
    if (this.id) {
      await gh.octokit.rest.issues.updateComment({
        ...gh.repo,
        comment_id: this.id,
        body
      })
    } else {
      const { data } = await gh.octokit.rest.issues.createComment({
        ...gh.repo,
        issue_number: this.issue,
        body
      })
      this.id = data.id
    }
  }
}

/** The issue's live comment: the token's own, its marker on its first line (never anyone else's). */
export async function findLiveComment(
  { octokit, repo }: Client,
  issue: number
): Promise<{ id: number; body: string } | undefined> {
  const comments = await octokit.paginate(octokit.rest.issues.listComments, {
    ...repo,
    issue_number: issue,
    per_page: 100
  })
  const identity = await tokenIdentity(octokit)
  const found = comments.find(c => markedBy(identity, c, MARKER, 'first'))
  return found ? { id: found.id, body: found.body ?? '' } : undefined
}
