// Issue 18, through dist/: reviews, inline comments and failed checks on a PR the action opened
// become follow-up turns on its branch; the same PR is updated and answered in its threads.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { changesRequested, expectOk, writeScript } from '../support/scenario.js'
import { pullRequestReviewComment, workflowRunCompleted } from '../support/events.js'
import { script } from '../../demo/model-server.js'
import type { MockPull } from '../../demo/github-mock.js'
import { byId, OWNER, REPO, results, type Stack, startStack } from '../../demo/stack.js'
import { COLLABORATORS, pullsFor } from './triggers-support.js'

const FULL = `${OWNER}/${REPO}`
const ANSWER = '<!-- fleet-worker:answer '
const STOPPED = '<!-- fleet-worker:fix-ups-stopped -->'
const BOT = 'github-actions[bot]'

/** Everything a worker of this key sent the model, as text. */
const sent = (stack: Stack, key: string) =>
  stack.model
    .requestsFor(key)
    .map(r => JSON.stringify(r.body))
    .join('\n')

const prOf = (stack: Stack, number: number): MockPull => {
  const pr = stack.github.state.pullByNumber(number)
  if (!pr) throw new Error(`no PR #${number}`)
  return pr
}

const summaries = (stack: Stack, pr: number) =>
  stack.github.state.comments.filter(c => c.issue_number === pr && c.body.includes(ANSWER))

const repliesTo = (stack: Stack, thread: number) =>
  stack.github.state.reviewComments.filter(c => c.in_reply_to_id === thread)

