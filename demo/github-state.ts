// In-memory repository state behind the GitHub mock, and the JSON GitHub would render from it.
import { createHash } from 'node:crypto'
import type { MergeMethod, MockGit } from './github-git.js'

export type Role = 'admin' | 'maintain' | 'write' | 'triage' | 'read' | 'none'

export interface MockLabel {
  id: number
  name: string
  color: string
  description: string | null
}

export interface PullFields {
  head: string
  base: string
  head_sha: string
  base_sha: string
  draft: boolean
  merged_at: string | null
  requested_reviewers: string[]
  maintainer_can_modify: boolean
  /** The commit a merge made on the base (the landing train), once merged. */
  merge_commit_sha?: string | null
  /** Auto-merge as enablePullRequestAutoMerge turned it on: GitHub merges once checks pass. */
  auto_merge?: { merge_method: MergeMethod; enabled_by: string } | null
  /** In the base's merge queue (enqueuePullRequest). */
  queued?: boolean
}

/** A submitted review, as GET /pulls/{n}/reviews lists it. */
export interface MockReview {
  id: number
  pull_number: number
  user: string
  state: 'APPROVED' | 'CHANGES_REQUESTED' | 'COMMENTED' | 'DISMISSED'
  body: string
  /** The PR's head when it was submitted. */
  commit_id: string
  submitted_at: string
}

/** A check run on a commit (GET /commits/{ref}/check-runs). */
export interface MockCheckRun {
  id: number
  head_sha: string
  name: string
  status: 'queued' | 'in_progress' | 'completed'
  conclusion: string | null
}

/** A rule of a ruleset on the default branch, as GET /rules/branches/{branch} lists it. */
export type MockRule =
  | { type: 'required_status_checks'; checks: string[]; strict?: boolean }
  | { type: 'pull_request'; approvals: number }
  | { type: 'merge_queue' }

/** The repository's merge settings (GET /repos/{o}/{r}). */
export interface RepoSettings {
  allow_merge_commit: boolean
  allow_squash_merge: boolean
  allow_rebase_merge: boolean
  allow_auto_merge: boolean
}

/** Issues and pull requests share one number sequence, as on GitHub: a PR is an issue with `pull`. */
export interface MockIssue {
  number: number
  id: number
  title: string
  body: string | null
  state: 'open' | 'closed'
  state_reason: string | null
  labels: string[]
  assignees: string[]
  user: string
  created_at: string
  updated_at: string
  closed_at: string | null
  pull?: PullFields
}

export type MockPull = MockIssue & { pull: PullFields }

/** An issue's timeline event, as GET /issues/{n}/events lists it (labels only). */
export interface MockEvent {
  id: number
  issue_number: number
  event: 'labeled' | 'unlabeled'
  label: string
  actor: string
  created_at: string
}

/** A workflow run, for GET /actions/runs/{id}. */
export interface MockRun {
  id: number
  status: 'queued' | 'in_progress' | 'completed'
  conclusion: string | null
}

/** An inline review comment (a thread's first comment, or a reply in it: `in_reply_to_id`). */
export interface MockReviewComment {
  id: number
  pull_number: number
  review_id: number | null
  body: string
  user: string
  path: string
  line: number | null
  diff_hunk: string
  commit_id: string
  in_reply_to_id?: number
  created_at: string
  updated_at: string
}

export interface ReviewCommentSeed {
  path: string
  line: number
  body: string
  diff_hunk?: string
  in_reply_to_id?: number
}

/** A job of a workflow run, with the log its logs URL redirects to. */
export interface MockJob {
  id: number
  run_id: number
  name: string
  status: 'queued' | 'in_progress' | 'completed'
  conclusion: string | null
  head_branch: string
  head_sha: string
  log: string
  steps: Array<{ name: string; conclusion: string | null }>
}

export interface MockComment {
  id: number
  issue_number: number
  body: string
  user: string
  created_at: string
  updated_at: string
}

export interface MockReaction {
  id: number
  comment_id: number
  content: string
  user: string
  created_at: string
}

export interface IssueSeed {
  title: string
  body?: string
  labels?: string[]
  user?: string
  /** Who applied `labels` (their `labeled` events name this actor); default the issue's author. */
  labeledBy?: string
  state?: 'open' | 'closed'
  created_at?: string
}

