import { mkdir } from 'node:fs/promises'
import path from 'node:path'
import { addUsage, type Outcome, type Task, type VerifyResult, ZERO_USAGE } from '../domain.js'
import { describeError } from '../errors.js'
import type { FleetRepo, Worktree } from '../git/repo.js'
import type { GitHub } from '../github/github.js'
import type { FleetPr } from '../github/fleet-prs.js'
import {
  CONFLICT_LABEL,
  conflictComment,
  conflictKey,
  refreshedBody,
  taskOfBody
} from '../report/refresh.js'
import { mergePrompt } from '../tasks/merge-prompt.js'
import { withCarried } from '../report/train.js'
import type { Isolation } from '../cage/isolation.js'
import { runWorker, type WorkerContext } from '../worker/run.js'
import type { FleetConfig } from './options.js'
import { runSetup, setupEnv, sharedCaches } from './setup.js'
import { inertCommitMessage } from '../inert-text.js'
import { acceptedHead, readyIndex, type TaskGit } from '../worker/exit.js'
import {
  abandonMerge,
  isAncestor,
  markersIn,
  mergeSubject,
  onlyOurs,
  sides,
  tryMerge,
  tryRebase,
  unmergedFiles
} from './refresh-git.js'
import { removeTree } from '../process/remove-tree.js'

/**
 * One open fleet PR brought up to date with its base, when the base moved (a push to it, or
 * update-prs): nothing when it is up to date; rebased (only the action's commits on it) or merged
 * (a person's commit on it, never rewritten) when that is clean; a conflict given to one worker
 * turn in the task's cage. Verify runs again in the cage before anything is pushed, with a lease:
 * a branch that moved meanwhile is left alone. Ends in exactly one outcome.
 */

export interface RefreshConfig extends FleetConfig {
  /** Worker turns a PR may have had (its marker counts them); a merge turn is one. */
  maxFixUps: number
}

export interface RefreshContext {
  config: RefreshConfig
  repo: FleetRepo
  base: string
  github: GitHub
  /** The run's directory for cages and preserved work. */
  root: string
  host: NodeJS.ProcessEnv
  isolation: Isolation
  /** A worker's setting for a merge turn, made on first need (the gateway, the binary). */
  worker: () => Promise<WorkerContext>
  log: (message: string) => void
  runUrl?: string
  signal?: AbortSignal
}

const VERIFY_FAILED = 'fleet:verify-failed'
export const passed = (v?: VerifyResult) => !v || (v.exitCode === 0 && !v.timedOut)
const baseRef = (ctx: RefreshContext) => `refs/remotes/origin/${ctx.base}`

/** The outcome of a PR's refresh, before its timing: the task's id and the PR filled in. */
export function outcomeOf(
  pr: FleetPr,
  fields: Partial<Outcome> & Pick<Outcome, 'status'>
): Outcome {
  return {
    id: pr.id,
    title: pr.title.replace(/^(\[verify failed\] )+/, ''),
    source: {
      kind: 'follow-up',
      pr: pr.number,
      ...(pr.marker.issue ? { issue: pr.marker.issue } : {})
    },
    branch: pr.branch,
    prNumber: pr.number,
    prUrl: pr.url,
    turns: 0,
    durationMs: 0,
    usage: ZERO_USAGE,
    attempts: 0,
    ...fields
  }
}

export async function refreshPr(ctx: RefreshContext, pr: FleetPr): Promise<Outcome> {
  return timedPr(ctx, pr, () => refreshBranch(ctx, pr), {
    log: 'could not be brought up to date',
    error: `bringing #${pr.number} up to date failed`
  })
}

/**
 * One PR's work, timed; a throw ends it `failed` with the cause, logged as `[id] <log>: cause` and
 * told as `<error>: cause` (keep-fresh's refresh, the train's ride).
 */
export async function timedPr(
  ctx: { log: (message: string) => void },
  pr: FleetPr,
  work: () => Promise<Outcome>,
  said: { log: string; error: string }
): Promise<Outcome> {
  const startedAt = Date.now()
  const timed = (o: Outcome): Outcome => {
    const endedAt = Date.now()
    return { ...o, startedAt, endedAt, durationMs: endedAt - startedAt }
  }
  try {
    return timed(await work())
  } catch (error) {
    const cause = describeError(error)
    ctx.log(`[${pr.id}] ${said.log}: ${cause}`)
    return timed(outcomeOf(pr, { status: 'failed', error: `${said.error}: ${cause}` }))
  }
}

