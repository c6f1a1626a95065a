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
import { outputs } from './report/results.js'
import { summaryMarkdown } from './report/summary.js'
import { tasksFromInputs } from './tasks/from-inputs.js'
import { resolveClaude } from './worker/install.js'
import { stopAllWorkers } from './worker/spawn.js'

const exec = promisify(execFile)

/** The model key: the input, else a key the environment already holds. Masked the moment it is read. */
function modelKey(config: Config, env: NodeJS.ProcessEnv): string | undefined {
  const key = config.apiKey ?? env.ANTHROPIC_API_KEY ?? env.ANTHROPIC_AUTH_TOKEN
  if (key) core.setSecret(key)
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

function report(outcomes: Outcome[], note?: string): Promise<unknown> {
  for (const [name, value] of Object.entries(outputs(outcomes))) core.setOutput(name, value)
  return core.summary.addRaw(summaryMarkdown(outcomes, note)).write()
}

async function fleetAction(env: NodeJS.ProcessEnv): Promise<Outcome[]> {
  const startedAt = Date.now()
  const config = parseConfig(env)
  const apiKey = modelKey(config, env)
  if (config.githubToken) core.setSecret(config.githubToken)
  const ctx = await readContext(env)
  const request = readEvent(ctx.eventName, ctx.payload, {
    hasTasks: config.tasks.trim() !== '' || config.tasksFile !== undefined,
    triggerPhrase: config.triggerPhrase,
    queueLabel: config.queueLabel
  })
  if (request.kind === 'ignore') {
    core.notice(`Nothing to do: ${request.reason}.`)
    await report([], `Nothing to do: ${request.reason}.`)
    return []
  }
  if (request.kind !== 'tasks') {
    throw new Error(`the ${request.kind} trigger is not built yet; give 'tasks' or 'tasks-file'`)
  }
  const tasks = await tasksFromInputs(config, ctx.workspace)
  if (tasks.length === 0) {
    throw new InputError('tasks', "no tasks given: write one prompt per line, or a YAML list, in 'tasks' or in the file named by 'tasks-file'")
  }
  core.info(`${tasks.length} tasks: ${tasks.map(t => t.id).join(', ')}`)
  if (config.dryRun) {
    const planned = tasks.map(t => ({ ...emptyOutcome(t, { status: 'not-started', error: 'dry-run: planned, not run' }), branch: t.branch }))
    await report(planned, 'Dry run: the tasks below were planned; no worker ran and nothing was pushed.')
    return planned
  }
  if (!apiKey) {
    throw new InputError('api-key', 'no model key: pass a repository secret, e.g. api-key: ${{ secrets.ANTHROPIC_API_KEY }}')
  }
  const claude = await core.group('Worker binary', () =>
    resolveClaude({ claudePath: config.claudePath, pathVar: env.PATH, installDir: path.join(ctx.runnerTemp, 'fleet-worker-claude'), log: core.info })
  )
  core.info(`claude ${claude.version} at ${claude.file}`)
  const octokit = config.githubToken ? createClient(config.githubToken, ctx.apiUrl, core.info) : undefined
  const onSigterm = () => {
    core.warning('Cancelled: stopping every worker and reporting what happened.')
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
      github: octokit ? { octokit, repo: { owner: ctx.owner, repo: ctx.repo } } : undefined,
      runUrl: runUrl(ctx),
      deadline: startedAt + config.deadlineMs,
      log: core.info,
      onStart: task => core.info(`[${task.id}] started on ${task.branch}`),
      onProgress: (task, p) => core.info(`[${task.id}] turn ${p.turn}, ${p.outputTokens} output tokens`),
      onOutcome: o => core.info(`[${o.id}] ${o.status}${o.prUrl ? ` ${o.prUrl}` : ''}${o.error ? `: ${o.error}` : ''}`)
    })
    await report(outcomes)
    return outcomes
  } finally {
    process.off('SIGTERM', onSigterm)
  }
}

/** The action's entry: the one place that fails the step. */
export async function run(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  try {
    const outcomes = await fleetAction(env)
    const bad = outcomes.filter(o => FAILING.includes(o.status))
    if (bad.length > 0) {
      core.setFailed(`${bad.length} of ${outcomes.length} tasks did not land: ${bad.map(o => `${o.id} (${o.status})`).join(', ')}`)
    }
  } catch (error: unknown) {
    core.setFailed(error instanceof Error ? error.message : String(error))
  }
}