export interface PullSeed {
  head: string
  base?: string
  title?: string
  body?: string
  labels?: string[]
  user?: string
  state?: 'open' | 'closed'
  draft?: boolean
  head_sha?: string
  created_at?: string
}

export interface RepoInfo {
  owner: string
  repo: string
  defaultBranch: string
  /** Base of API `url` fields (the mock's own URL). */
  apiUrl: string
  /** Base of `html_url` fields. */
  serverUrl: string
}

export const TOKEN_USER = 'github-actions[bot]'

/** A PR's fields the mock does not model, at what GitHub says for a fresh one-commit PR. */
const PULL_UNMODELLED = {
  locked: false,
  milestone: null,
  active_lock_reason: null,
  merge_commit_sha: null,
  requested_teams: [],
  auto_merge: null,
  mergeable: null,
  rebaseable: null,
  mergeable_state: 'unknown',
  merged_by: null,
  review_comments: 0,
  commits: 1,
  additions: 0,
  deletions: 0,
  changed_files: 0
}

/** GitHub's timestamps carry no milliseconds. */
export const now = (): string => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z')

const fakeSha = (seed: string): string => createHash('sha1').update(seed).digest('hex')

export class GitHubState {
  readonly issues: MockIssue[] = []
  readonly comments: MockComment[] = []
  readonly events: MockEvent[] = []
  readonly runs = new Map<number, MockRun>()
  readonly reactions: MockReaction[] = []
  readonly reviewComments: MockReviewComment[] = []
  readonly jobs: MockJob[] = []
  readonly labels: MockLabel[] = []
  readonly collaborators = new Map<string, Role>()
  readonly reviews: MockReview[] = []
  readonly checkRuns: MockCheckRun[] = []
  /** The rulesets' rules on the default branch. */
  rules: MockRule[] = []
  settings: RepoSettings = {
    allow_merge_commit: true,
    allow_squash_merge: true,
    allow_rebase_merge: true,
    allow_auto_merge: false
  }
  /** The git remote, when PRs' heads, merges and updates are read from and made in it. */
  git?: MockGit
  private nextId = 1
  private readonly userIds = new Map<string, number>([[TOKEN_USER, 41898282]])

  constructor(readonly repo: RepoInfo) {}

  get pulls(): MockPull[] {
    return this.issues.filter((i): i is MockPull => i.pull !== undefined)
  }

  issue(number: number): MockIssue | undefined {
    return this.issues.find(i => i.number === number)
  }

  pullByNumber(number: number): MockPull | undefined {
    return this.pulls.find(p => p.number === number)
  }

  /** The PR's head commit: the branch on the remote when linked (as GitHub reads it), else seeded. */
  headSha(pr: MockPull): string {
    if (pr.pull.merged_at) return pr.pull.head_sha
    return this.git?.sha(pr.pull.head) ?? pr.pull.head_sha
  }

  baseSha(pr: MockPull): string {
    return this.git?.sha(pr.pull.base) ?? pr.pull.base_sha
  }

  /** A review submitted on the PR's current head (or `commit_id`). */
  addReview(
    pullNumber: number,
    user: string,
    state: MockReview['state'],
    commit_id?: string
  ): MockReview {
    const pr = this.pullByNumber(pullNumber)
    if (!pr) throw new Error(`no pull request #${pullNumber}`)
    const review: MockReview = {
      id: this.id(),
      pull_number: pullNumber,
      user,
      state,
      body: '',
      commit_id: commit_id ?? this.headSha(pr),
      submitted_at: now()
    }
    this.reviews.push(review)
    return review
  }

  addCheckRun(head_sha: string, name: string, conclusion: string | null = 'success'): MockCheckRun {
    const run: MockCheckRun = {
      id: this.id(),
      head_sha,
      name,
      status: conclusion === null ? 'in_progress' : 'completed',
      conclusion
    }
    this.checkRuns.push(run)
    return run
  }

  comment(id: number): MockComment | undefined {
    return this.comments.find(c => c.id === id)
  }

  label(name: string): MockLabel | undefined {
    const key = name.toLowerCase()
    return this.labels.find(l => l.name.toLowerCase() === key)
  }