/** The PR's head and its base's tip on the remote, or a failed outcome naming the one that is gone. */
export async function remoteTips(
  ctx: RefreshContext,
  pr: FleetPr
): Promise<{ head: string; baseSha: string } | { gone: Outcome }> {
  const head = await ctx.repo.remoteSha(pr.branch)
  const baseSha = await ctx.repo.remoteSha(ctx.base)
  if (head && baseSha) return { head, baseSha }
  const error = `${head ? ctx.base : pr.branch} is not on the remote`
  return { gone: outcomeOf(pr, { status: 'failed', error }) }
}

async function refreshBranch(ctx: RefreshContext, pr: FleetPr): Promise<Outcome> {
  const tips = await remoteTips(ctx, pr)
  if ('gone' in tips) return tips.gone
  const { head, baseSha } = tips
  // Behind a shallow checkout: the histories deepened until the commit they share is here.
  await ctx.repo.meet(ctx.base, pr.branch)
  await using tree = await ctx.repo.worktree(
    `${pr.id}.refresh`,
    pr.branch,
    `refs/remotes/origin/${pr.branch}`
  )
  if (await isAncestor(tree, baseSha, head)) {
    ctx.log(`[${pr.id}] #${pr.number} is up to date with ${ctx.base}`)
    return outcomeOf(pr, { status: 'up-to-date' })
  }
  const author = ctx.config.commitAuthor
  const ours = await onlyOurs(tree, baseRef(ctx), author)
  if (ours && (await tryRebase(tree, baseRef(ctx), author)))
    return await landRefresh(ctx, pr, tree, { head, how: `${ctx.base} (rebased)` })
  if (await tryMerge(tree, { ref: baseRef(ctx), name: ctx.base }, author))
    return await landRefresh(ctx, pr, tree, { head, how: `${ctx.base} (merged)` })
  // Awaited: the worktree is disposed when this function returns, and the steps still need it.
  return await resolveConflict(ctx, pr, tree, { head, baseSha })
}

/** A fresh HOME, TMPDIR and config dir for a caged command of this refresh (no model, no caches). */
async function cageEnv(ctx: RefreshContext, id: string): Promise<Record<string, string>> {
  const dir = path.join(ctx.root, 'workers', `${id}.refresh-verify`)
  const paths = {
    home: path.join(dir, 'home'),
    tmp: path.join(dir, 'tmp'),
    config: path.join(dir, 'config')
  }
  await removeTree(dir)
  await Promise.all(Object.values(paths).map(p => mkdir(p, { recursive: true })))
  const env = setupEnv(ctx.isolation, ctx.host, paths)
  for (const name of Object.keys(sharedCaches(ctx.host))) delete env[name]
  return env
}

/** `setup` then `verify` in the task's cage, as a task's own run has them; undefined without verify. */
export async function verifyAgain(
  ctx: RefreshContext,
  pr: FleetPr,
  tree: Worktree
): Promise<VerifyResult | undefined> {
  const { config } = ctx
  if (!config.verify) return undefined
  if (config.setup) {
    const setup = await runSetup(config, {
      taskId: pr.id,
      tree,
      command: config.setup,
      cageDir: path.join(ctx.root, 'workers', `${pr.id}.refresh-setup`),
      host: ctx.host,
      log: ctx.log,
      isolation: ctx.isolation,
      signal: ctx.signal
    })
    if (setup.error)
      return { ...setup.result, exitCode: setup.result.exitCode || 1, command: config.setup }
  }
  return ctx.isolation.run({
    taskId: pr.id,
    label: 'verify',
    command: config.verify,
    cwd: tree.dir,
    gitDir: tree.gitDir,
    env: await cageEnv(ctx, pr.id),
    timeoutMs: config.verifyTimeoutMs,
    host: ctx.host,
    log: ctx.log,
    signal: ctx.signal
  })
}

/** Work the action made on the branch that cannot be pushed: a bundle and a local ref, and where. */
async function keep(ctx: RefreshContext, pr: FleetPr): Promise<string> {
  const file = path.join(ctx.root, 'preserved', `${pr.id}.bundle`)
  try {
    await ctx.repo.preserve(pr.branch, ctx.base, file)
    return `the merge is kept in ${file} (git bundle) and ref refs/fleet-preserved/${pr.branch}`
  } catch (error) {
    return `keeping the merge also failed: ${describeError(error)}`
  }
}

/**
 * Verify, then the push with a lease on the head the run started from, then the PR's body, title
 * and labels. A failed verify still lands, marked as landing marks it.
 */
