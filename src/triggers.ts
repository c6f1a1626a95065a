import type { Config } from './config.js'
import type { RunContext } from './context.js'
import type { Actor, Outcome } from './domain.js'
import { type IssueRef, type Request, unlistedBot } from './event.js'
import { emptyOutcome } from './domain.js'
import type { GitHub, PullJson } from './github/github.js'
import { queueLabels, type QueueLabels } from './github/queue.js'
import type { IssueInfo } from './tasks/from-issue.js'
import { tasksFromInputs } from './tasks/from-inputs.js'
import { idProblem } from './tasks/ids.js'
import { issueOfPrBody, prMarker, type PrMarker } from './report/pr-body.js'
import type { PrAnswer, Task } from './domain.js'
import { inertProse } from './inert-text.js'

/** What the fleet will do for a request: tasks to run, tasks refused, and the queue's labels. */
export interface Plan {
  tasks: Task[]
  refused: Outcome[]
  /** Set when the issues' queue labels move with their tasks (label and schedule triggers). */
  queue?: QueueLabels
  /** Set when the event turned out not to be the action's (a PR it did not open): nothing runs. */
  ignore?: string
  /** Set when the planner makes the tasks (src/planner/): an authorised `/fleet plan`, or `goal`. */
  planner?: { kind: 'issue'; issue: number; text: string } | { kind: 'goal'; goal: string }
}

// What reads an issue's or a PR thread's text (Markdown and HTML as GitHub renders them: about a
// third of what the engine compiled at its start) loads when a trigger first needs it; a list of
// tasks given as input never does (docs/performance.md).
const issueText = () => import('./tasks/from-issue.js')
const prTurnText = () => import('./tasks/pr-turn.js')

/** An issue's tasks: its checklist (or plan section), else the issue as one task. */
async function issueTasks(deps: Deps, issue: IssueInfo): Promise<Task[]> {
  const { tasksFromIssue } = await issueText()
  return tasksFromIssue(issue, deps.config.branchPrefix, deps.log)
}

interface Deps {
  config: Config
  ctx: RunContext
  github?: GitHub
  log: (m: string) => void
}

function needGithub(deps: Deps, trigger: string): GitHub {
  if (!deps.github)
    throw new Error(`the ${trigger} trigger needs 'github-token' to read the issue and answer`)
  return deps.github
}

async function refuse(
  deps: Deps,
  issue: IssueRef,
  actor: Actor,
  reason: string,
  id: string
): Promise<Plan> {
  const github = needGithub(deps, 'comment')
  deps.log(`refused: ${reason}`)
  await github.commentOn(
    issue.number,
    `@${actor.login} Fleet Worker did not start: ${inertProse(reason)}.`
  )
  const task: Task = {
    id,
    title: issue.title,
    prompt: '',
    branch: '',
    source: { kind: 'issue', issue: issue.number }
  }
  return { tasks: [], refused: [emptyOutcome(task, { status: 'refused', error: reason })] }
}

/** Only write access delegates; an accepted comment gets an 👀 reaction. */
async function authorise(
  deps: Deps,
  issue: IssueRef,
  actor: Actor,
  commentId?: number
): Promise<string | undefined> {
  const github = needGithub(deps, 'comment')
  const access = await github.checkAccess(actor, deps.config.allowedBots)
  if (!access.allowed) return access.reason
  if (commentId) {
    // The reaction only acknowledges: a deleted comment must not stop the work it asked for.
    await github.ackComment({ id: commentId }, deps.log)
  }
  return undefined
}

/** An open fleet PR of this repository: its task id and the action's marker, when it carries one. */
type FleetPr = { pr: PullJson; id: string; marker?: PrMarker } | { problem: string }

