import path from 'node:path'
import type { Worktree } from '../git/repo.js'
import type { Task } from '../domain.js'
import type { WorkerContext } from '../worker/run.js'
import { fixUpTask } from '../worker/args.js'
import { addUsage } from '../domain.js'
import { runWorker } from '../worker/run.js'
import { commitLeftovers, land, type LandContext } from './land.js'
import type { Outcome, VerifyResult } from '../domain.js'
import { emptyOutcome, type Slot } from './pool.js'
import { describeError } from '../errors.js'
import { runSetup } from './setup.js'

export interface TaskContext {
  worker: WorkerContext
  land: LandContext
  now?: () => number
}

function startRef(task: Task, base: string): string {
  return task.source.kind === 'follow-up'
    ? `refs/remotes/origin/${task.branch}`
    : `refs/remotes/origin/${base}`
}

/**
 * A worker may switch branches (`git checkout -B main`, `-b feature`): its work is where its HEAD
 * is, so the task's branch is moved there and HEAD put back on it (index and files untouched).
 * Only the task's branch is ever pushed; without this its commits on another branch were lost.
 */
async function followHead(tree: Worktree, branch: string): Promise<void> {
  // Most workers stay on their branch: one git call then, not three (own overhead per task).
  const on = await tree.git.exec(['symbolic-ref', '--quiet', 'HEAD'], { allowFailure: true })
  if (on.exitCode === 0 && on.stdout.trim() === `refs/heads/${branch}`) return
  const head = await tree.git.tryRevParse('HEAD')
  if (!head) return
  await tree.git.exec(['update-ref', `refs/heads/${branch}`, head])
  await tree.git.exec(['symbolic-ref', 'HEAD', `refs/heads/${branch}`])
}

/** The `setup` input in the worktree, before the worker; why the task must end, when it must. */
async function setUp(
  ctx: TaskContext,
  task: Task,
  tree: Worktree
): Promise<{ error: string; cancelled?: boolean } | undefined> {
  const { config } = ctx.land
  if (!config.setup) return undefined
  const setup = await runSetup(config, {
    taskId: task.id,
    tree,
    command: config.setup,
    cageDir: path.join(ctx.worker.root, 'workers', `${task.id}.setup`),
    host: ctx.worker.host,
    log: ctx.worker.log,
    isolation: ctx.worker.isolation,
    signal: ctx.worker.signal
  })
  return setup.error === undefined ? undefined : { error: setup.error, cancelled: setup.cancelled }
}

const passed = (v: VerifyResult) => v.exitCode === 0 && !v.timedOut

/** What the worker's part of a task leaves for landing: a finished outcome, or work to push. */
type Worked =
  | { kind: 'done'; outcome: Outcome }
  | { kind: 'partial'; outcome: Outcome; error: string }
  | { kind: 'land'; outcome: Outcome }

/**
 * The part of a task that holds a worker slot: worktree -> worker -> verify -> commit. The
 * worktree is removed at the end; its commits stay on the task's branch in the fleet's clone.
 */
async function work(ctx: TaskContext, task: Task, startedAt: number): Promise<Worked> {
  await using tree = await ctx.land.repo.worktree(
    task.id,
    task.branch,
    startRef(task, ctx.land.base)
  )
  try {
    return await workIn(ctx, task, tree, startedAt)
  } catch (error) {
    // Awaited here: the worktree is disposed when this block exits, and salvage still needs it.
    return await salvage(ctx, task, tree, startedAt, error)
  }
}

/**
 * Whatever threw once the worktree existed: the task fails with the cause, and its work is
 * committed (a stale index.lock cleared first) to be pushed or bundled like any partial work. If
 * even that fails, the worktree is kept on disk and the error says where: nothing is deleted.
 */
