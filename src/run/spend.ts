/**
 * The spend held over every run (src/spend/) as a run uses it: the ledger read before the tasks
 * start, the tasks a cap would cross deferred, what ran appended once this job lands the work,
 * and the summary's lines of today's and the month's spend against each cap.
 */
import path from 'node:path'
import { z } from 'zod'
import { type Outcome, type Task, addUsage, ZERO_USAGE } from '../domain.js'
import { emptyOutcome } from '../domain.js'
import { LedgerBranch } from '../spend/branch.js'
import { admit, estimate, hasCaps, spendLines, spentAt } from '../spend/caps.js'
import { type Entry, ledgerName, PERSONAL, type Trigger } from '../spend/entry.js'
import { describeError, InputError } from '../errors.js'
import type { Run } from './run.js'

/** How this run's work was started, and by whom (a person's login), per task. */
export interface Starter {
  trigger: Trigger
  user?: string
}

const login = z.object({ login: z.string() })
const byComment = z.object({ comment: z.object({ user: login }) })
const byReview = z.object({ review: z.object({ user: login }) })
const bySender = z.object({ sender: login })

/** What the starters are read for: a task, or an outcome of keep-fresh or the train. */
type Started = Pick<Task, 'id' | 'source'>

/** The event's trigger and its person; on a schedule, each queued issue's labeller. */
async function startersOf(
  run: Pick<Run, 'ctx' | 'github' | 'config'>,
  tasks: readonly Started[]
): Promise<Map<string, Starter>> {
  const { eventName, payload } = run.ctx
  const one = (s: Starter) => new Map(tasks.map(t => [t.id, s]))
  switch (eventName) {
    case 'issue_comment':
      return one({
        trigger: 'comment',
        user: byComment.safeParse(payload).data?.comment.user.login
      })
    case 'pull_request_review_comment':
      return one({ trigger: 'review', user: byComment.safeParse(payload).data?.comment.user.login })
    case 'pull_request_review':
      return one({ trigger: 'review', user: byReview.safeParse(payload).data?.review.user.login })
    case 'issues':
      return one({ trigger: 'label', user: bySender.safeParse(payload).data?.sender.login })
    case 'schedule':
      return scheduled(run, tasks)
    case 'workflow_dispatch':
      return one({ trigger: 'dispatch' })
    case 'push':
      return one({ trigger: 'push' })
    default:
      return one({ trigger: 'other' })
  }
}

/** The scheduled queue: each issue's work was started by whoever applied the queue label. */
async function scheduled(
  run: Pick<Run, 'github' | 'config'>,
  tasks: readonly Started[]
): Promise<Map<string, Starter>> {
  const { github, config } = run
  const starters = new Map<string, Starter>()
  const byIssue = new Map<number, string | undefined>()
  for (const t of tasks) {
    const issue = t.source.kind === 'issue' ? t.source.issue : undefined
    if (issue !== undefined && github && !byIssue.has(issue))
      byIssue.set(issue, (await github.labelledBy(issue, config.queueLabel))?.login)
    starters.set(t.id, {
      trigger: 'schedule',
      user: issue === undefined ? undefined : byIssue.get(issue)
    })
  }
  return starters
}

/** What opening the ledger needs of a run: a fleet run, a train or a report. */
type LedgerRun = Pick<Run, 'config' | 'ctx' | 'io' | 'env'> & {
  prepare: Pick<Run['prepare'], 'remoteUrl'>
}

/** The ledger branch, in a bare repository of its own under the runner's temp (`name` keeps runs apart). */
export async function openLedger(
  run: LedgerRun,
  branch: string,
  name: string
): Promise<LedgerBranch> {
  return LedgerBranch.open({
    remoteUrl: await run.prepare.remoteUrl(),
    token: run.config.githubToken,
    branch,
    dir: path.join(run.ctx.runnerTemp, 'fleet-ledger', name),
    env: run.env,
    author: run.config.commitAuthor,
    log: run.io.info
  })
}

/** The ledger of this run, read once before its tasks start. */
export interface RunSpend {
  branch: string
  entries: Entry[]
  starters: Map<string, Starter>
  ledger: LedgerBranch
}

/** The ledger, when the run keeps one (a cap, or spend-ledger); a LedgerError ends the run. */
export async function openSpend(run: Run, tasks: readonly Task[]): Promise<RunSpend | undefined> {
  const branch = run.config.spend.ledger
  if (!branch) return undefined
  const ledger = await openLedger(
    run,
    branch,
    `${run.ctx.runId ?? process.pid}-${run.config.shard}`
  )
  if ((await ledger.defaultBranch().catch(() => undefined)) === branch)
    throw new InputError(
      'spend-ledger',
      `'${branch}' is the repository's default branch: the ledger needs a branch of its own that nobody merges, such as fleet-ledger`
    )
  const read = await ledger.read().catch((error: unknown) => {
    if (error instanceof Error && error.name === 'LedgerError') throw error
    throw new Error(
      `could not read ${ledgerName(branch)}, so spend caps cannot be checked: ${describeError(error)}`,
      { cause: error }
    )
  })
  run.io.info(`${ledgerName(branch)}: ${read.entries.length} entries`)
  return { branch, entries: read.entries, starters: await startersOf(run, tasks), ledger }
}