  /** Adding an unknown label to an issue creates it, as GitHub does. */
  ensureLabel(name: string, color = 'ededed', description: string | null = null): MockLabel {
    const existing = this.label(name)
    if (existing) return existing
    const created = { id: this.id(), name, color, description }
    this.labels.push(created)
    return created
  }

  id(): number {
    return 1000 + this.nextId++
  }

  addIssue(seed: IssueSeed): MockIssue {
    const created_at = seed.created_at ?? now()
    const issue: MockIssue = {
      number: this.issues.length + 1,
      id: this.id(),
      title: seed.title,
      body: seed.body ?? null,
      state: seed.state ?? 'open',
      state_reason: seed.state === 'closed' ? 'completed' : null,
      labels: (seed.labels ?? []).map(name => this.ensureLabel(name).name),
      assignees: [],
      user: seed.user ?? 'octocat',
      created_at,
      updated_at: created_at,
      closed_at: seed.state === 'closed' ? created_at : null
    }
    this.issues.push(issue)
    for (const label of issue.labels)
      this.labelEvent(issue.number, 'labeled', label, seed.labeledBy ?? issue.user, created_at)
    return issue
  }

  labelEvent(
    issue_number: number,
    event: MockEvent['event'],
    label: string,
    actor: string,
    created_at = now()
  ): void {
    this.events.push({ id: this.id(), issue_number, event, label, actor, created_at })
  }

  /** The GitHub App behind a bot login (github-actions[bot] -> the github-actions app). */
  appJson(bot: string): Record<string, unknown> {
    const slug = bot.replace(/\[bot\]$/, '')
    return {
      id: 15368,
      slug,
      node_id: nodeId('A', 15368),
      owner: this.userJson('github', 'Organization'),
      name: slug === 'github-actions' ? 'GitHub Actions' : slug,
      description: 'Automate your workflow from idea to production',
      external_url: 'https://help.github.com/en/actions',
      html_url: `${this.repo.serverUrl}/apps/${slug}`,
      created_at: '2018-07-30T09:30:17Z',
      updated_at: '2019-12-10T19:04:12Z',
      permissions: { issues: 'write', pull_requests: 'write', contents: 'write' },
      events: []
    }
  }

  eventJson(e: MockEvent): Record<string, unknown> {
    const label = this.ensureLabel(e.label)
    return {
      id: e.id,
      node_id: nodeId('LE', e.id),
      url: `${this.repoApi}/issues/events/${e.id}`,
      actor: this.userJson(e.actor),
      event: e.event,
      commit_id: null,
      commit_url: null,
      created_at: e.created_at,
      label: { name: label.name, color: label.color },
      performed_via_github_app: null
    }
  }

  runJson(run: MockRun): Record<string, unknown> {
    return {
      id: run.id,
      name: 'Fleet',
      node_id: nodeId('WFR', run.id),
      status: run.status,
      conclusion: run.conclusion,
      url: `${this.repoApi}/actions/runs/${run.id}`,
      html_url: `${this.repoHtml}/actions/runs/${run.id}`
    }
  }

  addPull(seed: PullSeed): MockPull {
    const base = seed.base ?? this.repo.defaultBranch
    const issue = this.addIssue({
      title: seed.title ?? seed.head,
      user: seed.user ?? TOKEN_USER,
      ...(seed.body !== undefined && { body: seed.body }),
      ...(seed.labels && { labels: seed.labels }),
      ...(seed.state && { state: seed.state }),
      ...(seed.created_at && { created_at: seed.created_at })
    })
    issue.state_reason = null
    const pull: PullFields = {
      head: seed.head,
      base,
      head_sha: seed.head_sha ?? fakeSha(`${seed.head}#${issue.number}`),
      base_sha: fakeSha(base),
      draft: seed.draft ?? false,
      merged_at: null,
      requested_reviewers: [],
      maintainer_can_modify: false
    }
    return Object.assign(issue, { pull })
  }

  addComment(issueNumber: number, body: string, user = TOKEN_USER): MockComment {
    const at = now()
    const comment = {
      id: this.id(),
      issue_number: issueNumber,
      body,
      user,
      created_at: at,
      updated_at: at
    }
    this.comments.push(comment)
    return comment
  }

