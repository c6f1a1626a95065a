// Events as GitHub sends them: closed and locked threads start nothing, label names compare
// without case, an unlisted bot is ignored without a reply, and a payload missing a field the
// action reads stops the run with a sentence naming the event and the field. Every example
// payload GitHub publishes (@octokit/webhooks-examples) is read without any other kind of error.
import { createRequire } from 'node:module'
import { describe, expect, it } from 'vitest'
import { APP_REPO, EVENT_SETTINGS, loginComment } from '../support/unit.js'
import { EventError, readEvent, type EventSettings } from '../../src/event.js'
import {
  issueComment,
  issuesLabeled,
  onClosedOrLocked,
  pullRequestReview,
  pullRequestReviewComment
} from '../support/events.js'

const settings: EventSettings = EVENT_SETTINGS
const repo = APP_REPO
const comment = (body: string, over: Partial<Parameters<typeof issueComment>[0]> = {}) =>
  loginComment(body, { issueBody: '- [ ] fix login', ...over })
const labeled = (label: string) =>
  issuesLabeled({ ...repo, issueNumber: 3, title: 'T', body: 'B', label, sender: 'maria' })

const reasonOf = (request: ReturnType<typeof readEvent>): string =>
  request.kind === 'ignore' ? request.reason : `not ignored: ${request.kind}`