async function salvage(
  ctx: TaskContext,
  task: Task,
  tree: Worktree,
  startedAt: number,
  error: unknown
): Promise<Worked> {
  const cause = describeError(error)
  ctx.worker.log(`[${task.id}] the task broke off: ${cause}`)
  const outcome: Outcome = {
    ...emptyOutcome(task, { status: 'failed' }),
    startedAt
  }
  const reason = `the fleet could not finish this task: ${cause}`
  try {
    await followHead(tree, task.branch)
    const work = `fleet(${task.id}): partial work (failed)`
    if (await commitLeftovers(tree, task, ctx.land.config, work))
      return { kind: 'partial', outcome, error: reason }
    return { kind: 'done', outcome: { ...outcome, error: reason } }
  } catch (commitError) {
    tree.keep()
    const why = describeError(commitError)
    ctx.worker.log(`[${task.id}] could not commit its work: ${why}`)
    return {
      kind: 'done',
      outcome: {
        ...outcome,
        error: `${reason}; committing its work also failed (${why}), so its worktree is kept at ${tree.dir}`
      }
    }
  }
}

type WorkerRun = Awaited<ReturnType<typeof runWorker>>

/** A worker that did not finish well: its work still pushed (no PR), so nothing is lost. */
async function keepFailedWork(
  ctx: TaskContext,
  task: Task,
  tree: Worktree,
  outcome: Outcome,
  verdict: Exclude<WorkerRun['verdict'], { kind: 'ok' }>
): Promise<Worked> {
  const status = verdict.kind
  const subject = `fleet(${task.id}): partial work (${status})`
  const failed = { ...outcome, status, error: verdict.error }
  return (await commitLeftovers(tree, task, ctx.land.config, subject))
    ? { kind: 'partial', outcome: failed, error: verdict.error }
    : { kind: 'done', outcome: failed }
}

/**
 * The task's verify in the worker's cage; when it fails and verify-fix-up is on, one fix-up turn
 * (the worker again, told what the check printed) and verify once more. Adds the turn to `outcome`.
 */
async function verifyWithFixUp(
  ctx: TaskContext,
  task: Task,
  tree: Worktree,
  run: WorkerRun,
  outcome: Outcome
): Promise<VerifyResult | { verify: VerifyResult; stopped: string } | undefined> {
  const { config } = ctx.land
  const command = task.verify ?? config.verify
  const check = (env: Record<string, string>): Promise<VerifyResult> | undefined =>
    command
      ? ctx.worker.isolation.run({
          taskId: task.id,
          label: 'verify',
          command,
          cwd: tree.dir,
          env,
          timeoutMs: config.verifyTimeoutMs,
          host: ctx.worker.host,
          log: ctx.worker.log,
          signal: ctx.worker.signal
        })
      : undefined
  let verify = await check(run.env)
  if (verify && !passed(verify) && config.verifyFixUp) {
    ctx.worker.log(`[${task.id}] verify failed (exit ${verify.exitCode}); one fix-up turn`)
    outcome.verifyBeforeFixUp = verify
    const fix = await runWorker(ctx.worker, fixUpTask(task, verify), tree.dir, '.fix')
    await followHead(tree, task.branch)
    outcome.turns += fix.turns
    outcome.usage = addUsage(outcome.usage, fix.usage)
    outcome.attempts += fix.attempts
    outcome.finalMessage = fix.finalMessage ?? outcome.finalMessage
    if (fix.verdict.kind === 'cancelled') return { verify, stopped: fix.verdict.error }
    if (fix.verdict.kind === 'ok') verify = await check(fix.env)
  }
  if (verify?.cancelled !== undefined)
    return { verify, stopped: `${verify.cancelled} during verify '${verify.command}'` }
  return verify
}

/**
 * The run's stop ended the task's verify (or its fix-up turn): the task ends `cancelled`, and the
 * worker's work is committed and pushed as any partial work is (no PR), so nothing is lost.
 */
