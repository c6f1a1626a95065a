import { mkdir } from 'node:fs/promises'
import path from 'node:path'
import type { Worktree } from '../git/repo.js'
import type { Task } from '../domain.js'
import type { WorkerContext } from '../worker/run.js'
import { fixUpTask } from '../worker/args.js'
import { addUsage } from '../domain.js'
import { pastDeadline, runWorker } from '../worker/run.js'
import { land, type LandContext } from './land.js'
import { handOver } from './hand-over.js'
import { acceptedHead, readyIndex, type TaskGit } from '../worker/exit.js'
import { inertCommitMessage } from '../inert-text.js'
import type { Outcome, VerifyResult } from '../domain.js'
import { emptyOutcome } from '../domain.js'
import type { Slot } from './pool.js'
import { describeError } from '../errors.js'
import { runSetup } from './setup.js'
import type { HeldView } from '../cage/views.js'
import { removeTree } from '../process/remove-tree.js'

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

/** The `setup` input in the worktree, before the worker; why the task must end, when it must. */
async function setUp(
  ctx: TaskContext,
  task: Task,
  { tree, exit }: TaskTree
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
    signal: ctx.worker.signal,
    exit
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
 * worktree's removal is begun at the end and not waited for here (`removed`): it runs beside the
 * push, outside the slot, and the task awaits it before its outcome. Its commits stay on the
 * task's branch in the fleet's clone.
 */
async function work(
  ctx: TaskContext,
  task: Task,
  startedAt: number
): Promise<Worked & { start: string; removed: Promise<void> }> {
  // Where views mount (the sandbox, podman's containers), the task's files are a copy-on-write
  // view of the run's one checkout of its start; elsewhere a worktree of its own.
  const { views, viewOwner, viewsHide } = ctx.worker.isolation
  const start = startRef(task, ctx.land.base)
  const tree = views
    ? await ctx.land.repo.view(task.id, task.branch, start, {
        owner: viewOwner,
        workspace: viewsHide
      })
    : await ctx.land.repo.worktree(task.id, task.branch, start)
  let worked: Worked
  try {
    worked = await workInTree(ctx, task, tree, startedAt)
  } catch (error) {
    await tree[Symbol.asyncDispose]()
    throw error
  }
  const removed = Promise.resolve(tree[Symbol.asyncDispose]())
  // Awaited by runTask; handled now, so a failure before that is not an unhandled rejection.
  removed.catch(() => undefined)
  return { ...worked, start: tree.startSha, removed }
}

/** The task's work in its tree, its view held meanwhile (stopped before the tree is removed). */
async function workInTree(
  ctx: TaskContext,
  task: Task,
  tree: Worktree,
  startedAt: number
): Promise<Worked> {
  const exit = taskGit(ctx, task, tree)
  try {
    exit.held = await holdTaskView(ctx, exit)
    return await workIn(ctx, task, { tree, exit }, startedAt)
  } catch (error) {
    // Awaited here: the worktree is removed after this, and salvage still needs it.
    return await salvage(ctx, task, { tree, exit }, startedAt, error)
  } finally {
    // Before the view's layer is removed (tree's disposal, after this).
    await exit.held?.stop()
  }
}

/** The task's git as the action holds it, for its cages' exit (worker/exit.ts). */
function taskGit(ctx: TaskContext, task: Task, tree: Worktree): TaskGit {
  return {
    id: task.id,
    repo: ctx.land.repo.git,
    refs: ctx.land.repo.refs,
    branch: task.branch,
    start: tree.startSha,
    // The worktree was made on the branch at its start (`worktree add -B`, or the view's ref).
    head: tree.startSha,
    adminDir: tree.gitDir,
    view: tree.view,
    keepDir: ctx.land.preserveDir,
    author: ctx.land.config.commitAuthor,
    // The title comes from issue text: nothing in the action's own commit may act once merged.
    message: inertCommitMessage(`fleet(${task.id}): ${task.title}`)
  }
}

/**
 * The task's view held mounted for all its cages, where the isolation can (TaskGit.held). Not
 * after the run's stop: its cages are then not started, and say so themselves.
 */
function holdTaskView(ctx: TaskContext, exit: TaskGit): Promise<HeldView | undefined> {
  const { hold } = ctx.worker.isolation
  const { signal } = ctx.worker
  if (!exit.view || !hold || signal?.aborted) return Promise.resolve(undefined)
  return hold(exit.view, signal)
}

/** The task's worktree and its git as the action holds it. */
interface TaskTree {
  tree: Worktree
  exit: TaskGit
}

/**
 * A fresh HOME, TMPDIR and config dir for one verify (or seal-only) run: nothing a worker left in
 * its own HOME (an `~/.npmrc` with `script-shell=/usr/bin/true`, say) may change a verdict.
 */
async function freshEnv(
  ctx: TaskContext,
  task: Task,
  base: Record<string, string>,
  label: string
): Promise<Record<string, string>> {
  const dir = path.join(ctx.worker.root, 'workers', `${task.id}.${label}`)
  const paths = {
    HOME: path.join(dir, 'home'),
    TMPDIR: path.join(dir, 'tmp'),
    CLAUDE_CONFIG_DIR: path.join(dir, 'config')
  }
  await removeTree(dir)
  await Promise.all(Object.values(paths).map(p => mkdir(p, { recursive: true })))
  return { ...base, ...paths }
}

/**
 * What the task's cages left, as the action accepted it: a refusal ends the task `failed` (the work
 * kept as a bundle, or the worktree kept when not even a bundle was made); otherwise whether the
 * branch has new commits.
 */
async function accepted(
  t: TaskTree
): Promise<{ kind: 'refused'; error: string; preserved?: string } | { kind: 'work' | 'none' }> {
  const refused = t.exit.refused
  if (refused) {
    if (refused.kept) return { kind: 'refused', error: refused.reason, preserved: refused.kept }
    // The kept worktree's index as the branch's last accepted head, for whoever looks at it.
    await readyIndex(t.exit).catch(() => undefined)
    t.tree.keep()
    return { kind: 'refused', error: `${refused.reason}; its files are kept at ${t.tree.keptAt}` }
  }
  return (await acceptedHead(t.exit)) === t.exit.start ? { kind: 'none' } : { kind: 'work' }
}

/** The task's leftovers sealed in its cage, by a run of nothing: after a throw, say. */
async function sealLeftovers(ctx: TaskContext, task: Task, t: TaskTree): Promise<void> {
  const env = await freshEnv(ctx, task, { PATH: '/usr/local/bin:/usr/bin:/bin' }, 'salvage')
  await ctx.worker.isolation.run({
    taskId: task.id,
    label: 'seal',
    command: 'true',
    cwd: t.tree.dir,
    env,
    timeoutMs: 60_000,
    host: ctx.worker.host,
    log: ctx.worker.log,
    sealing: t.exit
  })
}

/**
 * Whatever threw once the worktree existed: the task fails with the cause, and its work is
 * committed (a stale index.lock cleared first) to be pushed or bundled like any partial work. If
 * even that fails, the worktree is kept on disk and the error says where: nothing is deleted.
 */
async function salvage(
  ctx: TaskContext,
  task: Task,
  t: TaskTree,
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
    await sealLeftovers(ctx, task, t)
    const left = await accepted(t)
    if (left.kind === 'work') return { kind: 'partial', outcome, error: reason }
    if (left.kind === 'refused')
      return {
        kind: 'done',
        outcome: { ...outcome, error: `${reason}; ${left.error}`, preserved: left.preserved }
      }
    return { kind: 'done', outcome: { ...outcome, error: reason } }
  } catch (commitError) {
    const { tree } = t
    tree.keep()
    const why = describeError(commitError)
    ctx.worker.log(`[${task.id}] could not commit its work: ${why}`)
    return {
      kind: 'done',
      outcome: {
        ...outcome,
        error: `${reason}; committing its work also failed (${why}), so its ${tree.view ? 'changed files are' : 'worktree is'} kept at ${tree.keptAt}`
      }
    }
  }
}