describe('closed and locked threads start nothing', () => {
  for (const how of ['closed', 'locked'] as const) {
    it(`/fleet, /fleet plan and a follow-up on a ${how} thread are ignored, saying why`, () => {
      for (const body of ['/fleet', '/fleet do x', '/fleet plan']) {
        const request = readEvent('issue_comment', onClosedOrLocked(comment(body), how), settings)
        expect(reasonOf(request)).toMatch(new RegExp(`issue #12 is ${how}`))
      }
      const onPr = onClosedOrLocked(comment('/fleet more', { onPullRequest: true }), how)
      expect(reasonOf(readEvent('issue_comment', onPr, settings))).toMatch(
        new RegExp(`pull request #12 is ${how}`)
      )
    })

    it(`the queue label on a ${how} issue is ignored`, () => {
      const request = readEvent('issues', onClosedOrLocked(labeled('fleet'), how), settings)
      expect(reasonOf(request)).toMatch(new RegExp(`issue #3 is ${how}`))
    })
  }

  it('a review or an inline comment on a closed or locked fleet PR is ignored', () => {
    const s = { ...settings, addressReviews: true }
    const pr = { number: 8, title: 'T', body: '', head: 'fleet/x' }
    const review = pullRequestReview({
      ...repo,
      pr,
      reviewer: 'maria',
      reviewId: 91,
      state: 'commented',
      body: '/fleet fix it'
    })
    expect(readEvent('pull_request_review', review, s).kind).toBe('review')
    const open = review.pull_request as Record<string, unknown>
    const closed = { ...review, pull_request: { ...open, state: 'closed' } }
    expect(reasonOf(readEvent('pull_request_review', closed, s))).toMatch(/#8 is closed/)
    const inline = pullRequestReviewComment({
      ...repo,
      pr,
      commenter: 'maria',
      comment: { id: 92, body: '/fleet rename', path: 'a.ts', line: 3, diffHunk: '@@ -1 +1 @@' }
    })
    expect(readEvent('pull_request_review_comment', inline, s).kind).toBe('review-comment')
    const inlinePr = inline.pull_request as Record<string, unknown>
    const locked = { ...inline, pull_request: { ...inlinePr, locked: true } }
    expect(reasonOf(readEvent('pull_request_review_comment', locked, s))).toMatch(/#8 is locked/)
  })
})

describe('labels and bots', () => {
  it('label names compare without case', () => {
    for (const name of ['fleet', 'Fleet', 'FLEET'])
      expect(readEvent('issues', labeled(name), settings).kind, name).toBe('labeled')
    expect(readEvent('issues', labeled('fleet'), { ...settings, queueLabel: 'Fleet' }).kind).toBe(
      'labeled'
    )
    expect(readEvent('issues', labeled('fleets'), settings).kind).toBe('ignore')
  })

  it("a bot's comment is ignored quietly unless the bot is in allowed-bots", () => {
    const bot = comment('/fleet bump', { commenter: 'dependabot[bot]' })
    expect(reasonOf(readEvent('issue_comment', bot, settings))).toMatch(
      /@dependabot\[bot\] is a bot not listed in allowed-bots/
    )
    const listed = { ...settings, allowedBots: ['dependabot'] }
    expect(readEvent('issue_comment', bot, listed).kind).toBe('comment')
    // A person is never taken for a bot.
    expect(readEvent('issue_comment', comment('/fleet bump'), settings).kind).toBe('comment')
  })
})

describe('a payload missing a field the action reads', () => {
  const cases: Array<[string, string, Record<string, unknown>, string]> = [
    [
      'issue_comment',
      'comment.id',
      { ...comment('/fleet'), comment: { body: '/fleet' } },
      'comment.id'
    ],
    [
      'issue_comment',
      'issue.number',
      { ...comment('/fleet'), issue: { title: 't' } },
      'issue.number'
    ],
    ['issue_comment', 'action', { ...comment('/fleet'), action: undefined }, 'action'],
    ['issues', 'label', { ...labeled('fleet'), label: undefined }, 'label'],
    ['issues', 'sender.login', { ...labeled('fleet'), sender: { id: 1 } }, 'sender.login']
  ]
  for (const [event, what, payload, field] of cases) {
    it(`${event} without ${what} stops with a sentence naming both`, () => {
      let error: unknown
      try {
        readEvent(event, payload, settings)
      } catch (e) {
        error = e
      }
      expect(error).toBeInstanceOf(EventError)
      expect((error as Error).message).toContain(`The ${event} event's payload`)
      expect((error as Error).message).toContain(`'${field}'`)
    })
  }

  it('a malformed field (a string where a number belongs) is refused the same way', () => {
    const bad = comment('/fleet')
    const payload = { ...bad, issue: { ...bad.issue, number: '12' } }
    expect(() => readEvent('issue_comment', payload, settings)).toThrow(/'issue\.number'/)
  })
})

describe('every example payload GitHub publishes', () => {
  const require = createRequire(import.meta.url)
  const examples = require('@octokit/webhooks-examples/api.github.com/index.json') as Array<{
    name: string
    examples: Array<Record<string, unknown>>
  }>

  it('is read to a request or an EventError naming the event, never anything else', () => {
    let read = 0
    for (const { name, examples: payloads } of examples) {
      for (const payload of payloads) {
        for (const s of [settings, { ...settings, addressReviews: true, fixFailingChecks: true }]) {
          try {
            expect(readEvent(name, payload, s).kind).toBeTypeOf('string')
          } catch (error) {
            expect(error, `${name}.${String(payload.action)}`).toBeInstanceOf(EventError)
            expect((error as Error).message).toContain(`The ${name} event`)
          }
          read++
        }
      }
    }
    expect(read).toBeGreaterThan(600)
  })

  it('with the trigger phrase or the queue label put in, each comment and label example delegates or says why not', () => {
    const kinds = new Set<string>()
    for (const { name, examples: payloads } of examples) {
      for (const payload of payloads) {
        if (name === 'issue_comment' && payload.action === 'created') {
          const c = payload.comment as Record<string, unknown>
          const asked = { ...payload, comment: { ...c, body: '/fleet do it' } }
          kinds.add(readEvent(name, asked, settings).kind)
        }
        if (name === 'issues' && payload.action === 'labeled') {
          const l = payload.label as Record<string, unknown>
          kinds.add(readEvent(name, { ...payload, label: { ...l, name: 'FLEET' } }, settings).kind)
        }
      }
    }
    expect([...kinds].sort()).toEqual(['comment', 'labeled'])
  })
})