  /** A submitted review's inline comments (or one reply, with `in_reply_to_id`), on the PR's head. */
  addReviewComments(
    pullNumber: number,
    user: string,
    seeds: ReviewCommentSeed[],
    reviewId: number | null = this.id()
  ): MockReviewComment[] {
    const pr = this.pullByNumber(pullNumber)
    if (!pr) throw new Error(`no pull request #${pullNumber}`)
    return seeds.map(seed => {
      const at = now()
      const comment: MockReviewComment = {
        id: this.id(),
        pull_number: pullNumber,
        review_id: reviewId,
        body: seed.body,
        user,
        path: seed.path,
        line: seed.line,
        diff_hunk: seed.diff_hunk ?? `@@ -0,0 +1,${seed.line} @@`,
        commit_id: pr.pull.head_sha,
        ...(seed.in_reply_to_id !== undefined && { in_reply_to_id: seed.in_reply_to_id }),
        created_at: at,
        updated_at: at
      }
      this.reviewComments.push(comment)
      return comment
    })
  }

  reviewComment(id: number): MockReviewComment | undefined {
    return this.reviewComments.find(c => c.id === id)
  }

  /** A completed workflow run with its jobs (each with its log text). */
  addRun(
    run: { head_branch: string; head_sha: string; conclusion: string },
    jobs: Array<Pick<MockJob, 'name' | 'conclusion' | 'log'> & { steps?: MockJob['steps'] }>
  ): { run: MockRun; jobs: MockJob[] } {
    const created: MockRun = { id: this.id(), status: 'completed', conclusion: run.conclusion }
    this.runs.set(created.id, created)
    const made = jobs.map(j => {
      const job: MockJob = {
        id: this.id(),
        run_id: created.id,
        status: 'completed',
        head_branch: run.head_branch,
        head_sha: run.head_sha,
        steps: j.steps ?? [{ name: 'Run tests', conclusion: j.conclusion }],
        ...j
      }
      this.jobs.push(job)
      return job
    })
    return { run: created, jobs: made }
  }

  // ---- rendering, in the shape of GitHub's REST responses ----

  private get repoApi(): string {
    return `${this.repo.apiUrl}/repos/${this.repo.owner}/${this.repo.repo}`
  }

  private get repoHtml(): string {
    return `${this.repo.serverUrl}/${this.repo.owner}/${this.repo.repo}`
  }

  userJson(login: string, type?: 'Organization'): Record<string, unknown> {
    let id = this.userIds.get(login)
    if (id === undefined) this.userIds.set(login, (id = 9000 + this.userIds.size))
    const url = `${this.repo.apiUrl}/users/${encodeURIComponent(login)}`
    return {
      login,
      id,
      node_id: nodeId('U', id),
      avatar_url: `${this.repo.serverUrl}/${login}.png`,
      gravatar_id: '',
      url,
      html_url: `${this.repo.serverUrl}/${login}`,
      ...urlTemplates(url, USER_LINKS),
      type: type ?? (login.endsWith('[bot]') ? 'Bot' : 'User'),
      site_admin: false
    }
  }

  repoJson(): Record<string, unknown> {
    const { owner, repo, defaultBranch } = this.repo
    const open = this.issues.filter(i => i.state === 'open').length
    return {
      id: 4242,
      node_id: nodeId('R', 4242),
      name: repo,
      full_name: `${owner}/${repo}`,
      owner: this.userJson(owner, 'Organization'),
      private: false,
      visibility: 'public',
      fork: false,
      archived: false,
      disabled: false,
      description: null,
      html_url: this.repoHtml,
      url: this.repoApi,
      ...urlTemplates(this.repoApi, REPO_LINKS),
      clone_url: `${this.repoHtml}.git`,
      git_url: `${this.repoHtml.replace(/^https?:/, 'git:')}.git`,
      ssh_url: `git@${new URL(this.repo.serverUrl).host}:${owner}/${repo}.git`,
      svn_url: this.repoHtml,
      mirror_url: null,
      homepage: null,
      language: null,
      license: null,
      size: 0,
      default_branch: defaultBranch,
      has_issues: true,
      has_downloads: false,
      has_projects: false,
      has_wiki: false,
      has_pages: false,
      has_discussions: false,
      forks: 0,
      forks_count: 0,
      stargazers_count: 0,
      watchers: 0,
      watchers_count: 0,
      network_count: 0,
      subscribers_count: 0,
      open_issues: open,
      open_issues_count: open,
      permissions: { admin: false, maintain: false, push: true, triage: true, pull: true },
      ...this.settings,
      created_at: '2020-01-01T00:00:00Z',
      updated_at: '2020-01-01T00:00:00Z',
      pushed_at: '2020-01-01T00:00:00Z'
    }
  }

