// The mock's landing-train side behind the real Octokit: reviews, check runs, rules, the merge with
// GitHub's refusals (405 with GitHub's reason, 409 when the head moved), the base really moved in
// the git remote, "Update branch", and the GraphQL mutations checked against GitHub's schema.
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startGitHubMock, type GitHubMock } from '../../demo/github-mock.js'
import { gitTestEnv, runGit, startGitRemote, type GitRemote } from '../../demo/git-remote.js'
import { reportCheck } from '../../demo/github-merge.js'

const TOKEN = 'ghs_mergetoken'
const repo = { owner: 'acme', repo: 'widgets' }
let mock: GitHubMock
let remote: GitRemote
let work: string
let octokit: ReturnType<typeof import('@actions/github').getOctokit>
const env = () => gitTestEnv(path.join(work, 'home'))

async function git(args: string[]): Promise<string> {
  const r = await runGit(args, path.join(work, 'clone'), env())
  if (r.exitCode !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`)
  return r.stdout.trim()
}

/** A branch off main with one file, pushed, and its PR. */
async function branchWithPr(branch: string, file: string) {
  await git(['checkout', '-q', '-B', branch, 'origin/main'])
  await writeFile(path.join(work, 'clone', file), `${branch}\n`)
  await git(['add', file])
  await git(['commit', '-q', '-m', `add ${file}`])
  await git(['push', '-q', 'origin', `HEAD:refs/heads/${branch}`])
  return mock.addPull({ head: branch, title: `Add ${file}` })
}

beforeAll(async () => {
  work = await mkdtemp(path.join(tmpdir(), 'mock-merge-'))
  remote = await startGitRemote({ token: TOKEN })
  const url = await remote.createRepo('acme/widgets', { files: { 'README.md': '# w\n' } })
  mock = await startGitHubMock({
    ...repo,
    token: TOKEN,
    collaborators: { wren: 'write', rae: 'read' },
    repoDir: remote.repoPath('acme/widgets')
  })
  const auth = url.replace('://', `://x-access-token:${TOKEN}@`)
  const r = await runGit(['clone', '-q', auth, 'clone'], work, env())
  if (r.exitCode !== 0) throw new Error(r.stderr)
  process.env.GITHUB_API_URL = mock.url
  const github = await import('@actions/github')
  octokit = github.getOctokit(TOKEN, { baseUrl: mock.url })
})

afterAll(async () => {
  delete process.env.GITHUB_API_URL
  await mock?.close()
  await remote?.close()
  if (work) await rm(work, { recursive: true, force: true })
})

async function refused(call: Promise<unknown>) {
  return call.then(
    () => ({ status: 0, message: 'merged' }),
    (e: { status: number; response?: { data?: { message?: string } } }) => ({
      status: e.status,
      message: e.response?.data?.message ?? ''
    })
  )
}

