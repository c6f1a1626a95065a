// The landing train's pure decisions over plain fakes: whose approval counts and whether it still
// holds, the merge method, the train's order, what GitHub's refusal means, and the body's record of
// the heads the action's own updates carried a PR's content through.
import { describe, expect, it } from 'vitest'
import {
  approvalOf,
  mergeMethodFor,
  missingChecks,
  readMergeReply,
  standingReviews,
  trainOrder
} from '../../src/fleet/train-rules.js'
import type { ReviewSeen } from '../../src/github/merge.js'
import { carriedFrom, withCarried } from '../../src/report/train.js'

const H = 'a'.repeat(40)
const OLD = 'b'.repeat(40)
const OLDER = 'c'.repeat(40)
let id = 0
const review = (login: string, state: string, commitId = H, at = id): ReviewSeen => ({
  id: ++id,
  login,
  isBot: login.endsWith('[bot]'),
  state,
  commitId,
  submittedAt: `2026-01-01T00:00:${String(at % 60).padStart(2, '0')}Z`
})
const writers = new Set(['wren', 'mo'])
const approval = (reviews: ReviewSeen[], carried: string[] = []) =>
  approvalOf({ reviews, writers, head: H, carried })

describe('approvals', () => {
  it('counts a writer who approved this head', () => {
    expect(approval([review('wren', 'APPROVED')])).toEqual({ ok: true, by: ['wren'] })
  })

  it('does not count readers or bots, and says so', () => {
    const r = approval([review('rae', 'APPROVED'), review('helper[bot]', 'APPROVED')])
    expect(r.ok).toBe(false)
    if (!r.ok) expect(r.reason).toContain('approved only by rae, helper[bot], without write access')
    expect(approval([])).toEqual({
      ok: false,
      reason: 'no approval yet from a person with write access'
    })
  })

  it("a writer's standing change request holds the PR, whoever else approved", () => {
    const r = approval([review('wren', 'APPROVED'), review('mo', 'CHANGES_REQUESTED')])
    expect(r.ok).toBe(false)
    if (!r.ok) expect(r.reason).toContain('changes requested by mo')
    // A later approval by the same person replaces it; a plain comment does not.
    expect(
      approval([
        review('mo', 'CHANGES_REQUESTED'),
        review('mo', 'COMMENTED'),
        review('mo', 'APPROVED')
      ]).ok
    ).toBe(true)
    expect(approval([review('mo', 'APPROVED'), review('mo', 'COMMENTED')]).ok).toBe(true)
    expect(approval([review('mo', 'APPROVED'), review('mo', 'DISMISSED')]).ok).toBe(false)
  })

  it("survives the action's own updates, not a worker's turn", () => {
    const before = [review('wren', 'APPROVED', OLDER)]
    expect(approval(before, [OLD, OLDER]).ok).toBe(true)
    const r = approval(before, [OLD])
    expect(r.ok).toBe(false)
    if (!r.ok) expect(r.reason).toContain("before a worker's turn changed the PR")
  })

  it('takes the latest review of each person, by time', () => {
    const s = standingReviews([
      review('wren', 'APPROVED', H, 5),
      review('wren', 'CHANGES_REQUESTED', H, 1)
    ])
    expect(s.get('wren')?.state).toBe('APPROVED')
  })
})

describe('the record of carried heads', () => {
  const body = 'Task text\n\n<!-- fleet-worker:task=x -->'
  it('is read only for the head it names, and chains through updates', () => {
    const once = withCarried(body, { head: OLD, from: OLDER })
    expect(carriedFrom(once, OLD)).toEqual([OLDER])
    expect(carriedFrom(once, H)).toEqual([])
    const twice = withCarried(once, { head: H, from: OLD })
    expect(carriedFrom(twice, H)).toEqual([OLD, OLDER])
    expect(twice.endsWith('<!-- fleet-worker:task=x -->')).toBe(true)
    expect(twice.match(/fleet-worker:carried/g)).toHaveLength(1)
  })
  it("is dropped by a worker's turn", () => {
    const once = withCarried(body, { head: OLD, from: OLDER })
    expect(withCarried(once)).toBe(body)
  })
})

describe('the merge method', () => {
  const all = { merge: true, squash: true, rebase: true }
  it("is the repository's, squash first", () => {
    expect(mergeMethodFor(undefined, all)).toEqual({ ok: true, method: 'squash' })
    expect(mergeMethodFor(undefined, { ...all, squash: false })).toEqual({
      ok: true,
      method: 'merge'
    })
    expect(mergeMethodFor(undefined, { merge: false, squash: false, rebase: true })).toEqual({
      ok: true,
      method: 'rebase'
    })
    // Settings the token cannot see are left to GitHub's answer.
    expect(
      mergeMethodFor(undefined, { merge: undefined, squash: undefined, rebase: undefined })
    ).toEqual({ ok: true, method: 'squash' })
  })
  it('is the input when allowed; else an error naming the input and what is allowed', () => {
    expect(mergeMethodFor('rebase', all)).toEqual({ ok: true, method: 'rebase' })
    const r = mergeMethodFor('merge', { ...all, merge: false })
    expect(r.ok).toBe(false)
    if (!r.ok) {
      expect(r.error).toContain('merge-method is merge')
      expect(r.error).toContain('allow_merge_commit is false')
      expect(r.error).toContain('it allows squash, rebase')
    }
  })
})

describe("GitHub's answer to a merge", () => {
  it('reads merged, waiting (with what it waits on), head moved and failures', () => {
    expect(readMergeReply({ merged: true, sha: H })).toEqual({ kind: 'merged', sha: H })
    const checks = readMergeReply({
      merged: false,
      status: 405,
      message: 'Required status check "ci" is expected.'
    })
    expect(checks).toEqual({
      kind: 'waiting',
      about: 'checks',
      reason: 'GitHub said (405): Required status check "ci" is expected.'
    })
    expect(
      readMergeReply({
        merged: false,
        status: 405,
        message: 'At least 1 approving review is required by reviewers with write access.'
      })
    ).toMatchObject({ kind: 'waiting', about: 'reviews' })
    expect(
      readMergeReply({
        merged: false,
        status: 409,
        message: 'Head branch was modified. Review and try the merge again.'
      }).kind
    ).toBe('head-moved')
    expect(readMergeReply({ merged: false, status: 403, message: 'Forbidden' })).toMatchObject({
      kind: 'failed'
    })
  })
  it('names the required checks not passed', () => {
    expect(missingChecks(['ci', 'lint'], ['lint', 'other'])).toEqual(['ci'])
  })
})

describe("the train's order", () => {
  it('takes PRs sharing no file first, then those sharing with the fewest, oldest first', () => {
    const prs = [
      { number: 1, files: ['x', 'shared'] },
      { number: 2, files: ['a'] },
      { number: 3, files: ['shared', 'y'] },
      { number: 4, files: ['shared'] },
      { number: 5, files: ['b'] },
      { number: 6, files: ['y'] }
    ]
    expect(trainOrder(prs).map(p => p.number)).toEqual([2, 5, 6, 1, 4, 3])
  })
})