async function landRefresh(
  ctx: RefreshContext,
  pr: FleetPr,
  tree: Worktree,
  how: {
    head: string
    how: string
    verify?: VerifyResult
    turn?: Partial<Outcome>
    fixUps?: number
  }
): Promise<Outcome> {
  const verify = how.verify ?? (await verifyAgain(ctx, pr, tree))
  const pushed = await ctx.repo.push(pr.branch, how.head)
  if (!pushed.ok) return notPushed(ctx, pr, pushed.reason, how.turn)
  const ok = passed(verify)
  const github = ctx.github
  const marker = { ...pr.marker, fixUps: how.fixUps ?? pr.marker.fixUps }
  const title = outcomeOf(pr, { status: 'pr-updated' }).title
  // A clean update carries the content a person approved (the landing train reads this); a
  // worker's turn is new content, and drops the record.
  const landed = how.turn ? undefined : await tree.git.out(['rev-parse', 'HEAD'])
  const body = refreshedBody(pr.body, {
    id: pr.id,
    marker,
    verify,
    how: how.how,
    runUrl: ctx.runUrl
  })
  await github.updateFleetPr(pr, {
    title: ok ? title : `[verify failed] ${title}`,
    body: withCarried(body, landed ? { head: landed.trim(), from: how.head } : undefined),
    add: ok ? [] : [VERIFY_FAILED],
    remove: ok ? [VERIFY_FAILED, CONFLICT_LABEL] : [CONFLICT_LABEL]
  })
  ctx.log(
    `[${pr.id}] #${pr.number} brought up to date with ${how.how}${ok ? '' : '; verify failed'}`
  )
  return outcomeOf(pr, {
    ...how.turn,
    status: ok ? 'pr-updated' : 'verify-failed',
    verify,
    ...(ok
      ? {}
      : {
          error: `verify '${verify?.command}' ${verify?.timedOut ? 'ran past its time limit (timeouts: verify)' : `exited with ${verify?.exitCode}`} after bringing the branch up to date`
        })
  })
}

/** The push was refused: a branch someone moved meanwhile is theirs, left alone; any other refusal fails. */
async function notPushed(
  ctx: RefreshContext,
  pr: FleetPr,
  reason: string,
  turn?: Partial<Outcome>
): Promise<Outcome> {
  const kept = await keep(ctx, pr)
  const moved = /changed on the remote after it was fetched/.test(reason)
  ctx.log(`[${pr.id}] not pushed: ${reason}; ${kept}`)
  return outcomeOf(pr, {
    ...turn,
    status: moved ? 'no-changes' : 'failed',
    error: moved
      ? `#${pr.number}'s branch moved while the action worked on it (someone pushed to it): left alone, as they left it; the next push to ${ctx.base} tries again; ${kept}`
      : `${reason}; ${kept}`
  })
}

/** The conflict, said once on the PR with the label; the branch untouched. */
async function cannotResolve(
  ctx: RefreshContext,
  pr: FleetPr,
  c: {
    files: string[]
    key: string
    reason: string
    turn?: Partial<Outcome>
    /** `failed` when the exit refused the worker's resolution: the step fails, the PR still says so. */
    status?: 'conflict' | 'failed'
  }
): Promise<Outcome> {
  const github = ctx.github
  const body = conflictComment({
    base: ctx.base,
    files: c.files,
    reason: c.reason,
    key: c.key,
    runUrl: ctx.runUrl
  })
  await github.sayConflict(pr, body, CONFLICT_LABEL)
  ctx.log(
    `[${pr.id}] #${pr.number} conflicts with ${ctx.base} (${c.files.join(', ')}): ${c.reason}`
  )
  return outcomeOf(pr, {
    ...c.turn,
    status: c.status ?? 'conflict',
    error: `#${pr.number} conflicts with ${ctx.base} in ${c.files.join(', ')}: ${c.reason}; the branch is untouched, the PR says so`
  })
}

/**
 * The branch conflicts with the base: one worker turn in the task's cage with the merge in
 * progress (within max-fix-ups), its resolution leaving the cage only through the sealed exit
 * (worker/exit.ts) as one merge commit of exactly [the branch's head, the base]; then the markers
 * checked in that commit and verify run. A rerun on the same two heads that was already answered
 * says nothing new and runs no worker.
 */
export async function resolveConflict(
  ctx: RefreshContext,
  pr: FleetPr,
  tree: Worktree,
  at: { head: string; baseSha: string }
): Promise<Outcome> {
  const files = await unmergedFiles(tree)
  const key = conflictKey(at.baseSha, at.head)
  const github = ctx.github
  if (await github.conflictSaid(pr.number, key)) {
    await abandonMerge(tree, at.head)
    ctx.log(`[${pr.id}] #${pr.number}: this conflict was reported already (a rerun): nothing new`)
    return outcomeOf(pr, {
      status: 'conflict',
      error: `#${pr.number} conflicts with ${ctx.base} in ${files.join(', ')}; said on the PR already`
    })
  }
  const done = pr.marker.fixUps
  if (done >= ctx.config.maxFixUps) {
    await abandonMerge(tree, at.head)
    return cannotResolve(ctx, pr, {
      files,
      key,
      reason: `it has had its ${ctx.config.maxFixUps} worker turns (follow-ups: max-fix-ups)`
    })
  }
  const turn = await mergeTurn(ctx, pr, { tree, files, ...at })
  if (turn.problem)
    return cannotResolve(ctx, pr, {
      files,
      key,
      reason: turn.problem,
      turn: turn.fields,
      ...(turn.refused ? { status: 'failed' as const } : {})
    })
  const verify = await verifyAgain(ctx, pr, tree)
  return landRefresh(ctx, pr, tree, {
    head: at.head,
    how: `${ctx.base} (merged; a worker resolved the conflict in ${files.join(', ')})`,
    verify,
    turn: turn.fields,
    fixUps: done + 1
  })
}

