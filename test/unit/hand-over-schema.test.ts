// The hand-over from a land: false job is data from a job that may have been taken over: mode:
// land reads it through one schema and refuses a file that does not fit, naming it; it vouches
// only for issues its own event or plan names, and says nothing of the hand-over's PRs.
import { describe, expect, it } from 'vitest'
import { type Outcome, ZERO_USAGE } from '../../src/domain.js'
import { parseShardFile } from '../../src/modes/hand-over.js'
import { namedByRun, statusOnly, vouchedSource } from '../../src/modes/trust.js'

const good: Outcome = {
  id: 't1',
  title: 'Tidy the docs',
  status: 'ready',
  source: { kind: 'issue', issue: 3 },
  branch: 'fleet/t1',
  turns: 2,
  durationMs: 1234,
  usage: { ...ZERO_USAGE, input_tokens: 10 },
  attempts: 1,
  model: 'glm-4.6',
  sealed: { bundle: 'fleet-bundle-0-t1.bundle', start: 'a'.repeat(40), pr: true, prompt: 'p' }
}
const file = (outcome: unknown) => JSON.stringify({ shard: 0, outcomes: [outcome] })

describe('the hand-over schema', () => {
  it('reads back what a land: false job writes, dropping keys it does not know', () => {
    const read = parseShardFile('fleet-outcomes-0.json', file({ ...good, extra: '@acme/core' }))
    expect(read.outcomes).toEqual([good])
  })

  it.each([
    ['a count that is text', { turns: '@acme/core' }, /outcomes\[0\]\.turns: .*expected number/],
    ['a fractional count', { attempts: 1.5 }, /outcomes\[0\]\.attempts/],
    ['a status that is not a status word', { status: 'fixes #1' }, /outcomes\[0\]\.status/],
    [
      'source.issue as text',
      { source: { kind: 'issue', issue: '1' } },
      /outcomes\[0\]\.source\.issue/
    ],
    ['source.issue missing', { source: { kind: 'issue' } }, /outcomes\[0\]\.source\.issue/],
    ['a negative source.issue', { source: { kind: 'issue', issue: -1 } }, /source\.issue/],
    ['a PR number as text', { prNumber: '7](https://evil.example)' }, /outcomes\[0\]\.prNumber/],
    ['a task id the fleet never makes', { id: '@acme/core' }, /outcomes\[0\]\.id: a task id/],
    ['a branch with a mention', { branch: 'fleet/@acme' }, /outcomes\[0\]\.branch/],
    [
      'usage tokens as text',
      { usage: { ...ZERO_USAGE, output_tokens: '9' } },
      /usage\.output_tokens/
    ],
    ['a duration that is not finite', { durationMs: 'Infinity' }, /durationMs/]
  ])('refuses %s, naming the file and the field', (_, change, problem) => {
    const read = () => parseShardFile('art/fleet-outcomes-0.json', file({ ...good, ...change }))
    expect(read).toThrow(
      /^the hand-over file 'art\/fleet-outcomes-0\.json' is not one a land: false job of this action writes \(/
    )
    expect(read).toThrow(problem)
  })

  it('refuses a file that is not JSON, or not a shard file, with a sentence naming it', () => {
    expect(() => parseShardFile('f.json', '{"shard": 0, "outcomes": [')).toThrow(
      /^the hand-over file 'f\.json' is not JSON \(.*\): nothing of it is read$/
    )
    expect(() => parseShardFile('f.json', '[]')).toThrow(/'f\.json' .*the file: .*expected object/)
    expect(() => parseShardFile('f.json', '{"shard": 0}')).toThrow(/outcomes: /)
  })
})

describe('what the land job vouches for', () => {
  it("names the issue or PR of its own event and the plan's sources, nothing else", () => {
    expect([...namedByRun({ issue: { number: 4 } }, undefined)]).toEqual([4])
    expect([
      ...namedByRun({ pull_request: { number: 9 }, issue: { number: '5' } }, undefined)
    ]).toEqual([9])
    const plan = {
      version: 1 as const,
      shards: 1,
      refused: [],
      tasks: [
        {
          id: 'a',
          prompt: 'p',
          title: 'a',
          branch: 'fleet/a',
          source: { kind: 'issue' as const, issue: 2 }
        },
        {
          id: 'b',
          prompt: 'p',
          title: 'b',
          branch: 'x',
          source: { kind: 'follow-up' as const, pr: 6, issue: 2 }
        }
      ]
    }
    expect([...namedByRun({}, plan)].sort()).toEqual([2, 6])
  })

  it('drops an issue it cannot vouch for, and a follow-up on a PR it cannot; never keeps an answer', () => {
    const vouched = { issues: new Set([3, 8]) }
    expect(vouchedSource({ kind: 'issue', issue: 3, item: 1 }, vouched)).toEqual({
      kind: 'issue',
      issue: 3,
      item: 1
    })
    expect(vouchedSource({ kind: 'issue', issue: 4 }, vouched)).toEqual({ kind: 'input' })
    expect(vouchedSource({ kind: 'follow-up', pr: 5 }, vouched)).toBeUndefined()
    expect(
      vouchedSource(
        {
          kind: 'follow-up',
          pr: 8,
          issue: 4,
          fixUps: 1,
          answer: { kind: 'review', from: 'acme/core', threads: [1], key: 'review=1' }
        },
        vouched
      )
    ).toEqual({ kind: 'follow-up', pr: 8, fixUps: 1 })
  })

  it('tells an issue only the status word of an outcome that came without a bundle', () => {
    const told = statusOnly({
      ...good,
      status: 'failed',
      title: '@acme/core fixes #2',
      error: 'Closes #2 @acme/core ![x](https://evil.example/p.png)',
      finalMessage: '@acme/core',
      prNumber: 2,
      prUrl: 'https://evil.example/p.png'
    })
    expect(told).toMatchObject({ id: 't1', title: 't1', status: 'failed' })
    expect(JSON.stringify(told)).not.toMatch(/acme\/core|evil|#2/)
  })
})