describe('merging through the mock', () => {
  it("answers with GitHub's refusals, then merges and moves the base", async () => {
    const pr = await branchWithPr('fleet/a', 'a.txt')
    const head = await git(['rev-parse', 'HEAD'])
    mock.state.rules = [
      { type: 'required_status_checks', checks: ['ci'] },
      { type: 'pull_request', approvals: 1 }
    ]
    const { data: got } = await octokit.rest.pulls.get({ ...repo, pull_number: pr.number })
    expect(got.head.sha).toBe(head)
    expect(got.mergeable_state).toBe('clean')

    const merge = (sha = head, method: 'merge' | 'squash' | 'rebase' = 'squash') =>
      octokit.rest.pulls.merge({ ...repo, pull_number: pr.number, sha, merge_method: method })
    expect(await refused(merge('0'.repeat(40)))).toEqual({
      status: 409,
      message: 'Head branch was modified. Review and try the merge again.'
    })
    expect(await refused(merge())).toEqual({
      status: 405,
      message: 'Required status check "ci" is expected.'
    })
    const { data: checks } = await octokit.rest.checks.listForRef({ ...repo, ref: head })
    expect(checks.total_count).toBe(0)
    reportCheck(mock.state, head, 'ci', 'failure')
    expect((await refused(merge())).message).toBe('Required status check "ci" is failing.')
    reportCheck(mock.state, head, 'ci')
    expect((await refused(merge())).message).toBe(
      'At least 1 approving review is required by reviewers with write access.'
    )
    mock.state.addReview(pr.number, 'rae', 'APPROVED')
    expect((await refused(merge())).status).toBe(405)
    mock.state.addReview(pr.number, 'wren', 'APPROVED')
    const { data: reviews } = await octokit.rest.pulls.listReviews({
      ...repo,
      pull_number: pr.number
    })
    expect(reviews.map(r => [r.user?.login, r.state, r.commit_id])).toEqual([
      ['rae', 'APPROVED', head],
      ['wren', 'APPROVED', head]
    ])
    const { data: rules } = await octokit.rest.repos.getBranchRules({ ...repo, branch: 'main' })
    expect(rules.map(r => r.type)).toEqual(['required_status_checks', 'pull_request'])

    mock.state.settings.allow_merge_commit = false
    expect((await refused(merge(head, 'merge'))).message).toBe(
      'Merge commits are not allowed on this repository.'
    )
    const before = (await remote.branches('acme/widgets')).main
    const { data: merged } = await merge()
    expect(merged.merged).toBe(true)
    const after = (await remote.branches('acme/widgets')).main
    expect(after).toBe(merged.sha)
    expect(after).not.toBe(before)
    expect(await remote.readFile('acme/widgets', 'main', 'a.txt')).toBe('fleet/a\n')
    expect(mock.state.pullByNumber(pr.number)?.state).toBe('closed')
    expect(mock.invalid).toEqual([])
  })

  it('a PR cut before the merge is behind; Update branch merges the base into it', async () => {
    mock.state.rules = []
    await git(['fetch', '-q', 'origin'])
    await git(['checkout', '-q', '-B', 'fleet/b', 'origin/main~1'])
    await writeFile(path.join(work, 'clone', 'b.txt'), 'b\n')
    await git(['add', 'b.txt'])
    await git(['commit', '-q', '-m', 'add b'])
    await git(['push', '-q', 'origin', 'HEAD:refs/heads/fleet/b'])
    const pr = mock.addPull({ head: 'fleet/b', title: 'Add b' })
    const { data } = await octokit.rest.pulls.get({ ...repo, pull_number: pr.number })
    expect(data.mergeable_state).toBe('behind')
    const { status } = await octokit.rest.pulls.updateBranch({ ...repo, pull_number: pr.number })
    expect(status).toBe(202)
    expect(await remote.readFile('acme/widgets', 'fleet/b', 'a.txt')).toBe('fleet/a\n')
    const again = await refused(
      octokit.rest.pulls.updateBranch({ ...repo, pull_number: pr.number })
    )
    expect(again.status).toBe(422)
    // Rebase: the branch's commit replayed on main, main moved to it.
    const { data: merged } = await octokit.rest.pulls.merge({
      ...repo,
      pull_number: pr.number,
      merge_method: 'rebase'
    })
    const log = await remote.log('acme/widgets', 'main', 2)
    expect(log[0]?.sha).toBe(merged.sha)
    expect(log.map(c => c.subject)).toEqual(['add b', 'Add a.txt (#1)'])
  })

  it("runs GraphQL against GitHub's schema: ready for review, auto-merge, refusals", async () => {
    const pr = await branchWithPr('fleet/c', 'c.txt')
    pr.pull.draft = true
    const { data } = await octokit.rest.pulls.get({ ...repo, pull_number: pr.number })
    const ready = await octokit.graphql<{
      markPullRequestReadyForReview: { pullRequest: { isDraft: boolean } }
    }>(
      `mutation($id: ID!) { markPullRequestReadyForReview(input: {pullRequestId: $id}) { pullRequest { isDraft } } }`,
      { id: data.node_id }
    )
    expect(ready.markPullRequestReadyForReview.pullRequest.isDraft).toBe(false)
    const enable = (id: string) =>
      octokit.graphql(
        `mutation($id: ID!) { enablePullRequestAutoMerge(input: {pullRequestId: $id, mergeMethod: SQUASH}) { pullRequest { autoMergeRequest { mergeMethod } } } }`,
        { id }
      )
    mock.state.rules = [{ type: 'required_status_checks', checks: ['ci'] }]
    await expect(enable(data.node_id)).rejects.toThrow(
      'Pull request Auto merge is not allowed for this repository'
    )
    mock.state.settings.allow_auto_merge = true
    await enable(data.node_id)
    expect(mock.state.pullByNumber(pr.number)?.pull.auto_merge?.merge_method).toBe('squash')
    // CI passes on the head: GitHub lands it.
    reportCheck(mock.state, data.head.sha, 'ci')
    expect(mock.state.pullByNumber(pr.number)?.pull.merged_at).not.toBeNull()
    expect(await remote.readFile('acme/widgets', 'main', 'c.txt')).toBe('fleet/c\n')
    expect(mock.invalid).toEqual([])
    // A field GitHub's schema does not have is refused, and recorded as an invalid request.
    await expect(
      octokit.graphql(`mutation { markPullRequestReadyForReview(input: {prId: "x"}) { ok } }`)
    ).rejects.toThrow()
    expect(mock.invalid.map(i => i.path)).toEqual(['/graphql'])
    mock.invalid.length = 0
  })
})
