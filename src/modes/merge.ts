// The landing train, as the action takes it: mode: merge (dispatch, schedule, push, a review
// submitted), or `/fleet merge` from a person with write access on a fleet PR or an issue. It reads
// which open fleet PRs may land (the action's own, approved by a writer, no changes requested, not a
// draft) and hands them to fleet/train-run.ts; every PR considered ends in one outcome.
import { InputError } from '../errors.js'
import type { Outcome } from '../domain.js'
import type { Request } from '../event.js'
import { runUrl } from '../context.js'
import { outcomeOf } from '../fleet/refresh.js'
import { runTrain } from '../fleet/train-run.js'
import { approvalOf, mergeMethodFor } from '../fleet/train-rules.js'
import type { GitHub } from '../github/github.js'
import type { FleetPr } from '../github/fleet-prs.js'
import type { MergeMethod } from '../github/merge.js'
import { inertProse } from '../inert-text.js'
import { carriedFrom, trainIssueSection, trainSection } from '../report/train.js'
import { logOutcomes, type RefreshAction, refreshOptions } from '../run/refreshing.js'
import { recordTurns } from '../run/spend.js'
import { withLandedCosts } from './train-cost.js'

/** The train as asked: mode: merge, or `/fleet merge` (with who asked, and on what). */
export type Train = Extract<Request, { kind: 'train' }>

/** The PRs this train considers: every fleet PR on the base, or those the comment names. */
async function considered(
  run: RefreshAction,
  github: GitHub,
  ask: Train,
  base: string
): Promise<FleetPr[]> {
  const all = await github.listFleetPrs(base, run.config.branchPrefix)
  const identity = await github.tokenIdentity()
  // A PR someone else opened is never the train's, whatever its body says.
  const own = all.filter(pr =>
    identity.kind === 'user' ? pr.author.login === identity.login : pr.author.type === 'Bot'
  )
  for (const pr of all.filter(p => !own.includes(p)))
    run.io.info(
      `#${pr.number} carries a fleet marker but was opened by ${pr.author.login}: left alone`
    )
  if (!ask.issue) return own
  const n = ask.issue.number
  return ask.issue.isPullRequest
    ? own.filter(pr => pr.number === n)
    : own.filter(pr => pr.marker.issue === n)
}

/** `/fleet merge` from someone without write access: refused, with a short reply. */
async function refusedCommand(run: RefreshAction, github: GitHub, ask: Train, reason: string) {
  const issue = ask.issue
  run.io.info(`refused: ${reason}`)
  if (issue && ask.actor)
    await github.commentOn(
      issue.number,
      `@${ask.actor.login} Fleet Worker did not start the landing train: ${inertProse(reason)}.`
    )
  const outcome: Outcome = {
    id: issue ? `${issue.isPullRequest ? 'pr' : 'issue'}-${issue.number}` : 'merge',
    title: issue?.title ?? 'landing train',
    status: 'refused',
    source: issue ? { kind: 'issue', issue: issue.number } : { kind: 'input' },
    turns: 0,
    durationMs: 0,
    usage: {
      input_tokens: 0,
      output_tokens: 0,
      cache_read_input_tokens: 0,
      cache_creation_input_tokens: 0
    },
    attempts: 0,
    error: reason
  }
  await run.io.report([outcome], `The landing train was not started: ${reason}.`)
  return [outcome]
}

/** Each PR's approval, read from its reviews and its reviewers' access. */
async function approvals(github: GitHub, prs: FleetPr[]) {
  const writers = github.writersOf()
  return Promise.all(
    prs.map(async pr => {
      const reviews = await github.reviewsOf(pr.number)
      const people = [...new Set(reviews.filter(r => !r.isBot).map(r => r.login))]
      return {
        pr,
        approval: approvalOf({
          reviews,
          writers: await writers(people),
          head: pr.headSha,
          carried: carriedFrom(pr.body, pr.headSha)
        })
      }
    })
  )
}

/** Whether this train may start: `/fleet merge` only from a person with write access. */
async function allowedToStart(run: RefreshAction, github: GitHub, ask: Train) {
  if (!ask.actor) return undefined
  const access = await github.checkAccess(ask.actor, run.config.allowedBots)
  if (!access.allowed) return access.reason
  if (ask.commentId) await github.ackComment({ id: ask.commentId }, run.io.info)
  return undefined
}

