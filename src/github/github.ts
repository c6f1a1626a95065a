/**
 * GitHub for one repository: the object that owns the client (Octokit, with its retry and
 * throttling plugins) and the owner/repo, with one method per use the action makes of the API. It
 * is the only face of src/github/ the rest of the action sees: Octokit appears nowhere outside this
 * folder (test/unit/architecture.test.ts holds it), and a unit test stands in a plain fake of it.
 * Each method is the function of the same name in the file that says what it does.
 */
import type { Actor, Task } from '../domain.js'
import { type Access, checkAccess } from './access.js'
import type { Client, Repo } from './client.js'
import {
  conflictSaid,
  type FleetPr,
  listFleetPrs,
  sayConflict,
  updateFleetPr
} from './fleet-prs.js'
import { type TokenIdentity, tokenIdentity } from './identity.js'
import { ackComment, commentOn, defaultBranch, getIssue, getPull, setIssueBody } from './issues.js'
import { labelledBy } from './label-actor.js'
import { LiveComment } from './live-comment.js'
import {
  baseRules,
  enableAutoMerge,
  enqueue,
  headNow,
  markReady,
  type MergeMethod,
  mergePr,
  passedChecks,
  relabel,
  repoMergeSettings,
  reviewsOf,
  sayOnPr,
  writersOf
} from './merge.js'
import { mergedStates } from './merged.js'
import { alreadyAnswered, sayFixUpsStopped } from './pr-answer.js'
import { commentThread, failedJobs, openPrOf, reviewThreads } from './pr-turns.js'
import { findOpenPullRequest, type PullRequestSpec, upsertPullRequest } from './pulls.js'
import { isQueued, listQueue, moveIssue, type QueueLabels } from './queue.js'
import { abandonedBy } from './reclaim.js'
import { putRefreshSection } from './refresh-comment.js'
import { IssueTracking } from './tracking.js'

type Log = (m: string) => void

export type { Repo }

/** A pull request as GitHub's REST API answers for one (GET /repos/{owner}/{repo}/pulls/{n}). */
export type PullJson = Awaited<ReturnType<typeof getPull>>

export class GitHub {
  /**
   * The client for `repo` (createClient: retries, rate limits, errors as GitHubError), made on
   * the first call: Octokit and its HTTP stack load then, not before a run's first worker.
   */
  static connect(token: string, apiUrl: string, repo: Repo, log: Log): GitHub {
    let made: Promise<Client> | undefined
    return new GitHub(
      () =>
        (made ??= import('./client.js').then(({ createClient }) => ({
          octokit: createClient(token, apiUrl, log),
          repo
        }))),
      repo
    )
  }

  constructor(
    private readonly client: () => Promise<Client>,
    /** The repository this object speaks for. */
    readonly repo: Repo
  ) {}

  /** `fn` called with the client, once it is made. */
  private async with<A extends unknown[], R>(
    fn: (client: Client, ...args: A) => Promise<R>,
    ...args: A
  ): Promise<R> {
    return fn(await this.client(), ...args)
  }

  // ---- issues, comments, reactions (issues.ts) ----

  commentOn(issue: number, body: string): Promise<void> {
    return this.with(commentOn, issue, body)
  }

  ackComment(comment: { id: number; review?: boolean }, log: Log): Promise<void> {
    return this.with(ackComment, comment, log)
  }

  getIssue(issue: number) {
    return this.with(getIssue, issue)
  }

  setIssueBody(issue: number, body: string): Promise<void> {
    return this.with(setIssueBody, issue, body)
  }

  getPull(pull: number): Promise<PullJson> {
    return this.with(getPull, pull)
  }

  defaultBranch(): Promise<string> {
    return this.with(defaultBranch)
  }

  // ---- who may ask, who the token is ----

  checkAccess(actor: Actor, allowedBots: string[]): Promise<Access> {
    return this.with(checkAccess, actor, allowedBots)
  }

  tokenIdentity(): Promise<TokenIdentity> {
    return this.client().then(c => tokenIdentity(c.octokit))
  }

  labelledBy(issue: number, label: string): Promise<Actor | undefined> {
    return this.with(labelledBy, issue, label)
  }

  // ---- the live comment and the queue's labels (live-comment.ts, tracking.ts, queue.ts) ----

  liveComment(issue: number, tasks: Task[], runUrl: string | undefined, log: Log): LiveComment {
    return new LiveComment(this.client, issue, tasks, runUrl, log)
  }