async function keepStoppedWork(
  ctx: TaskContext,
  task: Task,
  tree: Worktree,
  outcome: Outcome,
  stop: { verify: VerifyResult; stopped: string }
): Promise<Worked> {
  const subject = `fleet(${task.id}): partial work (cancelled)`
  const stopped = { ...outcome, status: 'cancelled' as const, verify: stop.verify }
  return (await commitLeftovers(tree, task, ctx.land.config, subject))
    ? { kind: 'partial', outcome: stopped, error: stop.stopped }
    : { kind: 'done', outcome: { ...stopped, error: stop.stopped } }
}

/** The outcome to land: opened, or verify-failed with the reason (before its final duration). */
function landing(outcome: Outcome, verify: VerifyResult | undefined, durationMs: number): Outcome {
  const verified = !verify || passed(verify)
  // The PR body is written before the outcome is final: give it the time spent so far, not 0.
  const draft: Outcome = {
    ...outcome,
    status: verified ? 'pr-opened' : 'verify-failed',
    verify,
    durationMs
  }
  if (verify && !verified) {
    const fixUp = outcome.verifyBeforeFixUp ? ' after one fix-up turn' : ''
    draft.error = verify.timedOut
      ? `verify '${verify.command}' ran past verify-timeout-minutes${fixUp}`
      : verify.signal
        ? `verify '${verify.command}' was killed by ${verify.signal}${fixUp}`
        : `verify '${verify.command}' exited with ${verify.exitCode}${fixUp}`
  }
  return draft
}

/** worker -> verify -> commit, in the task's worktree. */
async function workIn(
  ctx: TaskContext,
  task: Task,
  tree: Worktree,
  startedAt: number
): Promise<Worked> {
  const now = ctx.now ?? Date.now
  const setup = await setUp(ctx, task, tree)
  if (setup) {
    const status = setup.cancelled ? 'cancelled' : 'failed'
    return {
      kind: 'done',
      outcome: { ...emptyOutcome(task, { status, error: setup.error }), startedAt }
    }
  }
  const run = await runWorker(ctx.worker, task, tree.dir)
  await followHead(tree, task.branch)
  const outcome: Outcome = {
    id: task.id,
    title: task.title,
    source: task.source,
    status: 'failed',
    turns: run.turns,
    usage: run.usage,
    model: run.model,
    attempts: run.attempts,
    finalMessage: run.finalMessage,
    durationMs: 0,
    startedAt
  }
  if (run.verdict.kind !== 'ok') return keepFailedWork(ctx, task, tree, outcome, run.verdict)
  const verify = await verifyWithFixUp(ctx, task, tree, run, outcome)
  if (verify && 'stopped' in verify) return keepStoppedWork(ctx, task, tree, outcome, verify)
  if (!(await commitLeftovers(tree, task, ctx.land.config)))
    return { kind: 'done', outcome: { ...outcome, status: 'no-changes', verify } }
  return { kind: 'land', outcome: landing(outcome, verify, now() - startedAt) }
}

/**
 * One task's life: the worker's part in a slot, then push -> PR outside it, ending in one outcome.
 * `slot` defaults to running at once (a single task, or a caller without a pool).
 */
export async function runTask(
  ctx: TaskContext,
  task: Task,
  slot: Slot = fn => fn()
): Promise<Outcome> {
  const now = ctx.now ?? Date.now
  const worked = await slot(() => work(ctx, task, now()))
  const startedAt = worked.outcome.startedAt ?? now()
  const finish = (fields: Partial<Outcome>): Outcome => {
    const endedAt = now()
    return { ...worked.outcome, ...fields, endedAt, durationMs: endedAt - startedAt }
  }
  if (worked.kind === 'done') return finish({})
  if (worked.kind === 'partial') {
    const landed = await land(ctx.land, task, worked.outcome, false)
    // land() keeps the draft's status ('failed' here) when the push worked: only an error says it did not.
    const where = landed.error ?? `its partial work is on branch ${task.branch}`
    return finish({
      branch: landed.branch,
      preserved: landed.preserved,
      error: `${worked.error}; ${where}`
    })
  }
  const landed = await land(ctx.land, task, worked.outcome, true)
  return finish({ ...landed, error: landed.error ?? worked.outcome.error })
}