type WorkerRun = Awaited<ReturnType<typeof runWorker>>

/** A worker that did not finish well: its work still pushed (no PR), so nothing is lost. */
async function keepFailedWork(
  t: TaskTree,
  outcome: Outcome,
  verdict: Exclude<WorkerRun['verdict'], { kind: 'ok' }>
): Promise<Worked> {
  const status = verdict.kind
  const failed = { ...outcome, status, error: verdict.error }
  const left = await accepted(t)
  if (left.kind === 'refused')
    return {
      kind: 'done',
      outcome: { ...failed, error: `${verdict.error}; ${left.error}`, preserved: left.preserved }
    }
  return left.kind === 'work'
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
  t: TaskTree,
  run: WorkerRun,
  outcome: Outcome
): Promise<VerifyResult | { verify: VerifyResult; stopped: string } | undefined> {
  const { config } = ctx.land
  const command = task.verify ?? config.verify
  let runs = 0
  const check = async (env: Record<string, string>): Promise<VerifyResult | undefined> =>
    command
      ? ctx.worker.isolation.run({
          taskId: task.id,
          label: 'verify',
          command,
          cwd: t.tree.dir,
          env: await freshEnv(ctx, task, env, `verify-${++runs}`),
          timeoutMs: config.verifyTimeoutMs,
          host: ctx.worker.host,
          log: ctx.worker.log,
          signal: ctx.worker.signal,
          sealing: t.exit
        })
      : undefined
  let verify = await check(run.env)
  const fixUp = verify && !passed(verify) && config.verifyFixUp && !t.exit.refused
  // A fix-up turn is a worker: none starts after the run's deadline; the work lands as it is.
  const late = fixUp ? pastDeadline(ctx.worker) : undefined
  if (late) {
    ctx.worker.log(`[${task.id}] verify failed; no fix-up turn: ${late}`)
    outcome.error = `no fix-up turn: ${late}`
  }
  if (verify && fixUp && !late) {
    ctx.worker.log(`[${task.id}] verify failed (exit ${verify.exitCode}); one fix-up turn`)
    outcome.verifyBeforeFixUp = verify
    const fix = await runWorker(ctx.worker, fixUpTask(task, verify), t.tree.dir, '.fix', t.exit)
    outcome.turns += fix.turns
    outcome.usage = addUsage(outcome.usage, fix.usage)
    outcome.attempts += fix.attempts
    outcome.finalMessage = fix.finalMessage ?? outcome.finalMessage
    if (fix.verdict.kind === 'cancelled') return { verify, stopped: fix.verdict.error }
    if (fix.verdict.kind === 'ok' && !t.exit.refused) verify = await check(fix.env)
  }
  if (verify?.cancelled !== undefined)
    return { verify, stopped: `${verify.cancelled} during verify '${verify.command}'` }
  return verify
}