/** The merge turn's exit: the fleet's clone, the PR's branch at its head, the base to merge. */
function mergeGit(
  ctx: RefreshContext,
  pr: FleetPr,
  tree: Worktree,
  at: { head: string; baseSha: string }
): TaskGit {
  return {
    id: `${pr.id}.merge`,
    repo: ctx.repo.git,
    refs: ctx.repo.refs,
    branch: pr.branch,
    start: at.head,
    merge: at.baseSha,
    adminDir: tree.gitDir,
    keepDir: path.join(ctx.root, 'preserved'),
    author: ctx.config.commitAuthor,
    message: inertCommitMessage(mergeSubject(ctx.base, pr.branch))
  }
}

interface MergeAt {
  tree: Worktree
  files: string[]
  head: string
  baseSha: string
}

/**
 * The merge turn: the worker in the task's cage, told the files, both sides and the task; what it
 * left sealed in the cage and checked (worker/exit.ts). A problem names why the merge will not be
 * pushed and where the worker's work is kept; `refused` when the exit refused it.
 */
async function mergeTurn(ctx: RefreshContext, pr: FleetPr, at: MergeAt) {
  const { tree, files } = at
  const task = await mergeTask(ctx, pr, tree, files)
  ctx.log(
    `[${pr.id}] #${pr.number} conflicts with ${ctx.base} in ${files.join(', ')}: one worker turn`
  )
  const exit = mergeGit(ctx, pr, tree, at)
  const worker = await ctx.worker()
  const run = await runWorker(worker, task, tree.dir, '.merge', exit)
  const fields: Partial<Outcome> = {
    turns: run.turns,
    usage: addUsage(ZERO_USAGE, run.usage),
    ...(ctx.config.prices ? { costUsd: worker.model.gateway.taskSpend(task.id).cost } : {}),
    attempts: run.attempts,
    model: run.model,
    finalMessage: run.finalMessage
  }
  if (exit.refused) {
    const { reason, kept } = exit.refused
    if (!kept) {
      await readyIndex(exit).catch(() => undefined)
      tree.keep()
    }
    const where = kept ? '' : `; its files are kept at ${tree.dir}`
    ctx.log(`[${pr.id}] the worker's resolution was refused: ${reason}${where}`)
    return {
      problem: `the worker's resolution was refused: ${reason}${where}`,
      refused: true,
      fields
    }
  }
  // The worktree's index at the merge, as its verify and push read the tree next.
  await readyIndex(exit)
  const merged = await acceptedHead(exit)
  const problem =
    merged === at.head
      ? "the worker's turn left no merge to check"
      : run.verdict.kind !== 'ok'
        ? `the worker's turn ended ${run.verdict.kind}: ${run.verdict.error}`
        : await leftMarkers(ctx, merged, files)
  return { problem: problem && `${problem}; ${await keep(ctx, pr)}`, refused: false, fields }
}

/** The merge turn's task: the PR's, with the merge prompt (files, both sides, the task). */
async function mergeTask(
  ctx: RefreshContext,
  pr: FleetPr,
  tree: Worktree,
  files: string[]
): Promise<Task> {
  const sidesOf = await sides(tree, baseRef(ctx), files)
  return {
    id: pr.id,
    title: pr.title,
    branch: pr.branch,
    prompt: mergePrompt({
      pr: pr.number,
      title: pr.title,
      base: ctx.base,
      branch: pr.branch,
      files,
      ...sidesOf,
      task: taskOfBody(pr.body)
    }),
    source: {
      kind: 'follow-up',
      pr: pr.number,
      fixUps: pr.marker.fixUps + 1,
      ...(pr.marker.issue ? { issue: pr.marker.issue } : {})
    }
  }
}

/** Conflict markers left in the sealed merge's files (read in the fleet's clone, as data). */
async function leftMarkers(
  ctx: RefreshContext,
  merged: string,
  files: string[]
): Promise<string | undefined> {
  const left = await markersIn(ctx.repo.git, merged, files)
  return left.length
    ? `conflict markers are left in ${left.join(', ')} after a worker's turn`
    : undefined
}