async function fleetPr(deps: Deps, number: number): Promise<FleetPr> {
  const github = needGithub(deps, 'follow-up')
  const prefix = deps.config.branchPrefix
  const pr = await github.getPull(number)
  const id = pr.head.ref.startsWith(prefix) ? pr.head.ref.slice(prefix.length) : ''
  // A fork's PR may have a branch called fleet/x too: it is not ours to continue.
  const fromFork =
    pr.head.repo?.full_name !== undefined &&
    pr.head.repo.full_name !== `${github.repo.owner}/${github.repo.repo}`
  if (!id || idProblem(id) || pr.state !== 'open' || fromFork) {
    const problem =
      pr.state !== 'open'
        ? 'the pull request is closed'
        : fromFork
          ? 'the pull request comes from a fork'
          : `the pull request's branch is not a ${prefix}* fleet branch`
    return { problem }
  }
  const marker = prMarker(pr.body ?? '')
  return { pr, id, ...(marker?.task === id ? { marker } : {}) }
}

/** The follow-up task on a fleet PR's branch: the worker continues from the branch's head. */
function continueTask(
  found: Exclude<FleetPr, { problem: string }>,
  work: { prompt: string; title: string; fixUps?: number; answer?: PrAnswer }
): Task {
  const { pr, id, marker } = found
  // The issue comes from the action's own marker: a "Refs #N" in the body may be worker text.
  const issue = issueOfPrBody(pr.body ?? '')
  const fixUps = work.fixUps ?? marker?.fixUps ?? 0
  return {
    id,
    title: work.title,
    prompt: work.prompt,
    branch: pr.head.ref,
    source: {
      kind: 'follow-up',
      pr: pr.number,
      ...(issue ? { issue } : {}),
      // Carried forward, so any later turn's PR body keeps the count.
      ...(fixUps ? { fixUps } : {}),
      ...(work.answer ? { answer: work.answer } : {})
    }
  }
}

/** A `/fleet` comment's tasks: its text as one task, or the issue's when it adds none. */
async function commentTasks(deps: Deps, issue: IssueInfo, text: string): Promise<Task[]> {
  if (!text) return issueTasks(deps, issue)
  const { taskFromComment } = await issueText()
  return [taskFromComment(issue, text, deps.config.branchPrefix, 'issue', deps.log)]
}

/** A follow-up on a fleet PR continues that PR's branch. */
async function followUp(
  deps: Deps,
  request: Extract<Request, { kind: 'follow-up' }>
): Promise<Plan> {
  const found = await fleetPr(deps, request.issue.number)
  if ('problem' in found)
    return refuse(deps, request.issue, request.actor, found.problem, `pr-${request.issue.number}`)
  const denied = await authorise(deps, request.issue, request.actor, request.commentId)
  if (denied) return refuse(deps, request.issue, request.actor, denied, found.id)
  const { taskFromComment } = await issueText()
  const base = taskFromComment(
    request.issue,
    request.text,
    deps.config.branchPrefix,
    'pull request',
    deps.log
  )
  return { tasks: [continueTask(found, base)], refused: [] }
}

/** Nothing runs and nobody is answered: the event is not the action's to act on. */
function ignored(deps: Deps, reason: string): Plan {
  deps.log(`ignored: ${reason}`)
  return { tasks: [], refused: [], ignore: reason }
}

/** The PR's title for a turn on it (the verify-failed prefix is the landing's to add). */
const prTitle = (pr: PullJson): string => pr.title.replace(/^(\[verify failed\] )+/, '')

/** The PR the event is about, when the action opened it; else why the event is ignored. */
async function ownPr(deps: Deps, number: number): Promise<FleetPr> {
  const found = await fleetPr(deps, number)
  if ('problem' in found) return found
  if (!found.marker)
    return {
      problem: `pull request #${number} carries no marker of the action: it did not open it`
    }
  return found
}

/**
 * A review, or one inline comment, on a PR the action opened: refused (with a reply) before any
 * model request unless its author may delegate; then its threads become the follow-up's task.
 */