/**
 * The run's stop ended the task's verify (or its fix-up turn): the task ends `cancelled`, and the
 * work its cages sealed is pushed as any partial work is (no PR), so nothing is lost.
 */
async function keepStoppedWork(
  t: TaskTree,
  outcome: Outcome,
  stop: { verify: VerifyResult; stopped: string }
): Promise<Worked> {
  const stopped = { ...outcome, status: 'cancelled' as const, verify: stop.verify }
  const left = await accepted(t)
  if (left.kind === 'refused')
    return {
      kind: 'done',
      outcome: { ...stopped, error: `${stop.stopped}; ${left.error}`, preserved: left.preserved }
    }
  return left.kind === 'work'
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
    const failed = verify.timedOut
      ? `verify '${verify.command}' ran past its time limit (timeouts: verify)${fixUp}`
      : verify.signal
        ? `verify '${verify.command}' was killed by ${verify.signal}${fixUp}`
        : `verify '${verify.command}' exited with ${verify.exitCode}${fixUp}`
    // Why no fix-up turn ran, when one would have (the run's deadline).
    draft.error = outcome.error ? `${failed}; ${outcome.error}` : failed
  }
  return draft
}

/**
 * The run's deadline came before this task's worker could start (before its setup, or while setup
 * ran on to its end): the task ends `not-started`, as a task the pool never started does. Setup's
 * files are never work, so nothing is lost.
 */