  labelJson(label: MockLabel): Record<string, unknown> {
    return {
      id: label.id,
      node_id: nodeId('LA', label.id),
      url: `${this.repoApi}/labels/${encodeURIComponent(label.name)}`,
      name: label.name,
      color: label.color,
      description: label.description,
      default: false
    }
  }

  private labelsOf(issue: MockIssue): Record<string, unknown>[] {
    return issue.labels.map(name => this.labelJson(this.ensureLabel(name)))
  }

  private assigneesOf(issue: MockIssue): Record<string, unknown>[] {
    return issue.assignees.map(login => this.userJson(login))
  }

  issueJson(issue: MockIssue): Record<string, unknown> {
    const url = `${this.repoApi}/issues/${issue.number}`
    const assignees = this.assigneesOf(issue)
    return {
      id: issue.id,
      node_id: nodeId('I', issue.id),
      url,
      repository_url: this.repoApi,
      labels_url: `${url}/labels{/name}`,
      comments_url: `${url}/comments`,
      events_url: `${url}/events`,
      html_url: `${this.repoHtml}/${issue.pull ? 'pull' : 'issues'}/${issue.number}`,
      number: issue.number,
      state: issue.state,
      state_reason: issue.state_reason,
      title: issue.title,
      body: issue.body,
      user: this.userJson(issue.user),
      labels: this.labelsOf(issue),
      assignee: assignees[0] ?? null,
      assignees,
      milestone: null,
      locked: false,
      active_lock_reason: null,
      comments: this.comments.filter(c => c.issue_number === issue.number).length,
      created_at: issue.created_at,
      updated_at: issue.updated_at,
      closed_at: issue.closed_at,
      author_association: this.association(issue.user),
      ...(issue.pull && {
        pull_request: {
          url: `${this.repoApi}/pulls/${issue.number}`,
          html_url: `${this.repoHtml}/pull/${issue.number}`,
          diff_url: `${this.repoHtml}/pull/${issue.number}.diff`,
          patch_url: `${this.repoHtml}/pull/${issue.number}.patch`,
          merged_at: issue.pull.merged_at
        }
      })
    }
  }

  pullJson(pr: MockPull): Record<string, unknown> {
    const assignees = this.assigneesOf(pr)
    return {
      ...this.pullUrls(pr),
      ...PULL_UNMODELLED,
      ...this.mergeFields(pr),
      id: pr.id,
      node_id: nodeId('PR', pr.id),
      number: pr.number,
      state: pr.state,
      title: pr.title,
      user: this.userJson(pr.user),
      body: pr.body,
      labels: this.labelsOf(pr),
      created_at: pr.created_at,
      updated_at: pr.updated_at,
      closed_at: pr.closed_at,
      merged_at: pr.pull.merged_at,
      assignee: assignees[0] ?? null,
      assignees,
      requested_reviewers: pr.pull.requested_reviewers.map(login => this.userJson(login)),
      head: this.refJson(pr.pull.head, this.headSha(pr)),
      base: this.refJson(pr.pull.base, this.baseSha(pr)),
      author_association: this.association(pr.user),
      draft: pr.pull.draft,
      merged: pr.pull.merged_at !== null,
      comments: this.comments.filter(c => c.issue_number === pr.number).length,
      maintainer_can_modify: pr.pull.maintainer_can_modify
    }
  }