/** The tasks that may start, and the others ended `deferred`, each with the cap it would cross. */
export function deferOverCaps(
  run: Run,
  spend: RunSpend,
  tasks: Task[]
): { start: Task[]; deferred: Outcome[] } {
  const { caps, ledger } = run.config.spend
  if (!hasCaps(caps) || !ledger) return { start: tasks, deferred: [] }
  const cost = estimate(run.config.budgets.taskCostUsd, spend.entries)
  const personal = (id: string) => {
    const s = spend.starters.get(id)
    return s && PERSONAL.includes(s.trigger) ? s.user : undefined
  }
  const decisions = admit(
    tasks.map(t => ({ id: t.id, user: personal(t.id) })),
    caps,
    spentAt(spend.entries, Date.now()),
    cost
  )
  const start: Task[] = []
  const deferred: Outcome[] = []
  for (const task of tasks) {
    const d = decisions.get(task.id)
    if (d?.kind !== 'defer') start.push(task)
    else
      deferred.push({
        ...emptyOutcome(task, { status: 'deferred', error: d.reason }),
        branch: task.branch
      })
  }
  for (const o of deferred) run.io.info(`[${o.id}] deferred: ${o.error ?? ''}`)
  return { start, deferred }
}

const tokensOf = (o: Outcome) => {
  const u = addUsage(ZERO_USAGE, o.usage)
  return (
    u.input_tokens + u.output_tokens + u.cache_read_input_tokens + u.cache_creation_input_tokens
  )
}

/**
 * The PR the task opened or updated; for a follow-up turn that left no PR outcome (no changes,
 * a failure), the PR it was a turn on: its spend belongs to that PR all the same.
 */
const prOf = (o: Outcome): { pr?: number } => {
  const pr = o.prNumber ?? (o.source.kind === 'follow-up' ? o.source.pr : undefined)
  return pr ? { pr } : {}
}

/** The ledger's entries for the outcomes of tasks that ran (spent tokens or money). */
export function entriesFor(
  run: Pick<Run, 'ctx' | 'config'>,
  spend: Pick<RunSpend, 'starters'>,
  outcomes: readonly Outcome[]
): Entry[] {
  const at = new Date().toISOString()
  const job = `${run.ctx.runId ?? 'local'}-${run.config.shard}`
  return outcomes
    .filter(o => tokensOf(o) > 0 || (o.costUsd ?? 0) > 0)
    .map(o => {
      const s = spend.starters.get(o.id) ?? { trigger: 'other' as const }
      return {
        v: 1 as const,
        at,
        run: job,
        task: o.id,
        status: o.status,
        cost: Math.round((o.costUsd ?? 0) * 1e6) / 1e6,
        tokens: tokensOf(o),
        ...(o.model ? { model: o.model } : {}),
        trigger: s.trigger,
        ...(s.user && PERSONAL.includes(s.trigger) ? { user: s.user } : {}),
        ...prOf(o)
      }
    })
}

/**
 * After the tasks: what ran appended to the ledger when this job lands the work (land: false
 * leaves it to mode: land), and the summary's spend lines. An append that fails fails the step:
 * spend left out of the ledger would lift the caps for the next runs.
 */
export async function settleSpend(
  run: Run,
  spend: RunSpend,
  outcomes: readonly Outcome[],
  lands: boolean
): Promise<{ note: string; error?: Error }> {
  const entries = entriesFor(run, spend, outcomes)
  let all = spend.entries
  let error: Error | undefined
  if (lands && entries.length > 0) {
    try {
      all = (
        await spend.ledger.append(
          entries,
          `fleet-worker: ${entries.length} tasks of run ${run.ctx.runId ?? 'local'}`
        )
      ).entries
      run.io.info(`${ledgerName(spend.branch)}: appended ${entries.length} entries`)
    } catch (e) {
      error = new Error(`could not append to ${ledgerName(spend.branch)}: ${describeError(e)}`, {
        cause: e
      })
      run.io.warning(error.message)
    }
  } else all = [...all, ...entries]
  const users = [...spend.starters.values()].flatMap(s =>
    s.user && PERSONAL.includes(s.trigger) ? [s.user] : []
  )
  const lines = spendLines(run.config.spend.caps, spentAt(all, Date.now()), Date.now(), users)
  const where = lands
    ? ledgerName(spend.branch)
    : `${ledgerName(spend.branch)}, with this job's tasks, which mode: land records`
  return { note: `Spend (${where}):\n${lines.map(l => `- ${l}`).join('\n')}`, error }
}

/**
 * Keep-fresh's and the train's worker turns (a conflict's merge turn) appended to the ledger when
 * the run keeps one: they spend as a task does, belong to their PR's cost, and count against the
 * caps of the runs after. An append that fails is returned, to fail the step once the run has
 * reported (as a fleet run's does).
 */
export async function recordTurns(
  run: LedgerRun & Pick<Run, 'github'>,
  outcomes: readonly Outcome[]
): Promise<Error | undefined> {
  const branch = run.config.spend.ledger
  const spent = outcomes.filter(o => tokensOf(o) > 0 || (o.costUsd ?? 0) > 0)
  if (!branch || spent.length === 0) return undefined
  try {
    const entries = entriesFor(run, { starters: await startersOf(run, spent) }, spent)
    const name = `turns-${run.ctx.runId ?? process.pid}-${run.config.shard}`
    const ledger = await openLedger(run, branch, name)
    await ledger.append(
      entries,
      `fleet-worker: ${entries.length} merge turns of run ${run.ctx.runId ?? 'local'}`
    )
    run.io.info(`${ledgerName(branch)}: appended ${entries.length} entries (merge turns)`)
    return undefined
  } catch (e) {
    const error = new Error(`could not append to ${ledgerName(branch)}: ${describeError(e)}`, {
      cause: e
    })
    run.io.warning(error.message)
    return error
  }
}
