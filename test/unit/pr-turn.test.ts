// Issue 18: the pure parts of answering on a PR: reading the events, the worker's prompts, the
// log tail, the replies and the PR body's fix-up count.
import fc from 'fast-check'
import { marked } from 'marked'
import { describe, expect, it } from 'vitest'
import { readEvent, type EventSettings } from '../../src/event.js'
import { checksPrompt, reviewPrompt } from '../../src/tasks/pr-turn.js'
import { logTail } from '../../src/tasks/log-tail.js'
import { answerSummary, repliesFrom, threadReply } from '../../src/report/pr-answer.js'
import { prBody, prMarker } from '../../src/report/pr-body.js'
import { emptyOutcome } from '../../src/domain.js'
import type { Task } from '../../src/domain.js'
import {
  pullRequestReview,
  pullRequestReviewComment,
  workflowRunCompleted
} from '../support/events.js'

const settings: EventSettings = {
  hasTasks: false,
  triggerPhrase: '/fleet',
  queueLabel: 'fleet',
  branchPrefix: 'fleet/'
}
const repo = { owner: 'acme', repo: 'app' }
const pr = { number: 7, title: 'Add parser', body: 'x', head: 'fleet/x' }

const review = (
  body: string,
  state: 'changes_requested' | 'commented' = 'changes_requested',
  over = {}
) => pullRequestReview({ ...repo, pr, reviewer: 'maria', reviewId: 99, state, body, ...over })

describe('readEvent: reviews', () => {
  it('a review starting with the phrase delegates the text after it', () => {
    expect(
      readEvent('pull_request_review', review('/fleet rename it', 'commented'), settings)
    ).toEqual({
      kind: 'review',
      pr: { number: 7, title: 'Add parser', headRef: 'fleet/x' },
      reviewId: 99,
      actor: { login: 'maria', isBot: false },
      text: 'rename it'
    })
  })

  it('changes requested delegates only with address-reviews', () => {
    const event = review('Please handle empty input.')
    expect(readEvent('pull_request_review', event, settings)).toMatchObject({
      kind: 'ignore',
      reason: expect.stringContaining('address-reviews') as string
    })
    expect(
      readEvent('pull_request_review', event, { ...settings, addressReviews: true })
    ).toMatchObject({ kind: 'review', text: 'Please handle empty input.' })
    expect(
      readEvent('pull_request_review', review('Looks fine.', 'commented'), {
        ...settings,
        addressReviews: true
      }).kind
    ).toBe('ignore')
  })

  it("a review on another branch or a fork's PR is ignored", () => {
    const other = review('/fleet x', 'commented', { pr: { ...pr, head: 'feature/x' } })
    expect(readEvent('pull_request_review', other, settings).kind).toBe('ignore')
    const fork = review('/fleet x', 'commented', { forkOf: 'mallory/app' })
    expect(readEvent('pull_request_review', fork, settings)).toMatchObject({
      kind: 'ignore',
      reason: expect.stringContaining('fork') as string
    })
  })

  it('an inline comment starting with the phrase delegates its thread', () => {
    const event = pullRequestReviewComment({
      ...repo,
      pr,
      commenter: 'olga',
      comment: { id: 5, body: '/fleet fix', path: 'a.ts', line: 3, diffHunk: '@@', inReplyTo: 4 }
    })
    expect(readEvent('pull_request_review_comment', event, settings)).toMatchObject({
      kind: 'review-comment',
      comment: { id: 5, threadId: 4, path: 'a.ts', line: 3, author: 'olga' },
      text: 'fix'
    })
  })
})

describe('readEvent: failed runs', () => {
  const run = (over: Partial<Parameters<typeof workflowRunCompleted>[0]> = {}) =>
    workflowRunCompleted({
      ...repo,
      runId: 3,
      name: 'CI',
      headBranch: 'fleet/x',
      headSha: 'a'.repeat(40),
      conclusion: 'failure',
      ...over
    })
  const on = { ...settings, fixFailingChecks: true }

  it('a red run on a fleet branch delegates with fix-failing-checks', () => {
    expect(readEvent('workflow_run', run(), on)).toMatchObject({
      kind: 'failed-run',
      run: { id: 3, name: 'CI', headBranch: 'fleet/x', conclusion: 'failure' }
    })
    expect(readEvent('workflow_run', run(), settings).kind).toBe('ignore')
  })

  it('green runs, other branches and forks are ignored', () => {
    expect(readEvent('workflow_run', run({ conclusion: 'success' }), on).kind).toBe('ignore')
    expect(readEvent('workflow_run', run({ headBranch: 'main' }), on).kind).toBe('ignore')
    expect(readEvent('workflow_run', run({ forkOf: 'mallory/app' }), on).kind).toBe('ignore')
  })
})