  /** What GitHub says of merging the PR, when the mock reads it from the remote. */
  private mergeFields(pr: MockPull): Record<string, unknown> {
    const auto = pr.pull.auto_merge
    const fields: Record<string, unknown> = {
      merge_commit_sha: pr.pull.merge_commit_sha ?? null,
      auto_merge: auto
        ? {
            enabled_by: this.userJson(auto.enabled_by),
            merge_method: auto.merge_method,
            commit_title: pr.title,
            commit_message: ''
          }
        : null
    }
    if (!this.git || pr.state !== 'open') return fields
    const head = this.headSha(pr)
    const base = this.baseSha(pr)
    const mergeable = this.git.mergeable(base, head)
    const state = pr.pull.draft
      ? 'draft'
      : !mergeable
        ? 'dirty'
        : !this.git.isAncestor(base, head)
          ? 'behind'
          : 'clean'
    return { ...fields, mergeable, rebaseable: mergeable, mergeable_state: state }
  }

  /** A PR's API and web links, flat and again under `_links`. */
  private pullUrls(pr: MockPull): Record<string, unknown> {
    const url = `${this.repoApi}/pulls/${pr.number}`
    const html = `${this.repoHtml}/pull/${pr.number}`
    const issueUrl = `${this.repoApi}/issues/${pr.number}`
    const reviewComment = `${this.repoApi}/pulls/comments{/number}`
    const statuses = `${this.repoApi}/statuses/${pr.pull.head_sha}`
    return {
      url,
      html_url: html,
      diff_url: `${html}.diff`,
      patch_url: `${html}.patch`,
      issue_url: issueUrl,
      commits_url: `${url}/commits`,
      review_comments_url: `${url}/comments`,
      review_comment_url: reviewComment,
      comments_url: `${issueUrl}/comments`,
      statuses_url: statuses,
      _links: {
        self: { href: url },
        html: { href: html },
        issue: { href: issueUrl },
        comments: { href: `${issueUrl}/comments` },
        review_comments: { href: `${url}/comments` },
        review_comment: { href: reviewComment },
        commits: { href: `${url}/commits` },
        statuses: { href: statuses }
      }
    }
  }

  /** A PR's head or base: a branch of this repository. */
  private refJson(branch: string, sha: string): Record<string, unknown> {
    return {
      label: `${this.repo.owner}:${branch}`,
      ref: branch,
      sha,
      user: this.userJson(this.repo.owner, 'Organization'),
      repo: this.repoJson()
    }
  }

  commentJson(comment: MockComment): Record<string, unknown> {
    const issue = this.issue(comment.issue_number)
    const kind = issue?.pull ? 'pull' : 'issues'
    return {
      id: comment.id,
      node_id: nodeId('IC', comment.id),
      url: `${this.repoApi}/issues/comments/${comment.id}`,
      html_url: `${this.repoHtml}/${kind}/${comment.issue_number}#issuecomment-${comment.id}`,
      issue_url: `${this.repoApi}/issues/${comment.issue_number}`,
      body: comment.body,
      user: this.userJson(comment.user),
      // GitHub sets this on what an app's installation token wrote (GITHUB_TOKEN: github-actions).
      performed_via_github_app: comment.user.endsWith('[bot]') ? this.appJson(comment.user) : null,
      created_at: comment.created_at,
      updated_at: comment.updated_at,
      author_association: this.association(comment.user)
    }
  }

  reviewCommentJson(c: MockReviewComment): Record<string, unknown> {
    const url = `${this.repoApi}/pulls/comments/${c.id}`
    const html = `${this.repoHtml}/pull/${c.pull_number}#discussion_r${c.id}`
    const pullUrl = `${this.repoApi}/pulls/${c.pull_number}`
    return {
      url,
      pull_request_review_id: c.review_id,
      id: c.id,
      node_id: nodeId('PRRC', c.id),
      diff_hunk: c.diff_hunk,
      path: c.path,
      position: c.line,
      original_position: c.line,
      commit_id: c.commit_id,
      original_commit_id: c.commit_id,
      ...(c.in_reply_to_id !== undefined && { in_reply_to_id: c.in_reply_to_id }),
      user: this.userJson(c.user),
      body: c.body,
      created_at: c.created_at,
      updated_at: c.updated_at,
      html_url: html,
      pull_request_url: pullUrl,
      author_association: this.association(c.user),
      _links: { self: { href: url }, html: { href: html }, pull_request: { href: pullUrl } },
      line: c.line,
      original_line: c.line,
      side: 'RIGHT',
      subject_type: 'line'
    }
  }