async function answerReview(
  deps: Deps,
  request: Extract<Request, { kind: 'review' | 'review-comment' }>
): Promise<Plan> {
  const github = needGithub(deps, request.kind)
  const found = await ownPr(deps, request.pr.number)
  if ('problem' in found) return ignored(deps, found.problem)
  const { pr } = found
  const ref: IssueRef = { number: pr.number, title: pr.title, body: '', isPullRequest: true }
  const denied = await authorise(deps, ref, request.actor)
  if (denied) return refuse(deps, ref, request.actor, denied, found.id)
  const key =
    request.kind === 'review' ? `review=${request.reviewId}` : `comment=${request.comment.id}`
  if (await github.alreadyAnswered(pr.number, key))
    return ignored(deps, `#${pr.number}: ${key} was answered already (a rerun of the event)`)
  const threads =
    request.kind === 'review'
      ? await github.reviewThreads(pr.number, request.reviewId)
      : [await github.commentThread(pr.number, request.comment.threadId)]
  if (request.kind === 'review-comment') await ackReviewComment(deps, request.comment.id)
  const { reviewPrompt } = await prTurnText()
  const prompt = reviewPrompt({
    pr: pr.number,
    title: pr.title,
    reviewer: request.actor.login,
    text: request.text,
    threads: threads.map(t => t.comments)
  })
  const answer: PrAnswer = {
    kind: request.kind,
    from: request.actor.login,
    threads: threads.map(t => t.id),
    key
  }
  return { tasks: [continueTask(found, { prompt, title: prTitle(pr), answer })], refused: [] }
}

/** 👀 on the inline comment; only an acknowledgement, so a failure is logged, not fatal. */
async function ackReviewComment(deps: Deps, commentId: number): Promise<void> {
  await needGithub(deps, 'review-comment').ackComment({ id: commentId, review: true }, deps.log)
}

/**
 * A red workflow run on the branch of an open PR the action opened, at the PR's current head:
 * the failed jobs' log tails become a fix-up turn, at most max-fix-ups per PR (counted in the
 * PR body's marker); past that, one comment says the loop stopped.
 */
async function fixChecks(
  deps: Deps,
  request: Extract<Request, { kind: 'failed-run' }>
): Promise<Plan> {
  const github = needGithub(deps, 'workflow_run')
  const { run } = request
  const number = await github.openPrOf(run.headBranch)
  if (number === undefined)
    return ignored(deps, `no open pull request has ${run.headBranch} as its branch`)
  const found = await ownPr(deps, number)
  if ('problem' in found) return ignored(deps, found.problem)
  if (found.pr.head.sha !== run.headSha)
    return ignored(
      deps,
      `#${number}'s branch has moved on since run ${run.id} (its commit is no longer the head)`
    )
  const done = found.marker?.fixUps ?? 0
  const max = deps.config.maxFixUps
  if (done >= max) {
    const said = await github.sayFixUpsStopped(number, {
      max,
      run: run.name,
      phrase: deps.config.triggerPhrase
    })
    return ignored(
      deps,
      `#${number} has had its ${max} fix-up turns (follow-ups: max-fix-ups)${said ? '; said so on it' : ''}`
    )
  }
  const key = `run=${run.id}`
  if (await github.alreadyAnswered(number, key))
    return ignored(deps, `#${number}: ${key} was answered already (a rerun of the event)`)
  const jobs = await github.failedJobs(run.id)
  if (jobs.length === 0) return ignored(deps, `run ${run.id} has no failed job to fix`)
  const { checksPrompt } = await prTurnText()
  const prompt = checksPrompt({ pr: number, run: run.name, jobs })
  const answer: PrAnswer = {
    kind: 'checks',
    from: run.name,
    threads: [],
    key,
    turn: { n: done + 1, max }
  }
  return {
    tasks: [continueTask(found, { prompt, title: prTitle(found.pr), fixUps: done + 1, answer })],
    refused: []
  }
}

