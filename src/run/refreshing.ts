// Keeping fleet PRs fresh, as the action takes it: a push to a base (a merge, say), or update-prs on
// dispatch or schedule. Band 6 (docs/architecture.md): it reads the run's context and hands
// fleet/refresh-run.ts plain options. Idle costs one API listing: no clone, no cage, no binary.
import path from 'node:path'
import type { Config } from '../config.js'
import { type RunContext, runUrl } from '../context.js'
import type { Outcome } from '../domain.js'
import type { Request } from '../event.js'
import { outcomeOf } from '../fleet/refresh.js'
import { refreshFleet, type RefreshOptions } from '../fleet/refresh-run.js'
import type { GitHub } from '../github/github.js'
import type { FleetPr } from '../github/fleet-prs.js'
import type { Io } from '../io.js'
import { mergeOrder, type OpenFleetPr, refreshSection, sharing } from '../report/refresh.js'
import type { Preparation } from './prepare.js'
import { recordTurns } from './spend.js'

export type Refresh = Extract<Request, { kind: 'refresh' }>

/** What the action's run hands the refresh (as the planner gets it: src/planning.ts). */
export interface RefreshAction {
  config: Config
  ctx: RunContext
  io: Io
  env: NodeJS.ProcessEnv
  github?: GitHub
  apiKey?: string
  /**
   * The run's cage, binary and remote, prepared as the fleet's workers' are: the cage only when a
   * PR is there to bring up to date, the binary only when a conflict needs a worker turn.
   */
  prepare: Pick<Preparation, 'claude' | 'remoteUrl' | 'isolation'>
  signal?: AbortSignal
}

/** The base whose PRs are refreshed: the pushed branch, else base-branch, else the default branch. */
async function baseOf(
  run: RefreshAction,
  github: NonNullable<RefreshAction['github']>,
  ask: Refresh
) {
  if (ask.base) return ask.base
  if (run.config.baseBranch) return run.config.baseBranch
  return github.defaultBranch()
}

/**
 * Every open fleet PR on the base brought up to date, oldest first, each one outcome; the summary
 * lists them with the files they share (the merge order).
 */
export async function refreshPrs(run: RefreshAction, ask: Refresh): Promise<Outcome[]> {
  const { config, ctx, io } = run
  const github = run.github
  if (!github)
    throw new Error(
      `bringing fleet PRs up to date (${ask.why}) needs 'github-token' to list and update them`
    )
  const base = await baseOf(run, github, ask)
  const prs = await github.listFleetPrs(base, config.branchPrefix)
  if (prs.length === 0) {
    const note = `Nothing to do: no open fleet PR targets ${base} (${ask.why}).`
    io.info(note)
    await io.report([], note)
    return []
  }
  io.info(
    `${ask.why}: ${prs.length} open fleet PRs on ${base}: ${prs.map(p => `#${p.number}`).join(', ')}`
  )
  if (config.dryRun) {
    // Listed, not touched: no clone, no push, no comment.
    const error = 'dry-run: listed, not brought up to date'
    const listed = prs.map(pr => outcomeOf(pr, { status: 'not-started', error }))
    await io.report(listed, `Dry run: ${prs.length} open fleet PRs on ${base}; nothing was pushed.`)
    return listed
  }
  const { outcomes, open } = await refreshFleet(
    await refreshOptions(run, github, base, prs, 'refresh')
  )
  logOutcomes(io, outcomes)
  await io.report(outcomes, mergeOrder(base, open))
  await orderOnIssues(github, { base, prs, outcomes, open, runUrl: runUrl(ctx), log: io.info })
  const unrecorded = await recordTurns(run, outcomes)
  if (unrecorded) throw unrecorded
  return outcomes
}

/**
 * Each source issue's live comment gets the merge order of its fleet PRs: the order this refresh
 * took them, what became of each (which conflicted), and which share files.
 */
async function orderOnIssues(
  github: GitHub,
  r: {
    base: string
    prs: FleetPr[]
    outcomes: Outcome[]
    open: OpenFleetPr[]
    runUrl?: string
    log: (m: string) => void
  }
): Promise<void> {
  const shares = sharing(r.open)
  const issues = [...new Set(r.prs.flatMap(pr => (pr.marker.issue ? [pr.marker.issue] : [])))]
  for (const issue of issues) {
    const mine = r.prs.filter(pr => pr.marker.issue === issue)
    const section = refreshSection({
      base: r.base,
      runUrl: r.runUrl,
      prs: mine.map(pr => {
        const o = r.outcomes.find(x => x.prNumber === pr.number)
        return {
          number: pr.number,
          title: pr.title,
          status: o?.status ?? 'not-started',
          error: o?.error,
          conflicted: o?.status === 'conflict' || (o?.attempts ?? 0) > 0,
          shares: shares.get(pr.number) ?? []
        }
      })
    })
    await github.putRefreshSection(issue, section, r.log)
  }
}

/** What keep-fresh and the train run with: the run's remote, cage, worker and model, a fresh root. */
export async function refreshOptions(
  run: RefreshAction,
  github: GitHub,
  base: string,
  prs: FleetPr[],
  kind: 'refresh' | 'train'
): Promise<RefreshOptions> {
  const { config, ctx } = run
  return {
    config,
    base,
    prs,
    remoteUrl: await run.prepare.remoteUrl(),
    gitToken: config.githubToken,
    root: path.join(ctx.runnerTemp, 'fleet-worker', `${ctx.runId ?? process.pid}-${kind}`),
    checkout: run.env.GITHUB_WORKSPACE,
    github,
    isolation: await run.prepare.isolation(),
    claude: () => run.prepare.claude(),
    apiKey: run.apiKey,
    hostEnv: run.env,
    log: run.io.info,
    runUrl: runUrl(ctx),
    signal: run.signal
  }
}

/** One log line per outcome: its status, its PR, its error. */
export function logOutcomes(io: Io, outcomes: Outcome[]): void {
  for (const o of outcomes)
    io.info(`[${o.id}] ${o.status}${o.prUrl ? ` ${o.prUrl}` : ''}${o.error ? `: ${o.error}` : ''}`)
}