describe('answering on a fleet PR', () => {
  let stack: Stack
  let pr: MockPull
  beforeAll(async () => {
    stack = await startStack({ github: { collaborators: COLLABORATORS } })
    const seed = writeScript('seed', 'parser.txt', 'parse(input)\n', 'Wrote the parser.')
    const first = await stack.run({
      // A title of its own: the PR's title goes into later prompts, and a script cut short in it
      // would hide the next one from the model server.
      inputs: {
        tasks: JSON.stringify([{ id: 'x', title: 'Write the parser', prompt: `Write it ${seed}` }])
      }
    })
    expect(byId(first).get('x')?.status, first.stdout + first.stderr).toBe('pr-opened')
    const [made] = pullsFor(stack, 'fleet/x')
    if (!made) throw new Error('the seed run opened no PR')
    pr = made
  })
  afterAll(async () => stack?.close())

  const review = (reviewer: string, body: string, reviewId: number, target = pr) =>
    changesRequested(target, reviewer, body, reviewId)

  it('a changes-requested review with two inline comments: one worker, fixes on the branch head, same PR updated, a reply in each thread', async () => {
    const headBefore = (await stack.git.branches(FULL))['fleet/x']
    const reviewId = stack.github.state.id()
    const threads = stack.github.state.addReviewComments(
      pr.number,
      'maria',
      [
        {
          path: 'parser.txt',
          line: 1,
          body: 'Empty input crashes here.',
          diff_hunk: '@@ -0,0 +1 @@\n+parse(input)'
        },
        {
          path: 'parser.txt',
          line: 1,
          body: 'Call it parseAll.',
          diff_hunk: '@@ -0,0 +1 @@\n+parse(input)'
        }
      ],
      reviewId
    )
    const work = script({
      key: 'review',
      steps: [
        { tool: 'Bash', input: { command: 'cat parser.txt' } },
        { tool: 'Write', input: { file_path: 'parser.txt', content: 'parseAll(input ?? "")\n' } },
        {
          text: 'Addressed the review.\n[1] Empty input now parses as "".\n[2] Renamed parse to parseAll.'
        }
      ]
    })
    const pulls = stack.github.state.pulls.length
    const run = await stack.run({
      eventName: 'pull_request_review',
      payload: review('maria', `Two things. ${work}`, reviewId),
      inputs: { 'address-reviews': 'true' }
    })
    expectOk(run)
    expect(results(run).map(r => [r.id, r.status, r['pr-number']])).toEqual([
      ['x', 'pr-updated', pr.number]
    ])
    expect(stack.github.state.pulls.length).toBe(pulls)
    // The worker was shown both inline comments, with their file and hunk.
    const prompt = sent(stack, 'review')
    expect(prompt).toContain('Empty input crashes here.')
    expect(prompt).toContain('Call it parseAll.')
    expect(prompt).toContain('file=\\"parser.txt line 1\\"')
    // Its shell saw the branch's file: it started from the PR's head, which is kept below the fix.
    expect(
      stack.model
        .requestsFor('review')
        .find(q => q.step === 1)
        ?.toolResults.join('')
    ).toContain('parse(input)')
    const log = await stack.git.log(FULL, 'fleet/x')
    expect(log.map(c => c.sha)).toContain(headBefore)
    expect(log[0]?.sha).not.toBe(headBefore)
    expect(await stack.git.readFile(FULL, 'fleet/x', 'parser.txt')).toBe('parseAll(input ?? "")\n')
    // One reply from the action in each thread, with what the worker said for it.
    const [first, second] = threads.map(t => repliesTo(stack, t.id))
    expect(first?.map(c => c.user)).toEqual([BOT])
    expect(second?.map(c => c.user)).toEqual([BOT])
    expect(first?.[0]?.body).toContain('Empty input now parses as ""')
    expect(second?.[0]?.body).toContain('Renamed parse to parseAll')
    expect(summaries(stack, pr.number)).toHaveLength(1)
    expect(summaries(stack, pr.number)[0]?.body).toContain('the review by @maria')
    expect(stack.github.invalid).toEqual([])

    // "Re-run jobs" delivers the same review again: it was answered, so nothing runs twice.
    const requests = stack.model.requests.length
    const again = await stack.run({
      eventName: 'pull_request_review',
      payload: review('maria', `Two things. ${work}`, reviewId),
      inputs: { 'address-reviews': 'true' }
    })
    expectOk(again)
    expect(results(again)).toEqual([])
    expect(stack.model.requests.length).toBe(requests)
    expect(threads.map(t => repliesTo(stack, t.id).length)).toEqual([1, 1])
  })

  it('an inline comment starting with /fleet: that thread is the task, and it gets the reply', async () => {
    const work = writeScript(
      'inline',
      'NOTES.md',
      'parseAll takes any input\n',
      'Documented it.\n[1] Added NOTES.md.'
    )
    const body = `/fleet document this ${work}`
    const [comment] = stack.github.state.addReviewComments(pr.number, 'olga', [
      { path: 'parser.txt', line: 1, body }
    ])
    if (!comment) throw new Error('no comment')
    const payload = pullRequestReviewComment({
      owner: OWNER,
      repo: REPO,
      pr: {
        number: pr.number,
        title: pr.title,
        body: prOf(stack, pr.number).body ?? '',
        head: 'fleet/x'
      },
      commenter: 'olga',
      comment: { id: comment.id, body, path: 'parser.txt', line: 1, diffHunk: comment.diff_hunk }
    })
    const run = await stack.run({ eventName: 'pull_request_review_comment', payload })
    expectOk(run)
    expect(byId(run).get('x')?.status).toBe('pr-updated')
    expect(await stack.git.readFile(FULL, 'fleet/x', 'NOTES.md')).toBe('parseAll takes any input\n')
    expect(
      repliesTo(stack, comment.id).map(c => [c.user, c.body.includes('Added NOTES.md')])
    ).toEqual([[BOT, true]])
    expect(
      stack.github.state.reactions.filter(r => r.comment_id === comment.id).map(r => r.content)
    ).toEqual(['eyes'])
  })

  it("a reader's review is refused with a reply, before any model request; a bot's not in allowed-bots is ignored without one", async () => {
    const before = stack.model.requests.length
    const work = script({ key: 'reader', steps: [{ text: 'should never run' }] })
    const run = await stack.run({
      eventName: 'pull_request_review',
      payload: review('rita', `/fleet rewrite it all ${work}`, stack.github.state.id())
    })
    expect(results(run).map(r => [r.id, r.status])).toEqual([['x', 'refused']])
    expect(run.exitCode).not.toBe(0)
    expect(stack.model.requests.length).toBe(before)
    const reply = stack.github.state.comments.filter(
      c => c.issue_number === pr.number && c.body.includes('@rita')
    )
    expect(reply).toHaveLength(1)
    expect(reply[0]?.body).toContain('read access')
    // A bot not named in allowed-bots is ignored quietly: no outcome, no reply, no failure.
    const comments = stack.github.state.comments.length
    const bot = await stack.run({
      eventName: 'pull_request_review',
      payload: review('renovate[bot]', `/fleet rewrite it all ${work}`, stack.github.state.id())
    })
    expectOk(bot)
    expect(results(bot)).toEqual([])
    expect(bot.stdout).toContain('@renovate[bot] is a bot not listed in allowed-bots')
    expect(stack.github.state.comments.length).toBe(comments)
    expect(stack.model.requests.length).toBe(before)
  })

  it('a review on a PR the action did not open is ignored: no model request, no reply', async () => {
    // A fleet/ branch, but a person's PR: no marker of the action in its body.
    const theirs = stack.github.addPull({
      head: 'fleet/hand-made',
      user: 'maria',
      body: 'My own change.'
    })
    const before = {
      model: stack.model.requests.length,
      comments: stack.github.state.comments.length
    }
    const work = script({ key: 'not-ours', steps: [{ text: 'should never run' }] })
    const run = await stack.run({
      eventName: 'pull_request_review',
      payload: review('maria', `/fleet fix it ${work}`, stack.github.state.id(), theirs),
      inputs: { 'address-reviews': 'true' }
    })
    expectOk(run)
    expect(results(run)).toEqual([])
    expect(run.stdout).toContain('carries no marker of the action')
    expect(stack.model.requests.length).toBe(before.model)
    expect(stack.github.state.comments.length).toBe(before.comments)
  })

  /** A red CI run on `branch` at `sha`: a failed test job with a long log, and a green lint job. */
  const redRun = (branch: string, sha: string, work: string) => {
    const log = [
      '2026-11-30T10:00:00.0000000Z LOG-HEAD: checking out the branch',
      ...Array.from({ length: 200 }, (_, i) => `2026-11-30T10:00:01.0000000Z npm test: line ${i}`),
      `2026-11-30T10:00:02.0000000Z \u001b[31mFAIL\u001b[0m parser.test.js: expected parseAll("") to be [] ${work}`,
      '2026-11-30T10:00:02.1000000Z ##[error]Process completed with exit code 1.'
    ].join('\n')
    return stack.github.state.addRun(
      { head_branch: branch, head_sha: sha, conclusion: 'failure' },
      [
        {
          name: 'test',
          conclusion: 'failure',
          log,
          steps: [{ name: 'Run npm test', conclusion: 'failure' }]
        },
        { name: 'lint', conclusion: 'success', log: 'LINT-LOG all fine' }
      ]
    )
  }

  const runEvent = (runId: number, branch: string, sha: string) =>
    workflowRunCompleted({
      owner: OWNER,
      repo: REPO,
      runId,
      name: 'CI',
      headBranch: branch,
      headSha: sha,
      conclusion: 'failure'
    })

  /** A red CI run on fleet/x at `head`, and the action run on its event with one fix-up allowed. */
  const fixUpRed = (head: string, work: string) => {
    const { run: ci } = redRun('fleet/x', head, work)
    return stack.run({
      eventName: 'workflow_run',
      payload: runEvent(ci.id, 'fleet/x', head),
      inputs: { 'fix-failing-checks': 'true', 'max-fix-ups': '1' }
    })
  }

  it("a failed run on the fleet branch: the worker sees the failed job's log tail, its fix lands on the same PR", async () => {
    const head = (await stack.git.branches(FULL))['fleet/x'] ?? ''
    prOf(stack, pr.number).pull.head_sha = head
    const work = script({
      key: 'checks',
      steps: [
        {
          tool: 'Write',
          input: { file_path: 'parser.txt', content: 'parseAll(input ?? "") || []\n' }
        },
        { text: 'The empty case returned "" instead of [].' }
      ]
    })
    const run = await fixUpRed(head, work)
    expectOk(run)
    expect(results(run).map(r => [r.id, r.status, r['pr-number']])).toEqual([
      ['x', 'pr-updated', pr.number]
    ])
    const prompt = sent(stack, 'checks')
    expect(prompt).toContain('parser.test.js: expected parseAll(\\"\\") to be []')
    expect(prompt).toContain('Failed steps: Run npm test')
    expect(prompt).toContain('npm test: line 199')
    // The tail only: not the log's head, no timestamps or colours, nothing of the green job.
    expect(prompt).not.toContain('LOG-HEAD')
    expect(prompt).not.toContain('2026-11-30T10:00:01')
    expect(prompt).not.toContain('LINT-LOG')
    expect(await stack.git.readFile(FULL, 'fleet/x', 'parser.txt')).toBe(
      'parseAll(input ?? "") || []\n'
    )
    expect(prOf(stack, pr.number).body).toMatch(/<!-- fleet-worker:task=x fix-ups=1 -->$/)
    expect(summaries(stack, pr.number).at(-1)?.body).toContain('Fix-up turn 1 of at most 1')
  })

  it('the same event past max-fix-ups runs nothing and says so, once', async () => {
    const head = (await stack.git.branches(FULL))['fleet/x'] ?? ''
    prOf(stack, pr.number).pull.head_sha = head
    const work = script({ key: 'past-max', steps: [{ text: 'should never run' }] })
    const before = stack.model.requests.length
    for (let i = 0; i < 2; i++) {
      const run = await fixUpRed(head, work)
      expectOk(run)
      expect(results(run)).toEqual([])
    }
    expect(stack.model.requests.length).toBe(before)
    const stopped = stack.github.state.comments.filter(
      c => c.issue_number === pr.number && c.body.includes(STOPPED)
    )
    expect(stopped.map(c => c.user)).toEqual([BOT])
    expect(stopped[0]?.body).toContain('max-fix-ups: 1')
  })

  it('a failed run on another branch runs nothing', async () => {
    const work = script({ key: 'other-branch', steps: [{ text: 'should never run' }] })
    const { run: ci } = redRun('main', 'a'.repeat(40), work)
    const before = { model: stack.model.requests.length, api: stack.github.requests.length }
    const run = await stack.run({
      eventName: 'workflow_run',
      payload: runEvent(ci.id, 'main', 'a'.repeat(40)),
      inputs: { 'fix-failing-checks': 'true' }
    })
    expectOk(run)
    expect(results(run)).toEqual([])
    expect(stack.model.requests.length).toBe(before.model)
    // Not even the run's jobs were read.
    expect(
      stack.github.requests.slice(before.api).filter(r => r.path.includes('/actions/'))
    ).toEqual([])
  })
})