/**
 * The scheduled batch: open issues carrying the queue label, each run only if the person who
 * applied the label may delegate; any other is refused as their comment would be (a reply, the
 * label taken off).
 */
async function queued(deps: Deps): Promise<Plan> {
  const github = needGithub(deps, 'schedule')
  const labels = queueLabels(deps.config.queueLabel)
  const issues = await github.listQueue(labels, deps.config.maxTasks, async issue => {
    const left = await github.abandonedBy(issue, deps.ctx.runId)
    if (left)
      deps.log(
        `queue: #${issue} was left ${labels.inProgress} by run ${left.run} (${left.status}): taken back`
      )
    return left !== undefined
  })
  deps.log(`queue: ${issues.length} issues labelled '${labels.queued}' and not in progress`)
  const plan: Plan = { tasks: [], refused: [], queue: labels }
  for (const issue of issues) {
    const actor = await github.labelledBy(issue.number, labels.queued)
    // A bot allowed-bots does not list is ignored quietly, as its comment would be: no reply, and
    // its label left as it is.
    const bot = actor && unlistedBot(actor, deps.config)
    if (bot) {
      deps.log(`queue: #${issue.number}: ${bot}`)
      continue
    }
    const ref = { ...issue, isPullRequest: false }
    const denied = actor
      ? await authorise(deps, ref, actor)
      : `no event says who applied '${labels.queued}'`
    if (!denied) {
      plan.tasks.push(...(await issueTasks(deps, issue)))
      continue
    }
    await github.moveIssue(issue.number, [], [labels.queued])
    const who = actor ?? { login: 'ghost', isBot: false }
    const refusal = await refuse(deps, ref, who, denied, `issue-${issue.number}`)
    plan.refused.push(...refusal.refused)
  }
  return plan
}

/** What planning takes: a refresh of fleet PRs (src/refreshing.ts) and the landing train (src/modes/merge.ts) go their own way before it. */
type Asked = Exclude<Request, { kind: 'refresh' | 'train' }>

export async function planRequest(request: Asked, deps: Deps): Promise<Plan> {
  switch (request.kind) {
    case 'tasks':
      return { tasks: await tasksFromInputs(deps.config, deps.ctx.workspace), refused: [] }
    case 'comment': {
      const denied = await authorise(deps, request.issue, request.actor, request.commentId)
      if (denied)
        return refuse(deps, request.issue, request.actor, denied, `issue-${request.issue.number}`)
      return { tasks: await commentTasks(deps, request.issue, request.text), refused: [] }
    }
    case 'plan': {
      // Refused before the planner makes any model request.
      const denied = await authorise(deps, request.issue, request.actor, request.commentId)
      if (denied)
        return refuse(
          deps,
          request.issue,
          request.actor,
          denied,
          `issue-${request.issue.number}-plan`
        )
      return {
        tasks: [],
        refused: [],
        planner: { kind: 'issue', issue: request.issue.number, text: request.text }
      }
    }
    case 'goal':
      return { tasks: [], refused: [], planner: { kind: 'goal', goal: request.goal } }
    case 'follow-up':
      return followUp(deps, request)
    case 'review':
    case 'review-comment':
      return answerReview(deps, request)
    case 'failed-run':
      return fixChecks(deps, request)
    case 'labeled': {
      const denied = await authorise(deps, request.issue, request.actor)
      if (denied) {
        // Take the label off too, or the next scheduled batch would run what was refused here.
        const github = needGithub(deps, 'label')
        await github.moveIssue(request.issue.number, [], [deps.config.queueLabel])
        return refuse(deps, request.issue, request.actor, denied, `issue-${request.issue.number}`)
      }
      return {
        tasks: await issueTasks(deps, request.issue),
        refused: [],
        queue: queueLabels(deps.config.queueLabel)
      }
    }
    case 'queue':
      return queued(deps)
    case 'ignore':
      return { tasks: [], refused: [] }
  }
}
