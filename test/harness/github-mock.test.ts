import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startGitHubMock, type GitHubMock } from '../../demo/github-mock.js'

const TOKEN = 'ghs_mocktoken'
const READ_ONLY = 'ghs_mock_read_only'
const FLEET_ISSUES = 250

let mock: GitHubMock
let github: typeof import('@actions/github')
let octokit: ReturnType<typeof github.getOctokit>

beforeAll(async () => {
  mock = await startGitHubMock({
    owner: 'acme',
    repo: 'widgets',
    token: TOKEN,
    tokens: { [READ_ONLY]: 'read' },
    collaborators: { alice: 'admin', mo: 'maintain', wren: 'write', tia: 'triage', rae: 'read' },
    // 250 open issues queued with the label, 20 that are not, 5 queued but closed.
    issues: Array.from({ length: FLEET_ISSUES + 25 }, (_, i) => ({
      title: `task ${i}`,
      labels:
        i >= FLEET_ISSUES && i < FLEET_ISSUES + 20
          ? ['other']
          : ['fleet', ...(i % 2 ? ['small'] : [])],
      state: i >= FLEET_ISSUES + 20 ? ('closed' as const) : ('open' as const),
      created_at: new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString().replace('.000', '')
    }))
  })
  // @actions/github reads GITHUB_API_URL once, when it is first imported.
  process.env.GITHUB_API_URL = mock.url
  github = await import('@actions/github')
  octokit = github.getOctokit(TOKEN, { baseUrl: mock.url })
  console.log(`Prism start-up on the trimmed spec: ${mock.prismStartupMs} ms`)
})

afterAll(async () => {
  delete process.env.GITHUB_API_URL
  await mock.close()
})

const repo = { owner: 'acme', repo: 'widgets' }

async function statusOf(call: Promise<unknown>): Promise<{ status: number; message: string }> {
  const error = (await call.then(
    () => ({ status: 0, message: 'resolved' }),
    (e: unknown) => e
  )) as { status: number; message: string }
  return { status: error.status, message: error.message }
}

