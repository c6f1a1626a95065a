// What mode: land asks GitHub before it vouches for an issue or a PR (src/modes/trust.ts), over a
// plain fake of the GitHub object: which calls it makes, and what it does with their answers.
import { describe, expect, it } from 'vitest'
import { type Outcome, ZERO_USAGE } from '../../src/domain.js'
import { queueLabels } from '../../src/github/queue.js'
import { prFromGitHub, vouch } from '../../src/modes/trust.js'
import { fakeGitHub } from '../support/fake-github.js'

const outcome = (id: string, source: Outcome['source'], branch?: string): Outcome => ({
  id,
  title: id,
  status: 'pr-opened',
  source,
  ...(branch && { branch }),
  prNumber: 99,
  prUrl: 'https://example.com/hand-over-said',
  turns: 1,
  durationMs: 1,
  usage: ZERO_USAGE,
  attempts: 1
})

const log = () => undefined

describe('vouch, asking GitHub whether an issue is queued', () => {
  it('asks only about issues the run did not name, and keeps those still queued', async () => {
    const asked: number[] = []
    const github = fakeGitHub({
      isQueued: (_labels, issue) => {
        asked.push(issue)
        return Promise.resolve(issue === 7)
      }
    })
    const outcomes = [
      outcome('a', { kind: 'issue', issue: 4 }),
      outcome('b', { kind: 'issue', issue: 7 }),
      outcome('c', { kind: 'issue', issue: 8 }),
      outcome('d', { kind: 'input' })
    ]
    const got = await vouch({
      payload: { issue: { number: 4 } },
      queued: true,
      ownQueue: queueLabels('fleet'),
      github,
      outcomes,
      log
    })
    expect(asked).toEqual([7, 8])
    expect([...got.issues].sort()).toEqual([4, 7])
    expect(got.queue?.queued).toBe('fleet')
  })

  it('asks GitHub nothing when the run was not a queued one', async () => {
    const got = await vouch({
      payload: {},
      queued: false,
      ownQueue: queueLabels('fleet'),
      github: fakeGitHub({}),
      outcomes: [outcome('a', { kind: 'issue', issue: 3 })],
      log
    })
    expect([...got.issues]).toEqual([])
    expect(got.queue).toBeUndefined()
  })
})

describe("prFromGitHub: a PR's number and URL read back from GitHub, never the hand-over's", () => {
  it("takes the open PR of the fleet branch from GitHub, and drops the hand-over's", async () => {
    const branches: string[] = []
    const github = fakeGitHub({
      findOpenPullRequest: branch => {
        branches.push(branch)
        return Promise.resolve({ number: 12, url: 'https://example.com/pull/12' })
      }
    })
    const got = await prFromGitHub(outcome('a', { kind: 'input' }, 'fleet/a'), 'fleet/', github)
    expect(branches).toEqual(['fleet/a'])
    expect([got.prNumber, got.prUrl]).toEqual([12, 'https://example.com/pull/12'])
  })

  it('asks nothing for a branch outside the prefix, and keeps no PR when GitHub fails', async () => {
    const outside = await prFromGitHub(
      outcome('a', { kind: 'input' }, 'main'),
      'fleet/',
      fakeGitHub({})
    )
    expect([outside.prNumber, outside.prUrl]).toEqual([undefined, undefined])
    const failing = fakeGitHub({
      findOpenPullRequest: () => Promise.reject(new Error('GitHub API down'))
    })
    const got = await prFromGitHub(outcome('b', { kind: 'input' }, 'fleet/b'), 'fleet/', failing)
    expect([got.prNumber, got.prUrl]).toEqual([undefined, undefined])
  })

  it('the fake refuses a call it was not given (so the tests above can fail)', () => {
    expect(() => fakeGitHub({}).listFleetPrs('main', 'fleet/')).toThrow(
      /listFleetPrs was called but not faked/
    )
  })
})