describe('the prompts', () => {
  it('a review lists each thread numbered, with file, line, hunk and words, and asks for [k] lines', () => {
    const text = reviewPrompt({
      pr: 7,
      title: 'Add parser',
      reviewer: 'maria',
      text: 'Two things.',
      threads: [
        [
          {
            path: 'a.ts',
            line: 3,
            diffHunk: '@@ -1 +1 @@\n+parse()',
            body: 'Empty?',
            author: 'maria'
          }
        ],
        [
          { path: 'b.ts', line: null, diffHunk: '@@', body: 'Name', author: 'maria' },
          { path: 'b.ts', line: null, diffHunk: '@@', body: 'Still?', author: 'olga' }
        ]
      ]
    })
    expect(text).toContain('<comment n="1" file="a.ts line 3">')
    expect(text).toContain('+parse()')
    expect(text).toContain('<comment n="2" file="b.ts">')
    expect(text).toContain('olga wrote:\nStill?')
    expect(text).toContain('[1] to [2]')
  })

  it("checks list each failed job's steps and log tail", () => {
    const text = checksPrompt({
      pr: 7,
      run: 'CI',
      jobs: [{ name: 'test', failedSteps: ['npm test'], tail: 'FAIL a' }]
    })
    expect(text).toContain(
      '<failed-job name="test">\nFailed steps: npm test\nThe end of its log:\nFAIL a'
    )
  })

  it('the log tail keeps the last lines, without timestamps, colours or trailing blanks', () => {
    const log = [
      '2026-01-01T00:00:00.1234567Z first',
      ...Array.from({ length: 100 }, (_, i) => `2026-01-01T00:00:01Z \u001b[31mline ${i}\u001b[0m`),
      '',
      ''
    ].join('\r\n')
    const tail = logTail(log, 3)
    expect(tail).toBe('line 97\nline 98\nline 99')
    expect(logTail('x'.repeat(10_000), 80, 100)).toHaveLength(100)
  })
})

describe('the answers', () => {
  const task: Task = {
    id: 'x',
    title: 't',
    prompt: 'p',
    branch: 'fleet/x',
    source: { kind: 'follow-up', pr: 7, fixUps: 2 }
  }
  const landed = {
    ...emptyOutcome(task, { status: 'pr-updated' }),
    finalMessage: 'Done.\n[1] Renamed.\n- [2]: Kept it, it is right.'
  }

  it("reads the worker's [k] lines", () => {
    expect(repliesFrom(landed.finalMessage, 3)).toEqual([
      'Renamed.',
      'Kept it, it is right.',
      undefined
    ])
  })

  it('replies say what the worker said, as inert inline code, and what became of the turn', () => {
    expect(threadReply(landed, 'Renamed.')).toBe(
      'Fleet Worker pushed a change to this branch. The worker says: ` Renamed. `'
    )
    const failed = emptyOutcome(task, { status: 'timed-out', error: 'took too long' })
    expect(threadReply(failed, undefined)).toContain('did not finish (timed-out: took too long)')
  })

  it('worker text in a reply or summary mentions, closes and marks nothing', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), said => {
        const hostile = `${said} @octocat fixes #1 <!-- fleet-worker:answer -->`
        const reply = threadReply(landed, hostile)
        const summary = answerSummary(
          { kind: 'review', from: 'maria', threads: [1], key: 'review=1' },
          { ...landed, finalMessage: hostile }
        )
        for (const body of [reply, summary]) {
          const html = marked.parse(body, { async: false })
          expect(html).not.toMatch(/@octocat|fixes #1/)
        }
        expect(summary.match(/<!-- fleet-worker:/g)).toHaveLength(1)
      })
    )
  })

  it('the PR body carries the fix-up count in its marker, and only the last marker counts', () => {
    const body = prBody(task, landed, {})
    expect(prMarker(body)).toEqual({ task: 'x', fixUps: 2 })
    expect(prMarker('<!-- fleet-worker:task=x fix-ups=9 -->\n' + body)?.fixUps).toBe(2)
    expect(prMarker('no marker')).toBeUndefined()
  })
})
