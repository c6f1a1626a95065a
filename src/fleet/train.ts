import type { Outcome, VerifyResult } from '../domain.js'
import type { Worktree } from '../git/repo.js'
import type { FleetPr } from '../github/fleet-prs.js'
import type { MergeMethod } from '../github/merge.js'
import { CONFLICT_LABEL, refreshedBody } from '../report/refresh.js'
import {
  BLOCKED_LABEL,
  TRAIN_MARKER,
  trainComment,
  trainKey,
  withCarried
} from '../report/train.js'
import { isAncestor, onlyOurs, tryMerge, tryRebase } from './refresh-git.js'
import {
  outcomeOf,
  passed,
  type RefreshContext,
  remoteTips,
  resolveConflict,
  timedPr,
  verifyAgain
} from './refresh.js'
import { missingChecks, readMergeReply } from './train-rules.js'

/**
 * One carriage of the landing train: an approved fleet PR brought up to date with the base as it
 * is now (keep-fresh's rebase or merge; a conflict gets its one worker turn, which is new content
 * and so waits for a new approval), verify run again in the task's cage on exactly that tree, the
 * branch pushed with a lease, and the merge asked of GitHub with that head pinned. GitHub's answer
 * judges its own rules: a refusal leaves the PR waiting, with GitHub's words. Ends in one outcome.
 */

export interface TrainContext extends RefreshContext {
  method: MergeMethod
  markReady: boolean
  /** The repository allows auto-merge: a PR GitHub will not merge yet gets it. */
  autoMerge: boolean
  rules: { requiredChecks: string[]; mergeQueue: boolean }
}

const short = (sha: string) => sha.slice(0, 7)

export async function ridePr(ctx: TrainContext, pr: FleetPr): Promise<Outcome> {
  return timedPr(ctx, pr, () => ride(ctx, pr), {
    log: `the train could not land #${pr.number}`,
    error: `landing #${pr.number} failed`
  })
}

async function ride(ctx: TrainContext, pr: FleetPr): Promise<Outcome> {
  // The base as it is now: the train's previous merge moved it.
  await ctx.repo.refetch([ctx.base, pr.branch])
  const tips = await remoteTips(ctx, pr)
  if ('gone' in tips) return tips.gone
  const { head, baseSha } = tips
  if (head !== pr.headSha)
    return outcomeOf(pr, {
      status: 'waiting',
      error: `#${pr.number}'s branch moved since its approval was read (now ${short(head)}): the next train reads it again`
    })
  // Behind a shallow checkout: the histories deepened until the commit they share is here.
  await ctx.repo.meet(ctx.base, pr.branch)
  await using tree = await ctx.repo.worktree(
    `${pr.id}.train`,
    pr.branch,
    `refs/remotes/origin/${pr.branch}`
  )
  if (pr.draft) return await draftStop(ctx, pr, tree)
  const upToDate = await isAncestor(tree, baseSha, head)
  if (!upToDate) {
    const ref = `refs/remotes/origin/${ctx.base}`
    const ours = await onlyOurs(tree, ref, ctx.config.commitAuthor)
    const clean =
      (ours && (await tryRebase(tree, ref, ctx.config.commitAuthor))) ||
      (await tryMerge(tree, { ref, name: ctx.base }, ctx.config.commitAuthor))
    if (!clean)
      return afterConflictTurn(pr, await resolveConflict(ctx, pr, tree, { head, baseSha }))
  }
  const verify = await verifyAgain(ctx, pr, tree)
  if (!passed(verify)) return await blocked(ctx, pr, { verify, baseSha, head })
  const landing = upToDate ? head : await pushUpdate(ctx, pr, tree, { head, verify })
  if (typeof landing !== 'string') return landing
  return await merge(ctx, pr, { landing, verify, pushed: !upToDate })
}

/**
 * A conflict's worker turn wrote new content: pushed as keep-fresh pushes it, and the PR waits for
 * a person to approve what changed. Any other end of the turn is keep-fresh's outcome.
 */
function afterConflictTurn(pr: FleetPr, o: Outcome): Outcome {
  if (o.status === 'pr-updated')
    return {
      ...o,
      status: 'waiting',
      error: `#${pr.number} conflicted with the base and a worker resolved it: new content, so it lands once a person with write access approves it again`
    }
  if (o.status === 'verify-failed') return { ...o, status: 'blocked' }
  return o
}

