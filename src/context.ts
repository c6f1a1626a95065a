import { readFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'

/** What the runner tells the action about where it runs, read once from the environment. */
export interface RunContext {
  eventName: string
  payload: Record<string, unknown>
  owner: string
  repo: string
  workspace: string
  serverUrl: string
  apiUrl: string
  runnerTemp: string
  runId?: string
  outputPath?: string
  summaryPath?: string
}

export async function readContext(env: NodeJS.ProcessEnv): Promise<RunContext> {
  const [owner = '', repo = ''] = (env.GITHUB_REPOSITORY ?? '').split('/')
  const eventPath = env.GITHUB_EVENT_PATH
  const payload = eventPath
    ? (JSON.parse(await readFile(eventPath, 'utf8')) as Record<string, unknown>)
    : {}
  return {
    eventName: env.GITHUB_EVENT_NAME ?? 'workflow_dispatch',
    payload,
    owner,
    repo,
    workspace: env.GITHUB_WORKSPACE ?? process.cwd(),
    serverUrl: (env.GITHUB_SERVER_URL ?? 'https://github.com').replace(/\/+$/, ''),
    apiUrl: (env.GITHUB_API_URL ?? 'https://api.github.com').replace(/\/+$/, ''),
    runnerTemp: env.RUNNER_TEMP ?? path.join(os.tmpdir(), 'fleet-worker'),
    runId: env.GITHUB_RUN_ID,
    outputPath: env.GITHUB_OUTPUT,
    summaryPath: env.GITHUB_STEP_SUMMARY
  }
}

export function runUrl(ctx: RunContext): string | undefined {
  return ctx.runId && ctx.owner
    ? `${ctx.serverUrl}/${ctx.owner}/${ctx.repo}/actions/runs/${ctx.runId}`
    : undefined
}
