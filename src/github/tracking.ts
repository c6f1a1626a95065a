import type { Outcome } from '../domain.js'
import type { Task } from '../domain.js'
import type { Client } from './client.js'
import { LiveComment } from './live-comment.js'
import { answerOnPr } from './pr-answer.js'
import { moveIssue, type QueueLabels } from './queue.js'
import { describeError } from '../errors.js'

const LANDED = ['pr-opened', 'pr-updated', 'no-changes']

function issueOf(task: Task): number | undefined {
  return task.source.kind === 'issue'
    ? task.source.issue
    : task.source.kind === 'follow-up'
      ? task.source.pr
      : undefined
}

/**
 * What the issues see of a run: one live comment per issue (or PR, for a follow-up), and, for
 * queued issues, labels that move queued -> in progress -> done | failed. A task that never
 * finished, or whose worker a cancel stopped, puts its issue back in the queue.
 */
export class IssueTracking {
  private readonly comments = new Map<number, LiveComment>()
  private readonly tasksOf = new Map<number, Task[]>()
  private readonly done = new Map<string, Outcome>()
  private readonly active = new Set<string>()
  /** Tasks whose worker was running when the run was cancelled: stopped, not failed on merit. */
  private readonly interrupted = new Set<string>()
  // A cancel (the run's stop) stops the running workers: their outcomes read 'failed', but the
  // issue deserves the next run, not the failed label.
  private readonly onCancel = () => {
    for (const id of this.active) this.interrupted.add(id)
  }

  constructor(
    /** The client, made on first use (GitHub.connect). */
    private readonly client: () => Promise<Client>,
    tasks: Task[],
    private readonly queue: QueueLabels | undefined,
    runUrl: string | undefined,
    private readonly log: (m: string) => void,
    /** The run's stop: the tasks running when it aborts were interrupted, not failed. */
    private readonly signal?: AbortSignal
  ) {
    if (queue) signal?.addEventListener('abort', this.onCancel, { once: true })
    for (const task of tasks) {
      const issue = issueOf(task)
      if (issue === undefined) continue
      this.tasksOf.set(issue, [...(this.tasksOf.get(issue) ?? []), task])
    }
    for (const [issue, issueTasks] of this.tasksOf) {
      this.comments.set(issue, new LiveComment(client, issue, issueTasks, runUrl, log))
    }
  }

  async start(): Promise<void> {
    for (const [issue, tasks] of this.tasksOf) {
      if (this.queue)
        await moveIssue(
          await this.client(),
          issue,
          [this.queue.inProgress],
          [this.queue.done, this.queue.failed]
        )
      const comment = this.comments.get(issue)
      for (const task of tasks) void comment?.set(task.id, { state: 'queued' })
    }
  }

  running(task: Task): void {
    this.active.add(task.id)
    const issue = issueOf(task)
    if (issue !== undefined) void this.comments.get(issue)?.set(task.id, { state: 'running' })
  }

  finished(task: Task | undefined, outcome: Outcome): void {
    this.done.set(outcome.id, outcome)
    this.active.delete(outcome.id)
    const issue = task && issueOf(task)
    if (issue !== undefined)
      void this.comments.get(issue)?.set(outcome.id, { state: 'done', outcome })
  }

  /** A turn asked on a PR (a review, a comment, failed checks) is answered there once it ends. */
  private async answer(tasks: Task[]): Promise<void> {
    for (const task of tasks) {
      const outcome = this.done.get(task.id)
      if (outcome) await answerOnPr(await this.client(), task, outcome, this.log)
    }
  }

  /** Settles every comment and label once the fleet is done (or cancelled). */
  async finish(): Promise<void> {
    this.signal?.removeEventListener('abort', this.onCancel)
    const stopped = (o: Outcome) =>
      o.status === 'cancelled' || (this.interrupted.has(o.id) && !LANDED.includes(o.status))
    for (const [issue, tasks] of this.tasksOf) {
      const comment = this.comments.get(issue)
      await comment?.flush()
      await this.answer(tasks)
      if (!this.queue) continue
      const outcomes = tasks.map(t => this.done.get(t.id))
      try {
        const later = (o: Outcome) => o.status === 'not-started' || o.status === 'deferred'
        if (outcomes.some(o => !o || later(o) || stopped(o))) {
          await moveIssue(await this.client(), issue, [], [this.queue.inProgress])
        } else {
          const ok = outcomes.every(o => o && LANDED.includes(o.status))
          await moveIssue(
            await this.client(),
            issue,
            [ok ? this.queue.done : this.queue.failed],
            [this.queue.queued, this.queue.inProgress]
          )
        }
      } catch (error) {
        this.log(`could not move the labels of #${issue}: ${describeError(error)}`)
      }
    }
  }
}