describe('GitHub mock behind the real Octokit', () => {
  it('serves the API at GITHUB_API_URL and checks the token', async () => {
    const viaEnv = github.getOctokit(TOKEN)
    const { data } = await viaEnv.rest.repos.get(repo)
    expect(data.default_branch).toBe('main')
    expect(data.full_name).toBe('acme/widgets')
    const stranger = github.getOctokit('wrong-token')
    expect((await statusOf(stranger.rest.repos.get(repo))).status).toBe(401)
  })

  it('lets a read-only token read, and answers its writes 403 as GitHub does, counting them', async () => {
    const reader = github.getOctokit(READ_ONLY, { baseUrl: mock.url })
    expect((await reader.rest.repos.get(repo)).data.full_name).toBe('acme/widgets')
    const issue = mock.addIssue({ title: 'read-only target' })
    const pulls = mock.state.pulls.length
    const comments = mock.state.comments.length
    const writes = [
      () => reader.rest.issues.createComment({ ...repo, issue_number: issue.number, body: 'hi' }),
      () => reader.rest.issues.update({ ...repo, issue_number: issue.number, state: 'closed' }),
      () => reader.rest.issues.addLabels({ ...repo, issue_number: issue.number, labels: ['x'] }),
      () => reader.rest.issues.removeLabel({ ...repo, issue_number: issue.number, name: 'x' }),
      () =>
        reader.rest.reactions.createForIssue({
          ...repo,
          issue_number: issue.number,
          content: 'eyes'
        }),
      () => reader.rest.pulls.create({ ...repo, head: 'fleet/ro', base: 'main', title: 'ro' }),
      () => reader.rest.issues.createLabel({ ...repo, name: 'fleet:ro' })
    ]
    const before = mock.refused.length
    for (const call of writes) {
      const error = (await call().then(
        () => undefined,
        (e: unknown) => e
      )) as { status: number; response?: { data: unknown } } | undefined
      expect(error?.status).toBe(403)
      const data = error?.response?.data as Record<string, unknown> | undefined
      expect(data?.message).toBe('Resource not accessible by integration')
      expect(data?.status).toBe('403')
      expect(String(data?.documentation_url)).toMatch(/^https:\/\/docs\.github\.com\/rest\//)
    }
    expect(mock.refused.length - before).toBe(writes.length)
    expect(mock.state.pulls.length).toBe(pulls)
    expect(mock.state.comments.length).toBe(comments)
    expect(mock.state.issues.find(i => i.number === issue.number)?.state).toBe('open')
  })

  it('creates a PR, finds it by head, and refuses a second open one for the branch', async () => {
    const created = await octokit.rest.pulls.create({
      ...repo,
      head: 'fleet/add-readme',
      base: 'main',
      title: 'Add README',
      body: 'Works on #1'
    })
    expect(created.status).toBe(201)
    expect(created.data.head.ref).toBe('fleet/add-readme')
    expect(created.data.head.label).toBe('acme:fleet/add-readme')
    expect(created.data.user?.login).toBe('github-actions[bot]')
    expect(created.data.html_url).toBe(
      `https://github.com/acme/widgets/pull/${created.data.number}`
    )
    // Issues and PRs share one number sequence.
    expect(created.data.number).toBe(mock.state.issues.length)

    const listed = await octokit.rest.pulls.list({
      ...repo,
      head: 'acme:fleet/add-readme',
      state: 'open'
    })
    expect(listed.data.map(p => p.number)).toEqual([created.data.number])
    const other = await octokit.rest.pulls.list({ ...repo, head: 'acme:fleet/nothing' })
    expect(other.data).toEqual([])
    // As on GitHub, a head filter without its owner prefix is silently ignored.
    mock.addPull({ head: 'fleet/unrelated' })
    const unfiltered = await octokit.rest.pulls.list({ ...repo, head: 'fleet/add-readme' })
    expect(unfiltered.data.map(p => p.head.ref).sort()).toEqual([
      'fleet/add-readme',
      'fleet/unrelated'
    ])

    const duplicate = await statusOf(
      octokit.rest.pulls.create({ ...repo, head: 'fleet/add-readme', base: 'main', title: 'again' })
    )
    expect(duplicate.status).toBe(422)
    expect(duplicate.message).toContain('A pull request already exists for acme:fleet/add-readme.')
    const sameBranch = await statusOf(
      octokit.rest.pulls.create({ ...repo, head: 'main', base: 'main', title: 'x' })
    )
    expect(sameBranch.status).toBe(422)

    const updated = await octokit.rest.pulls.update({
      ...repo,
      pull_number: created.data.number,
      title: 'Add a README',
      state: 'closed'
    })
    expect(updated.data).toMatchObject({ title: 'Add a README', state: 'closed' })
    const reopened = await octokit.rest.pulls.create({
      ...repo,
      head: 'fleet/add-readme',
      base: 'main',
      title: 'retry'
    })
    expect(reopened.status).toBe(201)
    expect(mock.state.pulls.filter(p => p.pull.head === 'fleet/add-readme')).toHaveLength(2)
  })

  it('rejects a request that breaks the OpenAPI description and records it', async () => {
    // A plain string escapes Octokit's types, which would refuse this call at compile time.
    const untypedRoute: string = 'POST /repos/{owner}/{repo}/pulls'
    const pullsBefore = mock.state.pulls.length
    const invalidBefore = mock.invalid.length
    const missingHead = await statusOf(
      octokit.request(untypedRoute, {
        ...repo,
        base: 'main',
        title: 'no head'
      })
    )
    expect(missingHead.status).toBe(422)
    expect(missingHead.message).toContain("required property 'head'")
    expect(mock.invalid.slice(invalidBefore)).toEqual([
      {
        method: 'POST',
        path: '/repos/acme/widgets/pulls',
        status: 422,
        problem: [expect.objectContaining({ code: 'required', location: ['request', 'body'] })]
      }
    ])
    expect(mock.state.pulls).toHaveLength(pullsBefore)
    const unknownRoute = await statusOf(octokit.request('GET /repos/{owner}/{repo}/git/refs', repo))
    expect(unknownRoute.status).toBe(404)
    expect(mock.invalid.at(-1)?.problem).toMatchObject({
      title: 'Route not resolved, no path matched'
    })
  })

  it('paginates issues filtered by label, with Link headers', async () => {
    const before = mock.requests.length
    const issues = await octokit.paginate(octokit.rest.issues.listForRepo, {
      ...repo,
      labels: 'fleet',
      state: 'open',
      per_page: 100
    })
    expect(issues).toHaveLength(FLEET_ISSUES)
    expect(new Set(issues.map(i => i.number)).size).toBe(FLEET_ISSUES)
    expect(issues.every(i => i.labels.some(l => typeof l !== 'string' && l.name === 'fleet'))).toBe(
      true
    )
    // Newest first, GitHub's default order.
    expect(issues[0]?.title).toBe(`task ${FLEET_ISSUES - 1}`)
    const pages = mock.requests.slice(before).map(r => [r.status, r.query.page ?? '1'])
    expect(pages).toEqual([
      [200, '1'],
      [200, '2'],
      [200, '3']
    ])
    const both = await octokit.paginate(octokit.rest.issues.listForRepo, {
      ...repo,
      labels: 'fleet,small',
      per_page: 100
    })
    expect(both).toHaveLength(FLEET_ISSUES / 2)
  })

  it('answers collaborator permissions as GitHub maps roles', async () => {
    const lookup = async (username: string) =>
      (await octokit.rest.repos.getCollaboratorPermissionLevel({ ...repo, username })).data
    expect(await lookup('alice')).toMatchObject({ permission: 'admin', role_name: 'admin' })
    expect(await lookup('mo')).toMatchObject({ permission: 'write', role_name: 'maintain' })
    expect(await lookup('tia')).toMatchObject({ permission: 'read', role_name: 'triage' })
    expect(await lookup('mallory')).toMatchObject({
      permission: 'none',
      user: { login: 'mallory' }
    })
  })

  it('creates then updates a comment, and reacts to it once', async () => {
    const { data: comment } = await octokit.rest.issues.createComment({
      ...repo,
      issue_number: 3,
      body: 'Queued'
    })
    expect(comment.user?.login).toBe('github-actions[bot]')
    const { data: edited } = await octokit.rest.issues.updateComment({
      ...repo,
      comment_id: comment.id,
      body: 'Done: #7'
    })
    expect(edited).toMatchObject({ id: comment.id, body: 'Done: #7' })
    const listed = await octokit.rest.issues.listComments({ ...repo, issue_number: 3 })
    expect(listed.data.map(c => c.body)).toEqual(['Done: #7'])

    const first = await octokit.rest.reactions.createForIssueComment({
      ...repo,
      comment_id: comment.id,
      content: 'eyes'
    })
    const again = await octokit.rest.reactions.createForIssueComment({
      ...repo,
      comment_id: comment.id,
      content: 'eyes'
    })
    expect([first.status, again.status]).toEqual([201, 200])
    expect(again.data.id).toBe(first.data.id)
    expect(mock.state.reactions.filter(r => r.comment_id === comment.id)).toHaveLength(1)
    const missing = await statusOf(
      octokit.rest.issues.updateComment({ ...repo, comment_id: 999999, body: 'x' })
    )
    expect(missing.status).toBe(404)
  })

  it('adds and removes labels', async () => {
    const added = await octokit.rest.issues.addLabels({
      ...repo,
      issue_number: 5,
      labels: ['fleet:running']
    })
    expect(added.data.map(l => l.name)).toEqual(['fleet', 'fleet:running'])
    const removed = await octokit.rest.issues.removeLabel({
      ...repo,
      issue_number: 5,
      name: 'fleet:running'
    })
    expect(removed.data.map(l => l.name)).toEqual(['fleet'])
    expect(mock.state.issue(5)?.labels).toEqual(['fleet'])
    expect(
      (await octokit.rest.issues.getLabel({ ...repo, name: 'fleet:running' })).data.color
    ).toBe('ededed')
    const absent = await statusOf(
      octokit.rest.issues.removeLabel({ ...repo, issue_number: 5, name: 'nope' })
    )
    expect(absent.status).toBe(404)
  })

  it('lets a test inject faults the client sees', async () => {
    mock.fail({ method: 'POST', path: /\/pulls$/, status: 502 })
    const failed = await statusOf(
      octokit.rest.pulls.create({ ...repo, head: 'fleet/flaky', base: 'main', title: 'Flaky' })
    )
    expect(failed.status).toBe(502)
    expect(mock.state.pulls.some(p => p.pull.head === 'fleet/flaky')).toBe(false)
    const retried = await octokit.rest.pulls.create({
      ...repo,
      head: 'fleet/flaky',
      base: 'main',
      title: 'Flaky'
    })
    expect(retried.status).toBe(201)

    mock.fail({
      method: 'GET',
      path: /\/issues$/,
      status: 403,
      headers: { 'x-ratelimit-remaining': '0' }
    })
    const limited = await octokit.rest.issues.listForRepo(repo).catch((e: unknown) => e)
    expect(limited).toMatchObject({
      status: 403,
      response: { headers: { 'x-ratelimit-remaining': '0' } }
    })
  })

  it("answers a job's logs as GitHub does: a redirect to the text, which Octokit follows", async () => {
    const ci = mock.state.addRun(
      { head_branch: 'fleet/logs', head_sha: 'c'.repeat(40), conclusion: 'failure' },
      [{ name: 'test', conclusion: 'failure', log: 'line 1\nFAIL line 2\n' }]
    )
    const job = ci.jobs[0]
    if (!job) throw new Error('no job')
    const { data } = await octokit.rest.actions.downloadJobLogsForWorkflowRun({
      ...repo,
      job_id: job.id
    })
    expect(data).toBe('line 1\nFAIL line 2\n')
    const hops = mock.requests.filter(
      r => r.path.endsWith(`/${job.id}/logs`) || r.path.endsWith(`/job-logs/${job.id}`)
    )
    expect(hops.map(r => r.status)).toEqual([302, 200])
    // A reply to a reply is refused, as GitHub refuses it.
    const pr = mock.addPull({ head: 'fleet/replies' })
    const [root] = mock.state.addReviewComments(pr.number, 'wren', [
      { path: 'a', line: 1, body: 'x' }
    ])
    const reply = await octokit.rest.pulls.createReplyForReviewComment({
      ...repo,
      pull_number: pr.number,
      comment_id: root?.id ?? 0,
      body: 'first'
    })
    const again = await statusOf(
      octokit.rest.pulls.createReplyForReviewComment({
        ...repo,
        pull_number: pr.number,
        comment_id: reply.data.id,
        body: 'nested'
      })
    )
    expect(again.status).toBe(422)
  })

  it("answers with every field GitHub's schema requires", async () => {
    const pr = mock.addPull({ head: 'fleet/shape', labels: ['fleet'] })
    const comment = mock.addComment(pr.number, 'hello')
    const reviewId = mock.state.id()
    const [inline] = mock.state.addReviewComments(
      pr.number,
      'wren',
      [{ path: 'a.ts', line: 3, body: 'rename' }],
      reviewId
    )
    if (!inline) throw new Error('no review comment')
    const ci = mock.state.addRun(
      { head_branch: 'fleet/shape', head_sha: 'b'.repeat(40), conclusion: 'failure' },
      [{ name: 'test', conclusion: 'failure', log: 'boom' }]
    )
    const calls: Array<[string, Record<string, unknown>]> = [
      ['GET /repos/{owner}/{repo}', {}],
      ['GET /repos/{owner}/{repo}/pulls', { state: 'all' }],
      ['GET /repos/{owner}/{repo}/pulls/{pull_number}', { pull_number: pr.number }],
      [
        'POST /repos/{owner}/{repo}/pulls/{pull_number}/requested_reviewers',
        { pull_number: pr.number, reviewers: ['wren'] }
      ],
      ['GET /repos/{owner}/{repo}/issues', { state: 'all' }],
      ['GET /repos/{owner}/{repo}/issues/{issue_number}', { issue_number: pr.number }],
      [
        'POST /repos/{owner}/{repo}/issues/{issue_number}/assignees',
        { issue_number: 1, assignees: ['wren'] }
      ],
      ['GET /repos/{owner}/{repo}/issues/{issue_number}/comments', { issue_number: pr.number }],
      ['GET /repos/{owner}/{repo}/issues/{issue_number}/events', { issue_number: pr.number }],
      [
        'POST /repos/{owner}/{repo}/issues/comments/{comment_id}/reactions',
        { comment_id: comment.id, content: 'rocket' }
      ],
      ['GET /repos/{owner}/{repo}/collaborators/{username}/permission', { username: 'rae' }],
      ['GET /repos/{owner}/{repo}/labels', {}],
      ['POST /repos/{owner}/{repo}/labels', { name: 'fleet:done', color: '0e8a16' }],
      ['PATCH /repos/{owner}/{repo}/issues/{issue_number}', { issue_number: 2, state: 'closed' }],
      ['PATCH /repos/{owner}/{repo}/pulls/{pull_number}', { pull_number: pr.number, body: 'v2' }],
      ['GET /repos/{owner}/{repo}/pulls/{pull_number}/comments', { pull_number: pr.number }],
      [
        'GET /repos/{owner}/{repo}/pulls/{pull_number}/reviews/{review_id}/comments',
        { pull_number: pr.number, review_id: reviewId }
      ],
      [
        'POST /repos/{owner}/{repo}/pulls/{pull_number}/comments/{comment_id}/replies',
        { pull_number: pr.number, comment_id: inline.id, body: 'Done.' }
      ],
      [
        'POST /repos/{owner}/{repo}/pulls/comments/{comment_id}/reactions',
        { comment_id: inline.id, content: 'eyes' }
      ],
      ['GET /repos/{owner}/{repo}/actions/runs/{run_id}/jobs', { run_id: ci.run.id }]
    ]
    for (const [route, params] of calls) {
      const response = await octokit.request(route, { ...repo, ...params })
      const [method = '', path = ''] = route.split(' ')
      expect(missingRequired(method, path, response.status, response.data), route).toEqual([])
    }
    expect(mock.state.reviewComments.filter(c => c.in_reply_to_id === inline.id)).toHaveLength(1)
    expect(mock.state.pullByNumber(pr.number)?.pull.requested_reviewers).toEqual(['wren'])
    expect(mock.state.issue(1)?.assignees).toEqual(['wren'])
  })
})

// ---- a small required-field check against the same OpenAPI description Prism uses ----

type Schema = {
  $ref?: string
  type?: string
  required?: string[]
  properties?: Record<string, Schema>
  items?: Schema
  allOf?: Schema[]
  anyOf?: Schema[]
  oneOf?: Schema[]
  nullable?: boolean
}
const spec = JSON.parse(
  readFileSync(new URL('../../demo/github-api.trimmed.json', import.meta.url), 'utf8')
) as {
  paths: Record<
    string,
    Record<
      string,
      { responses: Record<string, Schema & { content?: Record<string, { schema: Schema }> }> }
    >
  >
  components: Record<string, Record<string, Schema>>
}

function deref<T extends { $ref?: string }>(node: T): T {
  if (!node.$ref) return node
  const [, , kind = '', name = ''] = node.$ref.split('/')
  return deref(spec.components[kind]?.[name] as T)
}

function missingRequired(method: string, path: string, status: number, data: unknown): string[] {
  const response = deref(spec.paths[path]?.[method.toLowerCase()]?.responses[String(status)] ?? {})
  const schema = response.content?.['application/json']?.schema
  if (!schema) return [`no ${status} schema for ${method} ${path}`]
  return missing(schema, data, '$', 4)
}

function missing(node: Schema, value: unknown, at: string, depth: number): string[] {
  const schema = deref(node)
  if (depth === 0 || value === null || value === undefined) return []
  const variants = schema.anyOf ?? schema.oneOf
  if (variants) {
    const results = variants.map(v => missing(v, value, at, depth))
    return results.find(r => r.length === 0) ?? results[0] ?? []
  }
  if (schema.allOf) return schema.allOf.flatMap(part => missing(part, value, at, depth))
  if (Array.isArray(value))
    return schema.items
      ? value.slice(0, 2).flatMap((v, i) => missing(schema.items!, v, `${at}[${i}]`, depth))
      : []
  if (typeof value !== 'object') return []
  const object = value as Record<string, unknown>
  return [
    ...(schema.required ?? []).filter(key => !(key in object)).map(key => `${at}.${key}`),
    ...Object.entries(schema.properties ?? {}).flatMap(([key, sub]) =>
      key in object ? missing(sub, object[key], `${at}.${key}`, depth - 1) : []
    )
  ]
}
