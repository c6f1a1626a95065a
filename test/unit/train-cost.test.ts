// Each landed PR's cost in the landing train's summary and results: the spend ledger's entries
// for that PR (its first run and each follow-up turn), and unknown (—) when no ledger is kept.
import { describe, expect, it } from 'vitest'
import type { Outcome } from '../../src/domain.js'
import { resultEntry, totals } from '../../src/report/results.js'
import { trainSection } from '../../src/report/train.js'
import { entriesFor } from '../../src/run/spend.js'
import type { Run } from '../../src/run/run.js'
import type { Entry } from '../../src/spend/entry.js'
import { costOfPr, entriesOfPr } from '../../src/spend/pr-cost.js'

const ZERO = {
  input_tokens: 0,
  output_tokens: 0,
  cache_read_input_tokens: 0,
  cache_creation_input_tokens: 0
}

function entry(over: Partial<Entry>): Entry {
  return {
    v: 1,
    at: '2026-12-01T10:00:00.000Z',
    run: '1-0',
    task: 'land-a',
    status: 'pr-opened',
    cost: 0.25,
    tokens: 1000,
    trigger: 'dispatch',
    ...over
  }
}

function outcome(over: Partial<Outcome>): Outcome {
  return {
    id: 'land-a',
    title: 'Land A',
    status: 'merged',
    source: { kind: 'input' },
    branch: 'fleet/land-a',
    prNumber: 7,
    prUrl: 'https://github.com/acme/app/pull/7',
    turns: 0,
    durationMs: 1200,
    usage: ZERO,
    attempts: 0,
    ...over
  }
}

const PR = { number: 7, task: 'land-a', createdAt: '2026-12-01T09:59:00Z' }

describe("a PR's cost from the ledger", () => {
  it('sums its first run and its follow-up turns, and nothing of other PRs', () => {
    const entries = [
      entry({ pr: 7, cost: 0.25 }),
      entry({ pr: 8, task: 'land-b', cost: 5 }),
      entry({ pr: 7, status: 'pr-updated', trigger: 'comment', user: 'wren', cost: 0.125 }),
      // The same task id's earlier PR, closed: not this PR's spend.
      entry({ pr: 3, cost: 9 })
    ]
    expect(costOfPr(entries, PR)).toEqual({ cost: 0.375, runs: 2 })
  })

  it('counts an entry without a PR only when it is the task, recorded once the PR existed', () => {
    const entries = [
      entry({ pr: 7, cost: 0.25 }),
      entry({ status: 'no-changes', at: '2026-12-02T08:00:00.000Z', cost: 0.5 }),
      entry({ status: 'failed', at: '2026-11-30T08:00:00.000Z', cost: 4 }),
      entry({ task: 'other', at: '2026-12-02T08:00:00.000Z', cost: 8 })
    ]
    expect(entriesOfPr(entries, PR).map(e => e.cost)).toEqual([0.25, 0.5])
    expect(costOfPr([], PR)).toEqual({ cost: 0, runs: 0 })
  })
})

describe('the ledger entry of a follow-up turn', () => {
  const run = { ctx: { runId: '42' }, config: { shard: 0 } } as unknown as Run
  const starters = { starters: new Map() }
  const spent = { usage: { ...ZERO, output_tokens: 10 }, costUsd: 0.1 }

  it('names the PR it was a turn on even when it left no PR outcome', () => {
    const [e] = entriesFor(run, starters, [
      outcome({
        status: 'no-changes',
        prNumber: undefined,
        source: { kind: 'follow-up', pr: 7 },
        ...spent
      })
    ])
    expect(e).toMatchObject({ task: 'land-a', status: 'no-changes', pr: 7 })
  })

  it('names the PR it opened, and none when there is none', () => {
    const [opened, none] = entriesFor(run, starters, [
      outcome({ status: 'pr-opened', ...spent }),
      outcome({ status: 'failed', prNumber: undefined, ...spent })
    ])
    expect(opened?.pr).toBe(7)
    expect(none && 'pr' in none).toBe(false)
  })
})

describe("the train's summary and results", () => {
  const merged = outcome({ landedCostUsd: 0.375 })
  const waiting = outcome({
    id: 'land-b',
    prNumber: 8,
    status: 'waiting',
    error: 'no approval yet from a person with write access'
  })

  it("shows each landed PR's cost, and the ledger it is from", () => {
    const md = trainSection({
      base: 'main',
      method: 'squash',
      stops: [merged, waiting],
      cost: { kind: 'ledger', name: 'the spend ledger (ledger.jsonl on branch fleet-ledger)' }
    })
    expect(md).toContain('| order | PR | outcome | cost |')
    expect(md).toMatch(/\| 1 \| \[#7\]\(\S+\) Land A \| merged \| \$0\.38 \|/)
    expect(md).toMatch(/\| 2 \| \[#8\]\(\S+\) Land A \| waiting \| {2}\|/)
    expect(md).toContain('its first run and each follow-up turn, as the spend ledger')
  })

  it('says the cost is unknown (—) without a ledger, and why', () => {
    const md = trainSection({
      base: 'main',
      stops: [outcome({}), waiting],
      cost: { kind: 'none' }
    })
    expect(md).toMatch(/\| 1 \| \[#7\]\(\S+\) Land A \| merged \| — \|/)
    expect(md).toContain('no spend ledger is kept')
    const unread = trainSection({
      base: 'main',
      stops: [outcome({})],
      cost: { kind: 'unread', reason: 'the spend ledger could not be read: boom' }
    })
    expect(unread).toContain("A landed PR's cost is unknown (—): the spend ledger could not")
  })

  it("puts the landed PR's cost in cost-usd, not in this run's total", () => {
    expect(resultEntry(merged)['cost-usd']).toBe(0.375)
    expect(resultEntry(outcome({}))['cost-usd']).toBeNull()
    expect(resultEntry(outcome({ status: 'pr-opened', costUsd: 0.1 }))['cost-usd']).toBe(0.1)
    expect(totals([merged, waiting]).costUsd).toBeUndefined()
  })
})