  tracking(
    tasks: Task[],
    queue: QueueLabels | undefined,
    runUrl: string | undefined,
    log: Log,
    signal?: AbortSignal
  ): IssueTracking {
    return new IssueTracking(this.client, tasks, queue, runUrl, log, signal)
  }

  isQueued(labels: QueueLabels, issue: number, log: Log): Promise<boolean> {
    return this.with(isQueued, labels, issue, log)
  }

  listQueue(labels: QueueLabels, max: number, reclaim?: (issue: number) => Promise<boolean>) {
    return this.with(listQueue, labels, max, reclaim)
  }

  moveIssue(issue: number, add: string[], remove: string[]): Promise<void> {
    return this.with(moveIssue, issue, add, remove)
  }

  abandonedBy(issue: number, currentRun: string | undefined) {
    return this.with(abandonedBy, issue, currentRun)
  }

  putRefreshSection(issue: number, section: string, log: Log): Promise<void> {
    return this.with(putRefreshSection, issue, section, log)
  }

  // ---- pull requests (pulls.ts, merged.ts, pr-turns.ts, pr-answer.ts) ----

  findOpenPullRequest(branch: string) {
    return this.with(findOpenPullRequest, branch)
  }

  upsertPullRequest(spec: PullRequestSpec) {
    return this.with(upsertPullRequest, spec)
  }

  mergedStates(numbers: readonly number[], log: Log) {
    return this.with(mergedStates, numbers, log)
  }

  openPrOf(branch: string): Promise<number | undefined> {
    return this.with(openPrOf, branch)
  }

  reviewThreads(pr: number, reviewId: number) {
    return this.with(reviewThreads, pr, reviewId)
  }

  commentThread(pr: number, threadId: number) {
    return this.with(commentThread, pr, threadId)
  }

  failedJobs(runId: number) {
    return this.with(failedJobs, runId)
  }

  alreadyAnswered(pr: number, key: string): Promise<boolean> {
    return this.with(alreadyAnswered, pr, key)
  }

  sayFixUpsStopped(pr: number, text: { max: number; run: string; phrase: string }) {
    return this.with(sayFixUpsStopped, pr, text)
  }

  // ---- the fleet's open PRs (fleet-prs.ts) ----

  listFleetPrs(base: string, prefix: string): Promise<FleetPr[]> {
    return this.with(listFleetPrs, base, prefix)
  }

  updateFleetPr(
    pr: FleetPr,
    change: { title: string; body: string; add: string[]; remove: string[] }
  ): Promise<void> {
    return this.with(updateFleetPr, pr, change)
  }

  conflictSaid(pr: number, key: string): Promise<boolean> {
    return this.with(conflictSaid, pr, key)
  }

  sayConflict(pr: FleetPr, body: string, label: string): Promise<void> {
    return this.with(sayConflict, pr, body, label)
  }

  // ---- the landing train (merge.ts) ----

  reviewsOf(pr: number) {
    return this.with(reviewsOf, pr)
  }

  /** Which of these logins may write (merge.ts: one question per login, remembered). */
  writersOf(): (logins: string[]) => Promise<Set<string>> {
    let ask: ReturnType<typeof writersOf> | undefined
    return async logins => (ask ??= writersOf(await this.client()))(logins)
  }

  repoMergeSettings() {
    return this.with(repoMergeSettings)
  }

  baseRules(branch: string) {
    return this.with(baseRules, branch)
  }

  passedChecks(sha: string): Promise<string[]> {
    return this.with(passedChecks, sha)
  }

  mergePr(pr: { number: number; sha: string; method: MergeMethod; title: string }) {
    return this.with(mergePr, pr)
  }

  headNow(pr: number) {
    return this.with(headNow, pr)
  }

  markReady(nodeId: string): Promise<string | undefined> {
    return this.with(markReady, nodeId)
  }

  enableAutoMerge(pr: {
    nodeId: string
    method: MergeMethod
    sha: string
  }): Promise<string | undefined> {
    return this.with(enableAutoMerge, pr)
  }

  enqueue(pr: { nodeId: string; sha: string }): Promise<string | undefined> {
    return this.with(enqueue, pr)
  }

  sayOnPr(pr: number, said: { marker: string; key: string; body: string }) {
    return this.with(sayOnPr, pr, said)
  }

  relabel(
    pr: { number: number; labels: string[] },
    change: { add: string[]; remove: string[] }
  ): Promise<void> {
    return this.with(relabel, pr, change)
  }
}