/** The branch brought up to date, pushed with a lease; its new head, or the outcome when not pushed. */
async function pushUpdate(
  ctx: TrainContext,
  pr: FleetPr,
  tree: Worktree,
  at: { head: string; verify?: VerifyResult }
): Promise<string | Outcome> {
  const landing = (await tree.git.out(['rev-parse', 'HEAD'])).trim()
  const pushed = await ctx.repo.push(pr.branch, at.head)
  if (!pushed.ok) {
    const moved = /changed on the remote after it was fetched/.test(pushed.reason)
    return outcomeOf(pr, {
      status: moved ? 'waiting' : 'failed',
      error: moved
        ? `#${pr.number}'s branch moved while the train brought it up to date (someone pushed): left as they left it; the next train takes it again`
        : `pushing #${pr.number} up to date failed: ${pushed.reason}`
    })
  }
  const github = ctx.github
  const body = refreshedBody(pr.body, {
    id: pr.id,
    marker: pr.marker,
    verify: at.verify,
    how: `${ctx.base} (by the landing train)`,
    runUrl: ctx.runUrl
  })
  // The action's own update carries the approved content: an approval of `head` still counts.
  await github.updateFleetPr(pr, {
    title: outcomeOf(pr, { status: 'pr-updated' }).title,
    body: withCarried(body, { head: landing, from: at.head }),
    add: [],
    remove: [CONFLICT_LABEL]
  })
  ctx.log(`[${pr.id}] #${pr.number} brought up to date with ${ctx.base} at ${short(landing)}`)
  return landing
}

/** Verify failed on the tree that would land: one comment, the label, the branch as it was. */
async function blocked(
  ctx: TrainContext,
  pr: FleetPr,
  at: { verify?: VerifyResult; baseSha: string; head: string }
): Promise<Outcome> {
  const v = at.verify
  const reason = `verify '${v?.command}' ${v?.timedOut ? 'ran past its time limit (timeouts: verify)' : `exited with ${v?.exitCode}`} on #${pr.number} brought up to date with ${ctx.base} at ${short(at.baseSha)}`
  const github = ctx.github
  await github.sayOnPr(pr.number, {
    marker: TRAIN_MARKER,
    key: trainKey(`blocked base=${at.baseSha} head=${at.head}`),
    body: trainComment({
      status: 'blocked',
      base: ctx.base,
      reason,
      tail: v?.tail,
      key: trainKey(`blocked base=${at.baseSha} head=${at.head}`),
      runUrl: ctx.runUrl
    })
  })
  await github.relabel(pr, { add: [BLOCKED_LABEL], remove: [] })
  ctx.log(`[${pr.id}] #${pr.number} blocked: ${reason}`)
  return outcomeOf(pr, { status: 'blocked', verify: v, error: reason })
}

/** A draft never lands; with mark-ready, one whose verify passes on its head is marked ready. */
async function draftStop(ctx: TrainContext, pr: FleetPr, tree: Worktree): Promise<Outcome> {
  if (!ctx.markReady)
    return outcomeOf(pr, {
      status: 'waiting',
      error: `#${pr.number} is a draft: drafts never land (mark it ready for review, or set mark-ready: true)`
    })
  const verify = await verifyAgain(ctx, pr, tree)
  if (!passed(verify))
    return outcomeOf(pr, {
      status: 'waiting',
      verify,
      error: `#${pr.number} is a draft and verify fails on its head (exit ${verify?.exitCode}): left a draft`
    })
  const refused = await ctx.github.markReady(pr.nodeId)
  if (!refused)
    ctx.log(`[${pr.id}] #${pr.number}: verify passed on its head; marked ready for review`)
  return outcomeOf(pr, {
    status: 'waiting',
    verify,
    error: refused
      ? `#${pr.number} is a draft whose verify passes, but GitHub did not mark it ready: ${refused}`
      : `#${pr.number} was a draft; verify passed on its head, so it is marked ready for review: it lands once a person with write access approves it`
  })
}

