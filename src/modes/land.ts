/**
 * mode: land — the work of land: false jobs, landed by a job that holds the write token and runs no
 * worker. Nothing handed over is trusted: each bundle is read as bytes (capped, no symlink) and
 * checked in a fresh clone exactly as a cage's exit is (git/sealed.ts), its start commit must be
 * on the remote's base (or the PR's branch), and only then is its branch pushed and its PR opened.
 */
import path from 'node:path'
import type { Outcome, Task } from '../domain.js'
import { land, type LandContext } from '../fleet/land.js'
import type { FleetConfig } from '../fleet/options.js'
import { FleetRepo } from '../git/repo.js'
import { checkSealed, DEFAULT_CAPS, readSealed } from '../git/sealed.js'
import { rewriteMessages } from '../git/messages.js'
import type { GitHub } from '../github/github.js'
import { inertCommitMessage } from '../inert-text.js'
import { prBody } from '../report/pr-body.js'
import { branchFor, idProblem } from '../tasks/ids.js'
import { describeError } from '../errors.js'
import { inertProse } from '../inert-text.js'
import type { OutcomeStore } from './store.js'
import { prFromGitHub, type Vouched, vouchedSource, withoutPr } from './trust.js'

export interface LandOptions {
  config: FleetConfig & { branchPrefix: string; baseBranch?: string }
  store: OutcomeStore
  remoteUrl: string
  gitToken?: string
  github?: GitHub
  /** A fresh directory of the action's: the clone, and the bundles it copies in. */
  root: string
  checkout?: string
  runUrl?: string
  /** The issues and PRs this job can vouch for (trust.ts): no other is told anything. */
  vouched: Vouched
  log: (message: string) => void
}

/** The task a handed-over outcome stands for (its prompt for the PR body). */
function taskOf(o: Outcome & { sealed: NonNullable<Outcome['sealed']> }): Task {
  return {
    id: o.id,
    // The PR's title: the hand-over's words, so inert prose like the rest of them.
    title: inertProse(o.title.replace(/\s+/g, ' ').slice(0, 256)),
    prompt: o.sealed.prompt,
    branch: o.branch ?? '',
    source: o.source
  }
}

/** Why a handed-over outcome cannot even be checked: its id, branch, start or file name. */
function handOverProblem(o: Outcome, prefix: string, store: OutcomeStore): string | undefined {
  const s = o.sealed
  if (!s) return undefined
  const problem = idProblem(o.id)
  if (problem) return `its task id is not one the fleet makes (${problem})`
  const branch = o.branch ?? ''
  const fits =
    branch === branchFor(prefix, o.id) ||
    (o.source.kind === 'follow-up' && branch.startsWith(prefix))
  if (!fits) return `its branch '${branch}' is outside branch-prefix '${prefix}'`
  if (!/^[0-9a-f]{40}([0-9a-f]{24})?$/.test(s.start)) return 'its start commit is not a commit id'
  if (!store.fileOf(s.bundle)) return `its bundle name '${s.bundle}' is not a file of the store`
  return undefined
}

/**
 * A handed-over outcome as far as this job can vouch for it: its source cut to the issues it can
 * (trust.ts), its PR number and URL dropped (GitHub says them). A follow-up on a PR it cannot
 * vouch for is refused when it brings work, and reported as a task of the inputs otherwise.
 */
function vouchedFor(o: Outcome, vouched: Vouched): Outcome {
  const source = vouchedSource(o.source, vouched)
  const bare = withoutPr(o)
  if (source) return { ...bare, source }
  if (o.sealed && o.source.kind === 'follow-up')
    return refused(
      { ...bare, source: { kind: 'input' } },
      `it names PR #${o.source.pr}, which neither this job's event nor its plan names`
    )
  return { ...bare, source: { kind: 'input' } }
}

/** Every outcome after landing: handed-over work checked and landed, the rest as GitHub shows it. */
export async function landHandedOver(opts: LandOptions, handed: Outcome[]): Promise<Outcome[]> {
  const outcomes = handed.map(o => vouchedFor(o, opts.vouched))
  const sealed = outcomes.filter(o => o.sealed)
  if (sealed.length === 0) return withGitHubPrs(opts, outcomes)
  const { repo, base } = await FleetRepo.clone({
    dir: path.join(opts.root, 'repo'),
    remoteUrl: opts.remoteUrl,
    token: opts.gitToken,
    base: opts.config.baseBranch,
    branches: [...new Set(sealed.map(o => o.branch ?? '').filter(Boolean))],
    checkout: opts.checkout
  })
  const ctx: LandContext = {
    config: opts.config,
    repo,
    base,
    github: opts.github,
    preserveDir: path.join(opts.root, 'preserved'),
    prBody: o => prBody(outcomeTask(sealed, o), o, { runUrl: opts.runUrl })
  }
  const landed: Outcome[] = []
  const seen = new Set<string>()
  // One at a time: pushes and PRs are few and quick, and the log stays in order.
  for (const o of outcomes) {
    if (!o.sealed) landed.push(o)
    else if (seen.has(o.id)) landed.push(refused(o, `task ${o.id} was handed over twice`))
    else landed.push(await landOrRefuse(ctx, opts, o))
    seen.add(o.id)
  }
  return withGitHubPrs(opts, landed, new Set(sealed.map(o => o.id)))
}

