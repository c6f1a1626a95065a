import { lstatSync, mkdirSync, writeFileSync } from 'node:fs'
import { cp } from 'node:fs/promises'
import path from 'node:path'
import { setTimeout as wait } from 'node:timers/promises'
import type { Task } from '../domain.js'
import { workerArgs, workerPrompt, workerSettings } from './args.js'
import type { Gateway } from '../gateway/gateway.js'
import { workerEnv } from './env.js'
import type { Isolation } from '../cage/isolation.js'
import type { TaskGit } from './exit.js'
import type { WorkerOptions } from './options.js'
import { addUsage, type Usage, ZERO_USAGE } from '../domain.js'
import { judge, type Verdict, type WorkerExit } from './result.js'
import { nextStep } from './retry.js'
import type { Progress } from './spawn.js'
import { removeTree } from '../process/remove-tree.js'

/** The model gateway as workers reach it: the key they hold is a token of this gateway. */
export interface WorkerGateway {
  gateway: Gateway
  /** The gateway's URL as the worker sees it (a container reaches it on the bridge address). */
  url: string
}

export interface WorkerContext {
  config: WorkerOptions
  claude: string
  model: WorkerGateway
  /** Per-run directory for config dirs, homes and transcripts. */
  root: string
  host: NodeJS.ProcessEnv
  isRoot: boolean
  log: (message: string) => void
  onProgress?: (task: Task, progress: Progress) => void
  sleep?: (ms: number) => Promise<void>
  /** Skill folders (absolute) copied into every worker's config dir. */
  skills?: string[]
  /** The worker's stdin for a task; default workerPrompt (the planner frames its own). */
  prompt?: (task: Task) => string
  /** Where its workers run: the run's sandbox, container or process (prepareIsolation). */
  isolation: Isolation
  /**
   * The run's stop, aborted with its reason on a cancel: no worker starts after it, running ones
   * stop, a retry's backoff ends early. Absent: nothing stops the run but its bounds.
   */
  signal?: AbortSignal
  /**
   * The run's deadline (epoch ms, read when it matters: a cancel moves it): no worker starts after
   * it, neither a retry nor a fix-up turn. A running one runs on to its own timeout. Absent: none.
   */
  deadline?: () => number
}

/** The sentence for work the run's deadline kept from starting. */
export const DEADLINE_REACHED = 'the run reached its deadline (timeouts: deadline)'

/**
 * Whether the run's deadline has passed `inMs` from now, as the sentence saying so; undefined when
 * it has not, or when the run was cancelled (the cancel is the reason then, and says so itself).
 */
export function pastDeadline(ctx: WorkerContext, inMs = 0): string | undefined {
  if (!ctx.deadline || ctx.signal?.aborted) return undefined
  return Date.now() + inMs >= ctx.deadline() ? DEADLINE_REACHED : undefined
}

export interface WorkerRun {
  verdict: Verdict
  turns: number
  usage: Usage
  attempts: number
  model?: string
  finalMessage?: string
  /** The result's `structured_output`, when the worker answered through --json-schema. */
  structuredOutput?: unknown
  transcripts: string[]
  /** The environment given to the worker, for running verify in the same cage (minus the key). */
  env: Record<string, string>
}

/** A backoff a cancel cuts short: the next spawn then refuses to start the worker. */
const sleepUnless = (signal: AbortSignal | undefined) => (ms: number) =>
  wait(ms, undefined, { signal }).catch(() => undefined)

/** Said once per process: a person reading the log should know the CLI was told it is sandboxed. */
let sandboxNoted = false
function noteSandbox(ctx: WorkerContext): void {
  if (!ctx.isRoot || !ctx.isolation.keepsRunnerUser || sandboxNoted) return
  sandboxNoted = true
  ctx.log(
    'Running as root: workers get IS_SANDBOX=1, without which claude refuses bypassPermissions as root.'
  )
}

/**
 * A fresh cage for one attempt: empty config dir (with seeded settings), temp HOME and TMPDIR.
 * Made with the synchronous calls (a few small local files: each promise call is a trip through
 * the thread pool, which a batch's transcripts keep busy); a cage dir left by an earlier run is
 * removed through the pool, as it may be large.
 */
async function cage(ctx: WorkerContext, task: Task, attempt: number, round: string) {
  const dir = path.join(ctx.root, 'workers', `${task.id}${round}.${attempt}`)
  if (lstatSync(dir, { throwIfNoEntry: false })) await removeTree(dir)
  const paths = {
    configDir: path.join(dir, 'config'),
    home: path.join(dir, 'home'),
    tmp: path.join(dir, 'tmp')
  }
  for (const p of Object.values(paths)) mkdirSync(p, { recursive: true })
  const settings = path.join(paths.configDir, 'settings.json')
  writeFileSync(settings, JSON.stringify(workerSettings(ctx.config, task), null, 2))
  // Claude Code reads user skills from <config dir>/skills/<name>/SKILL.md.
  for (const skill of ctx.skills ?? []) {
    await cp(skill, path.join(paths.configDir, 'skills', path.basename(skill)), {
      recursive: true,
      dereference: false
    })
  }
  return {
    paths,
    settings,
    transcript: path.join(ctx.root, 'transcripts', `${task.id}${round}.${attempt}.jsonl`)
  }
}

interface Attempt {
  exit: WorkerExit
  /** What the endpoint reported, as the gateway read it: not the CLI's own count. */
  usage: Usage
  verdict: Verdict
  env: Record<string, string>
  transcript: string
}