  jobJson(job: MockJob): Record<string, unknown> {
    const at = '2026-01-01T00:00:00Z'
    return {
      id: job.id,
      run_id: job.run_id,
      run_url: `${this.repoApi}/actions/runs/${job.run_id}`,
      run_attempt: 1,
      node_id: nodeId('CR', job.id),
      head_sha: job.head_sha,
      url: `${this.repoApi}/actions/jobs/${job.id}`,
      html_url: `${this.repoHtml}/actions/runs/${job.run_id}/job/${job.id}`,
      status: job.status,
      conclusion: job.conclusion,
      created_at: at,
      started_at: at,
      completed_at: at,
      name: job.name,
      steps: job.steps.map((step, i) => ({
        name: step.name,
        status: 'completed',
        conclusion: step.conclusion,
        number: i + 1,
        started_at: at,
        completed_at: at
      })),
      check_run_url: `${this.repoApi}/check-runs/${job.id}`,
      labels: ['ubuntu-latest'],
      runner_id: 1,
      runner_name: 'GitHub Actions 1',
      runner_group_id: 1,
      runner_group_name: 'GitHub Actions',
      workflow_name: 'CI',
      head_branch: job.head_branch
    }
  }

  reactionJson(reaction: MockReaction): Record<string, unknown> {
    return {
      id: reaction.id,
      node_id: nodeId('REA', reaction.id),
      user: this.userJson(reaction.user),
      content: reaction.content,
      created_at: reaction.created_at
    }
  }

  private association(login: string): string {
    if (login === this.repo.owner) return 'OWNER'
    const role = this.collaborators.get(login)
    return role && role !== 'none' ? 'COLLABORATOR' : 'NONE'
  }
}

// The hypermedia URLs GitHub puts on every user and repository; clients rarely read them, but
// GitHub's schema requires them.
const USER_LINKS = {
  events_url: '/events{/privacy}',
  followers_url: '/followers',
  following_url: '/following{/other_user}',
  gists_url: '/gists{/gist_id}',
  organizations_url: '/orgs',
  received_events_url: '/received_events',
  repos_url: '/repos',
  starred_url: '/starred{/owner}{/repo}',
  subscriptions_url: '/subscriptions'
}
const REPO_LINKS = Object.fromEntries(
  Object.entries({
    archive: '/{archive_format}{/ref}',
    assignees: '/assignees{/user}',
    blobs: '/git/blobs{/sha}',
    branches: '/branches{/branch}',
    collaborators: '/collaborators{/collaborator}',
    comments: '/comments{/number}',
    commits: '/commits{/sha}',
    compare: '/compare/{base}...{head}',
    contents: '/contents/{+path}',
    contributors: '/contributors',
    deployments: '/deployments',
    downloads: '/downloads',
    events: '/events',
    forks: '/forks',
    git_commits: '/git/commits{/sha}',
    git_refs: '/git/refs{/sha}',
    git_tags: '/git/tags{/sha}',
    hooks: '/hooks',
    issue_comment: '/issues/comments{/number}',
    issue_events: '/issues/events{/number}',
    issues: '/issues{/number}',
    keys: '/keys{/key_id}',
    labels: '/labels{/name}',
    languages: '/languages',
    merges: '/merges',
    milestones: '/milestones{/number}',
    notifications: '/notifications{?since,all,participating}',
    pulls: '/pulls{/number}',
    releases: '/releases{/id}',
    stargazers: '/stargazers',
    statuses: '/statuses/{sha}',
    subscribers: '/subscribers',
    subscription: '/subscription',
    tags: '/tags',
    teams: '/teams',
    trees: '/git/trees{/sha}'
  }).map(([name, suffix]) => [`${name}_url`, suffix])
)

const urlTemplates = (base: string, links: Record<string, string>): Record<string, string> =>
  Object.fromEntries(Object.entries(links).map(([key, suffix]) => [key, base + suffix]))

const nodeId = (kind: string, id: number): string => Buffer.from(`${kind}_${id}`).toString('base64')
