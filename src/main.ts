import * as core from '@actions/core'
import { execFile } from 'node:child_process'
import path from 'node:path'
import { promisify } from 'node:util'
import { type Config, InputError, parseConfig } from './config.js'
import { type RunContext, readContext, runUrl } from './context.js'
import { readEvent } from './event.js'
import { runFleet } from './fleet/engine.js'
import { FAILING, type Outcome } from './fleet/outcome.js'
import { emptyOutcome } from './fleet/pool.js'
import { createClient } from './github/client.js'
import { IssueTracking } from './github/tracking.js'
import { outputs } from './report/results.js'
import { summaryMarkdown } from './report/summary.js'
import type { Task } from './tasks/task.js'
import { planRequest } from './triggers.js'
import { resolveClaude } from './worker/install.js'
import { type Progress, stopAllWorkers } from './worker/spawn.js'

const exec = promisify(execFile)

/** The edges where the action and the CLI differ: logging and reporting. */
export interface Io {
  info(message: string): void
  warning(message: string): void
  setSecret(secret: string): void
  group<T>(name: string, fn: () => Promise<T>): Promise<T>
  report(outcomes: Outcome[], note?: string): Promise<void>
  onProgress?: (task: Task, progress: Progress) => void
}

export const actionsIo: Io = {
  info: core.info,
  warning: core.warning,
  setSecret: core.setSecret,
  group: core.group,
  async report(outcomes, note) {
    for (const [name, value] of Object.entries(outputs(outcomes))) core.setOutput(name, value)
    await core.summary.addRaw(summaryMarkdown(outcomes, note)).write()
  },
  onProgress: (task, p) => core.info(`[${task.id}] turn ${p.turn}, ${p.outputTokens} output tokens`)
}

/** The model key: the input, else a key the environment already holds. Masked the moment it is read. */
function modelKey(config: Config, env: NodeJS.ProcessEnv, io: Io): string | undefined {
  const key = config.apiKey ?? env.ANTHROPIC_API_KEY ?? env.ANTHROPIC_AUTH_TOKEN
  if (key) io.setSecret(key)
  return key
}

/** Where to push: the checkout's origin, else the repository on the server. */
async function remoteUrlOf(ctx: RunContext): Promise<string> {
  const origin = await exec('git', ['-C', ctx.workspace, 'remote', 'get-url', 'origin']).then(
    r => r.stdout.trim(),
    () => ''
  )
  return origin || `${ctx.serverUrl}/${ctx.owner}/${ctx.repo}.git`
}

/** The whole flow, from inputs and event to reported outcomes. */
export async function fleetAction(env: NodeJS.ProcessEnv, io: Io): Promise<Outcome[]> {
  const startedAt = Date.now()
  const config = parseConfig(env)
  const apiKey = modelKey(config, env, io)
  if (config.githubToken) io.setSecret(config.githubToken)
  const ctx = await readContext(env)
  const request = readEvent(ctx.eventName, ctx.payload, {
    hasTasks: config.tasks.trim() !== '' || config.tasksFile !== undefined,
    triggerPhrase: config.triggerPhrase,
    queueLabel: config.queueLabel
  })
  if (request.kind === 'ignore') {
    io.info(`Nothing to do: ${request.reason}.`)
    await io.report([], `Nothing to do: ${request.reason}.`)
    return []
  }
  const repo = { owner: ctx.owner, repo: ctx.repo }
  const octokit = config.githubToken && ctx.owner ? createClient(config.githubToken, ctx.apiUrl, io.info) : undefined
  const github = octokit ? { octokit, repo } : undefined
  const plan = await planRequest(request, { config, ctx, github, log: io.info })
  const { tasks } = plan
  if (tasks.length === 0 && plan.refused.length === 0) {
    if (request.kind === 'tasks') {
      throw new InputError('tasks', "no tasks given: write one prompt per line, or a YAML list, in 'tasks' or in the file named by 'tasks-file'")
    }
    await io.report([], 'Nothing to do: no queued issues.')
    return []
  }
  io.info(`${tasks.length} tasks: ${tasks.map(t => t.id).join(', ')}`)
  if (config.dryRun || tasks.length === 0) {
    const planned = tasks.map(t => ({ ...emptyOutcome(t, { status: 'not-started', error: 'dry-run: planned, not run' }), branch: t.branch }))
    const note = tasks.length ? 'Dry run: the tasks below were planned; no worker ran and nothing was pushed.' : undefined
    await io.report([...plan.refused, ...planned], note)
    return [...plan.refused, ...planned]
  }
  if (!apiKey) {
    throw new InputError('api-key', 'no model key: pass a repository secret, e.g. api-key: ${{ secrets.ANTHROPIC_API_KEY }}')
  }
  const claude = await io.group('Worker binary', () =>
    resolveClaude({ claudePath: config.claudePath, pathVar: env.PATH, installDir: path.join(ctx.runnerTemp, 'fleet-worker-claude'), log: io.info })
  )
  io.info(`claude ${claude.version} at ${claude.file}`)

  const tracking = github ? new IssueTracking(github.octokit, repo, tasks, plan.queue, runUrl(ctx), io.info) : undefined
  await tracking?.start()
  let deadline = startedAt + config.deadlineMs
  const byId = new Map(tasks.map(t => [t.id, t]))
  const onSigterm = () => {
    io.warning('Cancelled: no new worker starts; stopping the running ones and reporting every task.')
    deadline = 0
    stopAllWorkers()
  }
  process.once('SIGTERM', onSigterm)
  try {
    const { outcomes } = await runFleet({
      config,
      tasks,
      remoteUrl: await remoteUrlOf(ctx),
      gitToken: config.githubToken,
      root: path.join(ctx.runnerTemp, 'fleet-worker', ctx.runId ?? String(process.pid)),
      claude: claude.file,
      apiKey,
      github,
      runUrl: runUrl(ctx),
      deadline: () => deadline,
      log: io.info,
      onStart: task => {
        io.info(`[${task.id}] started on ${task.branch}`)
        tracking?.running(task)
      },
      onProgress: io.onProgress,
      onOutcome: o => {
        io.info(`[${o.id}] ${o.status}${o.prUrl ? ` ${o.prUrl}` : ''}${o.error ? `: ${o.error}` : ''}`)
        tracking?.finished(byId.get(o.id), o)
      }
    })
    await tracking?.finish()
    const all = [...plan.refused, ...outcomes]
    await io.report(all)
    return all
  } finally {
    process.off('SIGTERM', onSigterm)
  }
}

/** The action's entry: the one place that fails the step. */
export async function run(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  try {
    const outcomes = await fleetAction(env, actionsIo)
    const bad = outcomes.filter(o => FAILING.includes(o.status))
    if (bad.length > 0) {
      core.setFailed(`${bad.length} of ${outcomes.length} tasks did not land: ${bad.map(o => `${o.id} (${o.status})`).join(', ')}`)
    }
  } catch (error: unknown) {
    core.setFailed(error instanceof Error ? error.message : String(error))
  }
}
