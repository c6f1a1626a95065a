/**
 * GitHub for one repository: the object that owns the client (Octokit, with its retry and
 * throttling plugins) and the owner/repo, with one method per use the action makes of the API. It
 * is the only face of src/github/ the rest of the action sees: Octokit appears nowhere outside this
 * folder (test/unit/architecture.test.ts holds it), and a unit test stands in a plain fake of it.
 * Each method is the function of the same name in the file that says what it does.
 */
import type { Actor, Task } from '../domain.js'
import { type Access, checkAccess } from './access.js'
import { type Client, createClient, type Repo } from './client.js'
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
  private readonly client: Client

  constructor(client: Client) {
    this.client = client
  }

  /** The client for `repo` (createClient: retries, rate limits, errors as GitHubError). */
  static connect(token: string, apiUrl: string, repo: Repo, log: Log): GitHub {
    return new GitHub({ octokit: createClient(token, apiUrl, log), repo })
  }

  /** The repository this object speaks for. */
  get repo(): Repo {
    return this.client.repo
  }

  // ---- issues, comments, reactions (issues.ts) ----

  commentOn(issue: number, body: string): Promise<void> {
    return commentOn(this.client, issue, body)
  }

  ackComment(comment: { id: number; review?: boolean }, log: Log): Promise<void> {
    return ackComment(this.client, comment, log)
  }

  getIssue(issue: number) {
    return getIssue(this.client, issue)
  }

  setIssueBody(issue: number, body: string): Promise<void> {
    return setIssueBody(this.client, issue, body)
  }

  getPull(pull: number): Promise<PullJson> {
    return getPull(this.client, pull)
  }

  defaultBranch(): Promise<string> {
    return defaultBranch(this.client)
  }

  // ---- who may ask, who the token is ----

  checkAccess(actor: Actor, allowedBots: string[]): Promise<Access> {
    return checkAccess(this.client, actor, allowedBots)
  }

  tokenIdentity(): Promise<TokenIdentity> {
    return tokenIdentity(this.client.octokit)
  }

  labelledBy(issue: number, label: string): Promise<Actor | undefined> {
    return labelledBy(this.client, issue, label)
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
    return isQueued(this.client, labels, issue, log)
  }

  listQueue(labels: QueueLabels, max: number, reclaim?: (issue: number) => Promise<boolean>) {
    return listQueue(this.client, labels, max, reclaim)
  }

  moveIssue(issue: number, add: string[], remove: string[]): Promise<void> {
    return moveIssue(this.client, issue, add, remove)
  }

  abandonedBy(issue: number, currentRun: string | undefined) {
    return abandonedBy(this.client, issue, currentRun)
  }

  putRefreshSection(issue: number, section: string, log: Log): Promise<void> {
    return putRefreshSection(this.client, issue, section, log)
  }

  // ---- pull requests (pulls.ts, merged.ts, pr-turns.ts, pr-answer.ts) ----

  findOpenPullRequest(branch: string) {
    return findOpenPullRequest(this.client, branch)
  }

  upsertPullRequest(spec: PullRequestSpec) {
    return upsertPullRequest(this.client, spec)
  }

  mergedStates(numbers: readonly number[], log: Log) {
    return mergedStates(this.client, numbers, log)
  }

  openPrOf(branch: string): Promise<number | undefined> {
    return openPrOf(this.client, branch)
  }

  reviewThreads(pr: number, reviewId: number) {
    return reviewThreads(this.client, pr, reviewId)
  }

  commentThread(pr: number, threadId: number) {
    return commentThread(this.client, pr, threadId)
  }

  failedJobs(runId: number) {
    return failedJobs(this.client, runId)
  }

  alreadyAnswered(pr: number, key: string): Promise<boolean> {
    return alreadyAnswered(this.client, pr, key)
  }

  sayFixUpsStopped(pr: number, text: { max: number; run: string; phrase: string }) {
    return sayFixUpsStopped(this.client, pr, text)
  }

  // ---- the fleet's open PRs (fleet-prs.ts) ----

  listFleetPrs(base: string, prefix: string): Promise<FleetPr[]> {
    return listFleetPrs(this.client, base, prefix)
  }

  updateFleetPr(
    pr: FleetPr,
    change: { title: string; body: string; add: string[]; remove: string[] }
  ): Promise<void> {
    return updateFleetPr(this.client, pr, change)
  }

  conflictSaid(pr: number, key: string): Promise<boolean> {
    return conflictSaid(this.client, pr, key)
  }

  sayConflict(pr: FleetPr, body: string, label: string): Promise<void> {
    return sayConflict(this.client, pr, body, label)
  }

  // ---- the landing train (merge.ts) ----

  reviewsOf(pr: number) {
    return reviewsOf(this.client, pr)
  }

  writersOf() {
    return writersOf(this.client)
  }

  repoMergeSettings() {
    return repoMergeSettings(this.client)
  }

  baseRules(branch: string) {
    return baseRules(this.client, branch)
  }

  passedChecks(sha: string): Promise<string[]> {
    return passedChecks(this.client, sha)
  }

  mergePr(pr: { number: number; sha: string; method: MergeMethod; title: string }) {
    return mergePr(this.client, pr)
  }

  headNow(pr: number) {
    return headNow(this.client, pr)
  }

  markReady(nodeId: string): Promise<string | undefined> {
    return markReady(this.client, nodeId)
  }

  enableAutoMerge(pr: {
    nodeId: string
    method: MergeMethod
    sha: string
  }): Promise<string | undefined> {
    return enableAutoMerge(this.client, pr)
  }

  enqueue(pr: { nodeId: string; sha: string }): Promise<string | undefined> {
    return enqueue(this.client, pr)
  }

  sayOnPr(pr: number, said: { marker: string; key: string; body: string }) {
    return sayOnPr(this.client, pr, said)
  }

  relabel(
    pr: { number: number; labels: string[] },
    change: { add: string[]; remove: string[] }
  ): Promise<void> {
    return relabel(this.client, pr, change)
  }
}
