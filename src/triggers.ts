import type { Config } from './config.js'
import type { RunContext } from './context.js'
import type { Actor, IssueRef, Request } from './event.js'
import type { Outcome } from './domain.js'
import { emptyOutcome } from './fleet/pool.js'
import { checkAccess } from './github/access.js'
import type { Octokit, Repo } from './github/client.js'
import { labelledBy } from './github/label-actor.js'
import { abandonedBy } from './github/reclaim.js'
import { listQueue, moveIssue, queueLabels, type QueueLabels } from './github/queue.js'
import { taskFromComment, tasksFromIssue } from './tasks/from-issue.js'
import { tasksFromInputs } from './tasks/from-inputs.js'
import { idProblem } from './tasks/ids.js'
import { issueOfPrBody } from './report/pr-body.js'
import type { Task } from './domain.js'
import { describeError } from './errors.js'

/** What the fleet will do for a request: tasks to run, tasks refused, and the queue's labels. */
export interface Plan {
  tasks: Task[]
  refused: Outcome[]
  /** Set when the issues' queue labels move with their tasks (label and schedule triggers). */
  queue?: QueueLabels
  /** Set when the planner makes the tasks (src/planner/): an authorised `/fleet plan`, or `goal`. */
  planner?: { kind: 'issue'; issue: number; text: string } | { kind: 'goal'; goal: string }
}

interface Deps {
  config: Config
  ctx: RunContext
  github?: { octokit: Octokit; repo: Repo }
  log: (m: string) => void
}

function needGithub(deps: Deps, trigger: string): { octokit: Octokit; repo: Repo } {
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
  const { octokit, repo } = needGithub(deps, 'comment')
  deps.log(`refused: ${reason}`)
  await octokit.rest.issues.createComment({
    ...repo,
    issue_number: issue.number,
    body: `@${actor.login} Fleet Worker did not start: ${reason}.`
  })
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
  const { octokit, repo } = needGithub(deps, 'comment')
  const access = await checkAccess(octokit, repo, actor, deps.config.allowedBots)
  if (!access.allowed) return access.reason
  if (commentId) {
    // The reaction only acknowledges: a deleted comment must not stop the work it asked for.
    await octokit.rest.reactions
      .createForIssueComment({ ...repo, comment_id: commentId, content: 'eyes' })
      .catch((error: unknown) => {
        deps.log(`could not react to comment ${commentId}: ${describeError(error)}`)
      })
  }
  return undefined
}

/** A follow-up on a fleet PR continues that PR's branch. */
async function followUp(
  deps: Deps,
  request: Extract<Request, { kind: 'follow-up' }>
): Promise<Plan> {
  const { octokit, repo } = needGithub(deps, 'follow-up')
  const prefix = deps.config.branchPrefix
  const { data: pr } = await octokit.rest.pulls.get({ ...repo, pull_number: request.issue.number })
  const id = pr.head.ref.startsWith(prefix) ? pr.head.ref.slice(prefix.length) : ''
  // A fork's PR may have a branch called fleet/x too: it is not ours to continue.
  const fromFork =
    pr.head.repo?.full_name !== undefined && pr.head.repo.full_name !== `${repo.owner}/${repo.repo}`
  if (!id || idProblem(id) || pr.state !== 'open' || fromFork) {
    const why =
      pr.state !== 'open'
        ? 'the pull request is closed'
        : fromFork
          ? 'the pull request comes from a fork'
          : `the pull request's branch is not a ${prefix}* fleet branch`
    return refuse(deps, request.issue, request.actor, why, `pr-${request.issue.number}`)
  }
  const denied = await authorise(deps, request.issue, request.actor, request.commentId)
  if (denied) return refuse(deps, request.issue, request.actor, denied, id)
  // The issue comes from the action's own marker: a "Refs #N" in the body may be worker text.
  const issue = issueOfPrBody(pr.body ?? '')
  const base = taskFromComment(request.issue, request.text, prefix, 'pull request')
  return {
    tasks: [
      {
        ...base,
        id,
        branch: pr.head.ref,
        source: {
          kind: 'follow-up',
          pr: pr.number,
          ...(issue ? { issue } : {})
        }
      }
    ],
    refused: []
  }
}

/**
 * The scheduled batch: open issues carrying the queue label, each run only if the person who
 * applied the label may delegate; any other is refused as their comment would be (a reply, the
 * label taken off).
 */
async function queued(deps: Deps): Promise<Plan> {
  const { octokit, repo } = needGithub(deps, 'schedule')
  const labels = queueLabels(deps.config.queueLabel)
  const issues = await listQueue(octokit, repo, labels, deps.config.maxTasks, async issue => {
    const left = await abandonedBy(octokit, repo, issue, deps.ctx.runId)
    if (left)
      deps.log(
        `queue: #${issue} was left ${labels.inProgress} by run ${left.run} (${left.status}): taken back`
      )
    return left !== undefined
  })
  deps.log(`queue: ${issues.length} issues labelled '${labels.queued}' and not in progress`)
  const plan: Plan = { tasks: [], refused: [], queue: labels }
  for (const issue of issues) {
    const actor = await labelledBy(octokit, repo, issue.number, labels.queued)
    const ref = { ...issue, isPullRequest: false }
    const denied = actor
      ? await authorise(deps, ref, actor)
      : `no event says who applied '${labels.queued}'`
    if (!denied) {
      plan.tasks.push(...tasksFromIssue(issue, deps.config.branchPrefix))
      continue
    }
    await moveIssue(octokit, repo, issue.number, [], [labels.queued])
    const who = actor ?? { login: 'ghost', isBot: false }
    const refusal = await refuse(deps, ref, who, denied, `issue-${issue.number}`)
    plan.refused.push(...refusal.refused)
  }
  return plan
}

export async function planRequest(request: Request, deps: Deps): Promise<Plan> {
  const prefix = deps.config.branchPrefix
  switch (request.kind) {
    case 'tasks':
      return { tasks: await tasksFromInputs(deps.config, deps.ctx.workspace), refused: [] }
    case 'comment': {
      const denied = await authorise(deps, request.issue, request.actor, request.commentId)
      if (denied)
        return refuse(deps, request.issue, request.actor, denied, `issue-${request.issue.number}`)
      const tasks = request.text
        ? [taskFromComment(request.issue, request.text, prefix)]
        : tasksFromIssue(request.issue, prefix)
      return { tasks, refused: [] }
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
    case 'labeled': {
      const denied = await authorise(deps, request.issue, request.actor)
      if (denied) {
        // Take the label off too, or the next scheduled batch would run what was refused here.
        const { octokit, repo } = needGithub(deps, 'label')
        await moveIssue(octokit, repo, request.issue.number, [], [deps.config.queueLabel])
        return refuse(deps, request.issue, request.actor, denied, `issue-${request.issue.number}`)
      }
      return {
        tasks: tasksFromIssue(request.issue, prefix),
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
