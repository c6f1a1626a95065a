/**
 * mode: land holds the write token; what it was handed came from a job that may have been taken
 * over. So the issues and PRs it reports to are the ones it can vouch for itself: named by its own
 * event (the same workflow run's), by the `plan` input (a workflow output, not the hand-over), or,
 * for a queued run, carrying the queue's label right now on GitHub. A PR's number and URL are
 * read back from GitHub, never taken from the hand-over. An outcome that names anything else is
 * still reported in the summary, but tells no issue about itself.
 */
import type { Outcome, TaskSource } from '../domain.js'
import type { GitHub } from '../github/github.js'
import type { QueueLabels } from '../github/queue.js'
import type { SavedPlan } from './plan.js'

/** The issues (and PRs) this job can vouch for, and the queue's labels when the run was queued. */
export interface Vouched {
  issues: Set<number>
  queue?: QueueLabels
}

type Obj = Record<string, unknown>
const numberAt = (payload: Obj, key: string): number | undefined => {
  const n = (payload[key] as Obj | undefined)?.number
  return typeof n === 'number' && Number.isSafeInteger(n) && n > 0 ? n : undefined
}

/** The issue or PR numbers a source names. */
function numbersOf(source: TaskSource): number[] {
  if (source.kind === 'issue') return [source.issue]
  if (source.kind === 'follow-up') return [source.pr, ...(source.issue ? [source.issue] : [])]
  return []
}

/** What the job's own event and the plan input name: no API call needed to trust these. */
export function namedByRun(payload: Obj, plan: SavedPlan | undefined): Set<number> {
  const named = new Set<number>()
  for (const key of ['issue', 'pull_request']) {
    const n = numberAt(payload, key)
    if (n !== undefined) named.add(n)
  }
  for (const t of plan?.tasks ?? []) for (const n of numbersOf(t.source)) named.add(n)
  return named
}

export async function vouch(opts: {
  payload: Obj
  plan?: SavedPlan
  /** The hand-over said its run was a queued one. */
  queued: boolean
  ownQueue: QueueLabels
  github?: GitHub
  outcomes: Outcome[]
  log: (m: string) => void
}): Promise<Vouched> {
  const issues = namedByRun(opts.payload, opts.plan)
  const queue = opts.plan?.queue ?? (opts.queued ? opts.ownQueue : undefined)
  if (queue && opts.github) {
    const claimed = [
      ...new Set(opts.outcomes.flatMap(o => (o.source.kind === 'issue' ? [o.source.issue] : [])))
    ].filter(n => !issues.has(n))
    for (const n of claimed) if (await opts.github.isQueued(queue, n, opts.log)) issues.add(n)
  }
  return { issues, queue }
}

/**
 * The source as far as this job can vouch for it: an issue it cannot is dropped (the task is
 * then one from the `tasks` input: no comment, no "Refs #N"), and a follow-up keeps only a PR it
 * can. A PR turn's answer (whom to thank, which threads to reply in) is never taken from a
 * hand-over: it would have the write token mention and reply as the hand-over says.
 */
export function vouchedSource(source: TaskSource, vouched: Vouched): TaskSource | undefined {
  if (source.kind === 'input') return source
  if (source.kind === 'issue') return vouched.issues.has(source.issue) ? source : { kind: 'input' }
  if (!vouched.issues.has(source.pr)) return undefined
  const issue =
    source.issue !== undefined && vouched.issues.has(source.issue) ? source.issue : undefined
  return {
    kind: 'follow-up',
    pr: source.pr,
    ...(issue !== undefined && { issue }),
    ...(source.fixUps !== undefined && { fixUps: source.fixUps })
  }
}

/** The outcome without what GitHub must say instead: its PR's number and URL. */
export function withoutPr(o: Outcome): Outcome {
  const rest = { ...o }
  delete rest.prNumber
  delete rest.prUrl
  return rest
}

/**
 * An outcome that came without a bundle, as GitHub shows it: its PR (when its branch is the
 * fleet's and has an open one) read back from GitHub, nothing else of the hand-over's.
 */
export async function prFromGitHub(
  o: Outcome,
  prefix: string,
  github: GitHub | undefined
): Promise<Outcome> {
  const bare = withoutPr(o)
  if (!github || !o.branch?.startsWith(prefix)) return bare
  const pr = await github.findOpenPullRequest(o.branch).catch(() => undefined)
  return pr ? { ...bare, prNumber: pr.number, prUrl: pr.url } : bare
}

/**
 * What an issue's comment says of an outcome that came without a bundle: its status word alone.
 * Its title, error and PR are the hand-over's words, which this job has nothing to check against.
 */
export function statusOnly(o: Outcome): Outcome {
  const rest = withoutPr({ ...o, title: o.id })
  delete rest.error
  delete rest.finalMessage
  return rest
}