function lateStart(
  ctx: TaskContext,
  task: Task,
  startedAt: number,
  setup?: string
): Worked | undefined {
  const late = pastDeadline(ctx.worker)
  if (!late) return undefined
  const error = setup
    ? `${late} during setup '${setup}'; no worker ran`
    : `${late} before this task started`
  ctx.worker.log(`[${task.id}] ${error}`)
  return {
    kind: 'done',
    outcome: { ...emptyOutcome(task, { status: 'not-started', error }), startedAt }
  }
}

/** worker -> verify -> commit, in the task's worktree. */
async function workIn(
  ctx: TaskContext,
  task: Task,
  t: TaskTree,
  startedAt: number
): Promise<Worked> {
  const now = ctx.now ?? Date.now
  const notStarted = lateStart(ctx, task, startedAt)
  if (notStarted) return notStarted
  const setup = await setUp(ctx, task, t)
  if (setup) {
    const status = setup.cancelled ? 'cancelled' : 'failed'
    return {
      kind: 'done',
      outcome: { ...emptyOutcome(task, { status, error: setup.error }), startedAt }
    }
  }
  const afterSetup = lateStart(ctx, task, startedAt, ctx.land.config.setup)
  if (afterSetup) return afterSetup
  const workerStartedAt = now()
  const run = await runWorker(ctx.worker, task, t.tree.dir, '', t.exit)
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
    startedAt,
    workerStartedAt
  }
  if (run.verdict.kind !== 'ok') return keepFailedWork(t, outcome, run.verdict)
  const verify = t.exit.refused ? undefined : await verifyWithFixUp(ctx, task, t, run, outcome)
  if (verify && 'stopped' in verify) return keepStoppedWork(t, outcome, verify)
  const left = await accepted(t)
  if (left.kind === 'refused')
    return {
      kind: 'done',
      outcome: { ...outcome, verify, error: left.error, preserved: left.preserved }
    }
  if (left.kind === 'none')
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
  const landed = await landWorked(ctx, task, worked)
  // The worktree's removal, begun when the slot was left, ran beside the landing. Its failure is
  // said in the log and changes nothing of the outcome: the work has landed, or been kept, by now.
  await worked.removed.catch((error: unknown) =>
    ctx.worker.log(`[${task.id}] its files could not all be removed: ${describeError(error)}`)
  )
  const endedAt = now()
  return { ...worked.outcome, ...landed, endedAt, durationMs: endedAt - startedAt }
}

/** What landing the work changes in the task's outcome: push -> PR, or the hand-over. */
async function landWorked(
  ctx: TaskContext,
  task: Task,
  worked: Worked & { start: string }
): Promise<Partial<Outcome>> {
  if (worked.kind === 'done') return {}
  const dir = ctx.land.handOver
  if (dir) {
    const pr = worked.kind === 'land'
    const error = pr
      ? worked.outcome.error
      : `${worked.error}; its partial work is handed to mode: land`
    const draft = { ...worked.outcome, error }
    return handOver({ ...ctx.land, handOver: dir }, task, { ...worked, outcome: draft, pr })
  }
  if (worked.kind === 'partial') {
    const landed = await land(ctx.land, task, worked.outcome, false)
    // land() keeps the draft's status ('failed' here) when the push worked: only an error says it did not.
    const where = landed.error ?? `its partial work is on branch ${task.branch}`
    return {
      branch: landed.branch,
      preserved: landed.preserved,
      error: `${worked.error}; ${where}`
    }
  }
  const landed = await land(ctx.land, task, worked.outcome, true)
  return { ...landed, error: landed.error ?? worked.outcome.error }
}
