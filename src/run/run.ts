/**
 * One run of the action as its steps share it: the parsed inputs, the runner's context, the
 * GitHub client, the run's stop and its preparation (run/prepare.ts), made once by startRun.
 */
import path from 'node:path'
import { type Config, readConfig } from '../config.js'
import { type RunContext, readContext, runUrl } from '../context.js'
import { type Outcome, type Task } from '../domain.js'
import { emptyOutcome } from '../domain.js'
import { tokenForms } from '../git/git.js'
import { GitHub } from '../github/github.js'
import type { IssueTracking } from '../github/tracking.js'
import type { Io } from '../io.js'
import type { SavedPlan } from '../modes/plan.js'
import { artifactStore, dirStore, type OutcomeStore } from '../modes/store.js'
import { Preparation } from './prepare.js'

export interface Run {
  config: Config
  ctx: RunContext
  io: Io
  env: NodeJS.ProcessEnv
  github?: GitHub
  startedAt: number
  /** This run's stop: aborted on a cancel; every worker, verify and wait of the run listens. */
  stop: AbortController
  apiKey?: string
  /** The key, skills, cage, binary and remote, each made once on first need. */
  prepare: Preparation
}

/** The model key: the input, else a key the environment already holds. Masked the moment it is read. */
function modelKey(config: Config, env: NodeJS.ProcessEnv, io: Io): string | undefined {
  const key = config.apiKey ?? env.ANTHROPIC_API_KEY ?? env.ANTHROPIC_AUTH_TOKEN
  if (key) io.setSecret(key)
  return key
}

/** Inputs parsed, secrets masked, the runner's context read, the GitHub client made. */
export async function startRun(env: NodeJS.ProcessEnv, io: Io): Promise<Run> {
  const { config, deprecations } = readConfig(env)
  for (const sentence of deprecations) io.warning(sentence)
  for (const form of tokenForms(config.githubToken)) io.setSecret(form)
  const apiKey = modelKey(config, env, io)
  const ctx = await readContext(env)
  const github =
    config.githubToken && ctx.owner
      ? GitHub.connect(
          config.githubToken,
          ctx.apiUrl,
          { owner: ctx.owner, repo: ctx.repo },
          io.info
        )
      : undefined
  return {
    config,
    ctx,
    io,
    env,
    startedAt: Date.now(),
    stop: new AbortController(),
    apiKey,
    github,
    prepare: new Preparation({ config, ctx, io, env, apiKey })
  }
}

/** Where shards hand their outcomes to the report: outcomes-dir, else this run's artifacts. */
export function outcomeStore(run: Run): OutcomeStore {
  return run.config.outcomesDir
    ? dirStore(path.resolve(run.ctx.workspace, run.config.outcomesDir))
    : artifactStore(path.join(run.ctx.runnerTemp, 'fleet-outcomes'))
}

/** The issues a run reports to, as one tracker (the GitHub client and this run's URL filled in). */
export function trackingFor(
  run: Run,
  github: GitHub,
  tasks: Task[],
  queue: SavedPlan['queue']
): IssueTracking {
  return github.tracking(tasks, queue, runUrl(run.ctx), run.io.info, run.stop.signal)
}

/** Tasks reported without running, each saying why. */
export function planned(tasks: Task[], error: string): Outcome[] {
  return tasks.map(t => ({
    ...emptyOutcome(t, { status: 'not-started', error }),
    branch: t.branch
  }))
}