/** Outcomes that came without a bundle get their PR from GitHub; landed ones have it already. */
function withGitHubPrs(opts: LandOptions, outcomes: Outcome[], landed = new Set<string>()) {
  return Promise.all(
    outcomes.map(async o =>
      landed.has(o.id) ? o : prFromGitHub(o, opts.config.branchPrefix, opts.github)
    )
  )
}

/** Whatever breaks while landing one result (a malformed hand-over, git) ends that task alone. */
function landOrRefuse(ctx: LandContext, opts: LandOptions, o: Outcome): Promise<Outcome> {
  return landOne(ctx, opts, o).catch((error: unknown) =>
    refused(o, `it could not be landed (${describeError(error)})`)
  )
}

function outcomeTask(sealed: Outcome[], o: Outcome): Task {
  const found = sealed.find(s => s.id === o.id) ?? o
  return taskOf({
    ...found,
    sealed: found.sealed ?? { bundle: '', start: '', pr: false, prompt: '' }
  })
}

/** The outcome without its hand-over record: once landed or refused, there is nothing to hand on. */
function unsealed(o: Outcome): Outcome {
  const rest = { ...o }
  delete rest.sealed
  return rest
}

/** A handed-over result refused: the task fails with the sentence, the bundle kept where it was. */
function refused(o: Outcome, reason: string, kept?: string): Outcome {
  const where = kept ? `; it is kept in ${kept} (git bundle), not pushed` : '; nothing was pushed'
  return {
    ...unsealed(o),
    status: 'failed',
    error: `the handed-over work was refused: ${reason}${where}`,
    preserved: kept
  }
}

/**
 * The start commit must be where the task could have started: the base, or the PR's branch. Behind
 * a shallow checkout that branch's history is deepened only as far as the start (FleetRepo.reach).
 */
async function startIsKnown(ctx: LandContext, o: Outcome, start: string): Promise<boolean> {
  const from = o.source.kind === 'follow-up' ? o.branch : ctx.base
  return from ? ctx.repo.reach(start, from) : false
}

/** One handed-over result: copied, checked as the exit checks it, then pushed and PR'd. */
async function landOne(ctx: LandContext, opts: LandOptions, o: Outcome): Promise<Outcome> {
  const s = o.sealed
  if (!s) return o
  const problem = handOverProblem(o, opts.config.branchPrefix, opts.store)
  if (problem) return refused(o, problem)
  const copy = path.join(opts.root, 'handed-over', `${o.id}.bundle`)
  try {
    const got = await readSealed(opts.store.fileOf(s.bundle) ?? '', copy, DEFAULT_CAPS.maxBytes)
    if (!got) return refused(o, `its bundle ${s.bundle} is missing from the store`)
  } catch (error) {
    return refused(o, describeError(error))
  }
  const task = taskOf({ ...o, sealed: s })
  if (!(await startIsKnown(ctx, o, s.start)))
    return refused(
      o,
      `its start commit ${s.start.slice(0, 12)} is not on the remote's ${o.source.kind === 'follow-up' ? task.branch : ctx.base}`,
      copy
    )
  const checked = await checkSealed(ctx.repo.git, copy, { branch: task.branch, start: s.start })
  if (checked.kind === 'refused') return refused(o, checked.reason, copy)
  const head = await rewriteMessages(
    ctx.repo.git,
    s.start,
    checked.head,
    inertCommitMessage,
    checked.history
  )
  await ctx.repo.git.exec(['update-ref', `refs/heads/${task.branch}`, head])
  opts.log(`[${o.id}] handed-over work checked (${checked.commits} commits): landing`)
  const verified = !o.verify || (o.verify.exitCode === 0 && !o.verify.timedOut)
  const draft: Outcome = {
    ...unsealed(o),
    status: s.pr ? (verified ? 'pr-opened' : 'verify-failed') : o.status
  }
  const landed = await land(ctx, task, draft, s.pr)
  const partial = !s.pr && !landed.error ? `; its partial work is on branch ${task.branch}` : ''
  return {
    ...draft,
    ...landed,
    error: landed.error ?? (o.error ? `${o.error}${partial}` : undefined)
  }
}