/** The PRs that ride (approved, or drafts to mark ready) and the outcomes of those that wait. */
async function sortOut(run: RefreshAction, github: GitHub, prs: FleetPr[]) {
  const markReady = run.config.markReady
  const read = await approvals(github, prs)
  const rides = (r: (typeof read)[number]) => r.approval.ok || (r.pr.draft && markReady)
  const riding = read.filter(rides).map(r => r.pr)
  const held = read
    .filter(r => !rides(r))
    .map(({ pr, approval }) =>
      outcomeOf(pr, {
        status: 'waiting',
        error: pr.draft
          ? `#${pr.number} is a draft: drafts never land`
          : approval.ok
            ? undefined
            : approval.reason
      })
    )
  for (const o of held) run.io.info(`[${o.id}] #${o.prNumber} waits: ${o.error}`)
  return { riding, held }
}

export async function landingTrain(run: RefreshAction, ask: Train): Promise<Outcome[]> {
  const { config, io } = run
  const github = run.github
  if (!github)
    throw new Error(`the landing train (${ask.why}) needs 'github-token' to read and merge PRs`)
  const denied = await allowedToStart(run, github, ask)
  if (denied) return refusedCommand(run, github, ask, denied)
  const base = config.baseBranch ?? (await github.defaultBranch())
  const prs = await considered(run, github, ask, base)
  if (ask.issue?.isPullRequest && prs.length === 0)
    return refusedCommand(
      run,
      github,
      ask,
      `#${ask.issue.number} is not an open fleet PR on ${base}: the train lands only PRs the action opened`
    )
  if (prs.length === 0) {
    const note = `Nothing to do: no open fleet PR targets ${base} (${ask.why}).`
    io.info(note)
    await io.report([], note)
    return []
  }
  const settings = await github.repoMergeSettings()
  const choice = mergeMethodFor(config.mergeMethod, settings)
  if (!choice.ok) throw new InputError('merge-method', choice.error)
  const { riding, held } = await sortOut(run, github, prs)
  io.info(
    `${ask.why}: ${riding.length} of ${prs.length} open fleet PRs on ${base} may land (${choice.method})`
  )
  const landed =
    config.dryRun || riding.length === 0
      ? riding.map(pr => outcomeOf(pr, { status: 'not-started', error: 'dry-run: would land' }))
      : await ride(run, github, {
          base,
          riding,
          method: choice.method,
          autoMerge: settings.autoMerge
        })
  // The train's merge turns first: a landed PR's cost includes the turn that brought it here.
  const unrecorded = await recordTurns(run, landed)
  const costed = await withLandedCosts(run, riding, landed)
  const outcomes = [...costed.outcomes, ...held]
  await onIssues(github, prs, { base, outcomes, runUrl: runUrl(run.ctx), log: io.info })
  await io.report(
    outcomes,
    trainSection({ base, method: choice.method, stops: outcomes, cost: costed.source })
  )
  if (unrecorded) throw unrecorded
  return outcomes
}

/** Each source issue's live comment gets the train's section for its own fleet PRs. */
async function onIssues(
  github: GitHub,
  prs: FleetPr[],
  t: { base: string; outcomes: Outcome[]; runUrl?: string; log: (m: string) => void }
): Promise<void> {
  const issues = [...new Set(prs.flatMap(pr => (pr.marker.issue ? [pr.marker.issue] : [])))]
  for (const issue of issues) {
    const stops = t.outcomes.filter(o =>
      prs.some(p => p.number === o.prNumber && p.marker.issue === issue)
    )
    const section = trainIssueSection({ base: t.base, stops, runUrl: t.runUrl })
    await github.putRefreshSection(issue, section, t.log)
  }
}

/** The train itself, over the PRs that may land (fleet/train-run.ts). */
async function ride(
  run: RefreshAction,
  github: GitHub,
  t: { base: string; riding: FleetPr[]; method: MergeMethod; autoMerge: boolean }
): Promise<Outcome[]> {
  const landed = await runTrain({
    ...(await refreshOptions(run, github, t.base, t.riding, 'train')),
    method: t.method,
    markReady: run.config.markReady,
    autoMerge: t.autoMerge,
    rules: await github.baseRules(t.base)
  })
  logOutcomes(run.io, landed)
  return landed
}