/** One worker process: its cage, a gateway pass, the launch, and how it went. */
async function runAttempt(
  ctx: WorkerContext,
  task: Task,
  cwd: string,
  at: { round: string; attempt: number; model: string | undefined; sealing?: TaskGit }
): Promise<Attempt> {
  const { config } = ctx
  const { attempt, model } = at
  const { paths, settings, transcript } = await cage(ctx, task, attempt, at.round)
  // A container worker is never root (uid 1001 or the runner's), so it needs no IS_SANDBOX.
  const isRoot = ctx.isRoot && ctx.isolation.keepsRunnerUser
  const pass = ctx.model.gateway.register(
    task.id,
    transcript.replace(/\.jsonl$/, '.requests.jsonl')
  )
  const env = workerEnv({
    config,
    apiKey: pass.token,
    baseUrl: ctx.model.url,
    model,
    paths,
    host: ctx.host,
    isRoot
  })
  env.GIT_AUTHOR_NAME = env.GIT_COMMITTER_NAME = config.commitAuthor.name
  env.GIT_AUTHOR_EMAIL = env.GIT_COMMITTER_EMAIL = config.commitAuthor.email
  const exit = await ctx.isolation.launch({
    taskId: task.id,
    attempt,
    claude: ctx.claude,
    args: settingsPath => workerArgs(config, task, settingsPath),
    settings,
    paths,
    env,
    cwd,
    stdin: (ctx.prompt ?? workerPrompt)(task),
    timeoutMs: config.timeoutMs,
    transcriptPath: transcript,
    onProgress: p => ctx.onProgress?.(task, p),
    host: ctx.host,
    log: ctx.log,
    modelUrl: ctx.model.url,
    signal: ctx.signal,
    sealing: at.sealing
  })
  await ctx.model.gateway.retire(pass)
  const verdict: Verdict =
    pass.stoppedBy && !exit.timedOut
      ? { kind: 'failed', error: pass.stoppedBy.message, retryable: false }
      : judge(exit, {
          timeoutMinutes: config.timeoutMs / 60_000,
          maxTurns: task.maxTurns ?? config.maxTurns
        })
  return { exit, usage: pass.usage, verdict, env, transcript }
}

/**
 * The verdict to keep: a cancel during the backoff ends the task (`cancelled`), and a retry the
 * deadline would start too late is not waited for; the attempts are the workers that ran.
 */
function finalVerdict(
  verdict: Verdict,
  stop: { retrying: boolean; signal?: AbortSignal; late?: string }
): Verdict {
  if (verdict.kind !== 'failed') return verdict
  if (stop.late)
    return { ...verdict, error: `${verdict.error}; ${stop.late} before the next attempt` }
  return stop.retrying
    ? {
        kind: 'cancelled',
        error: `${verdict.error}; ${String(stop.signal?.reason)} before the next attempt`
      }
    : verdict
}

/** Runs a task's worker in `cwd`, again with backoff on overload, then on the small model. */
export async function runWorker(
  ctx: WorkerContext,
  task: Task,
  cwd: string,
  /** Names a later round's cages and transcripts apart (the fix-up turn: '.fix'). */
  round = '',
  /** The task whose work leaves each attempt's cage sealed (worker/exit.ts); none for the planner. */
  sealing?: TaskGit
): Promise<WorkerRun> {
  const { config } = ctx
  mkdirSync(path.join(ctx.root, 'transcripts'), { recursive: true })
  noteSandbox(ctx)
  let usage = ZERO_USAGE
  let turns = 0
  let model = task.model ?? config.model
  const transcripts: string[] = []
  for (let attempt = 1; ; attempt++) {
    const { exit, verdict, env, ...ran } = await runAttempt(ctx, task, cwd, {
      round,
      attempt,
      model,
      sealing
    })
    transcripts.push(ran.transcript)
    usage = addUsage(usage, ran.usage)
    turns += exit.result?.num_turns ?? 0
    const next = nextStep(attempt, verdict, {
      maxAttempts: config.maxAttempts,
      baseDelayMs: config.retryDelayMs,
      smallModel: config.smallModel
    })
    const late = next.retry ? pastDeadline(ctx, next.delayMs) : undefined
    if (late) ctx.log(`[${task.id}] attempt ${attempt} failed; no retry: ${late} first`)
    if (next.retry && !late) {
      const reason = verdict.kind === 'failed' ? verdict.error : verdict.kind
      const on = next.overflow ? ` on ${config.smallModel}` : ''
      ctx.log(
        `[${task.id}] attempt ${attempt} failed (${reason}); retrying in ${(next.delayMs / 1000).toFixed(1)}s${on}`
      )
      await (ctx.sleep ?? sleepUnless(ctx.signal))(next.delayMs)
    }
    if (!next.retry || late || ctx.signal?.aborted) {
      const safeEnv = { ...env }
      delete safeEnv.ANTHROPIC_API_KEY
      delete safeEnv.ANTHROPIC_AUTH_TOKEN
      return {
        verdict: finalVerdict(verdict, { retrying: next.retry, signal: ctx.signal, late }),
        turns,
        usage,
        attempts: attempt,
        model,
        finalMessage: exit.result?.result,
        structuredOutput: exit.result?.structured_output,
        transcripts,
        env: safeEnv
      }
    }
    if (next.overflow) model = config.smallModel
  }
}