/** The merge, the head pinned; or the merge queue, where the base has one (exported for its tests). */
export async function merge(
  ctx: TrainContext,
  pr: FleetPr,
  at: { landing: string; verify?: VerifyResult; pushed: boolean }
): Promise<Outcome> {
  const github = ctx.github
  if (ctx.rules.mergeQueue) {
    const refused = await github.enqueue({ nodeId: pr.nodeId, sha: at.landing })
    return waiting(ctx, pr, {
      landing: at.landing,
      verify: at.verify,
      reason: refused
        ? `${ctx.base} merges through GitHub's merge queue, and GitHub did not add it: ${refused}`
        : `added to ${ctx.base}'s merge queue at ${short(at.landing)}: GitHub merges it once the queue's checks pass`,
      autoMerge: false
    })
  }
  const verdict = readMergeReply(
    await github.mergePr({
      number: pr.number,
      sha: at.landing,
      method: ctx.method,
      title: outcomeOf(pr, { status: 'merged' }).title
    })
  )
  switch (verdict.kind) {
    case 'merged':
      ctx.log(`[${pr.id}] #${pr.number} merged into ${ctx.base} (${short(verdict.sha)})`)
      await github.relabel(pr, { add: [], remove: [BLOCKED_LABEL] })
      return outcomeOf(pr, { status: 'merged', verify: at.verify })
    case 'head-moved': {
      const now = await github.headNow(pr.number)
      return outcomeOf(pr, {
        status: 'waiting',
        verify: at.verify,
        error: `${verdict.reason} The head is now ${short(now.sha)} (someone pushed after the train's verify): not merged; the next train takes it again`
      })
    }
    case 'failed':
      return outcomeOf(pr, { status: 'failed', verify: at.verify, error: verdict.reason })
    case 'waiting':
      return waiting(ctx, pr, {
        landing: at.landing,
        verify: at.verify,
        reason: await explained(ctx, verdict, at),
        autoMerge: ctx.autoMerge
      })
  }
}

/** GitHub's refusal, with the required checks not yet passed on the head named. */
async function explained(
  ctx: TrainContext,
  verdict: { reason: string; about: string },
  at: { landing: string; pushed: boolean }
): Promise<string> {
  if (verdict.about !== 'checks' || ctx.rules.requiredChecks.length === 0) return verdict.reason
  const github = ctx.github
  const missing = missingChecks(ctx.rules.requiredChecks, await github.passedChecks(at.landing))
  const named = missing.length
    ? ` Required checks not passed on ${short(at.landing)}: ${missing.join(', ')}.`
    : ''
  const push = at.pushed
    ? " The train pushed this head; a push with the workflow's GITHUB_TOKEN starts no workflow run, so with required checks use a GitHub App token or a PAT (docs/workflows.md)."
    : ''
  return `${verdict.reason}${named}${push}`
}

/** Not merged now: auto-merge where allowed, one comment (not repeated), the reason in the results. */
async function waiting(
  ctx: TrainContext,
  pr: FleetPr,
  w: { landing: string; verify?: VerifyResult; reason: string; autoMerge: boolean }
): Promise<Outcome> {
  const github = ctx.github
  let reason = w.reason
  if (w.autoMerge) {
    const refused = await github.enableAutoMerge({
      nodeId: pr.nodeId,
      method: ctx.method,
      sha: w.landing
    })
    reason += refused
      ? ` Auto-merge could not be turned on: ${refused}.`
      : ' Auto-merge is on: GitHub merges it once its requirements pass.'
  }
  const key = trainKey(`waiting head=${w.landing} reason=${hash(w.reason)}`)
  await github.sayOnPr(pr.number, {
    marker: TRAIN_MARKER,
    key,
    body: trainComment({ status: 'waiting', base: ctx.base, reason, key, runUrl: ctx.runUrl })
  })
  await github.relabel(pr, { add: [], remove: [BLOCKED_LABEL] })
  ctx.log(`[${pr.id}] #${pr.number} waits: ${reason}`)
  return outcomeOf(pr, { status: 'waiting', verify: w.verify, error: reason })
}

/** A short, stable digest of a reason (the comment's key: the same reason is not said twice). */
function hash(text: string): string {
  let h = 2166136261
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619)
  return (h >>> 0).toString(16)
}
