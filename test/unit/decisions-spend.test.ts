// Which of a run's tasks start and which are deferred by the spend caps (src/run/spend.ts over
// src/spend/caps.ts): the ledger's spend today, what each task may cost, who started it, and the
// run's own earlier tasks. Nothing is read from git: the ledger's entries come in as data.
import { describe, expect, it } from 'vitest'
import { inputTask } from '../support/unit.js'
import { parseConfig } from '../../src/config.js'
import type { Run } from '../../src/run/run.js'
import { deferOverCaps, type RunSpend, type Starter } from '../../src/run/spend.js'
import type { Caps } from '../../src/spend/caps.js'
import type { Entry } from '../../src/spend/entry.js'

const base = parseConfig({})
const now = new Date().toISOString().replace(/\.\d+Z$/, '.000Z')

function runWith(caps: Caps, taskCostUsd?: number): Run {
  const config = {
    ...base,
    spend: { ...base.spend, caps, ledger: 'fleet-ledger' },
    budgets: { ...base.budgets, taskCostUsd }
  }
  return { config, io: { info() {} } } as unknown as Run
}

const task = inputTask

const spent = (cost: number, user?: string): Entry => ({
  v: 1,
  at: now,
  run: '0',
  task: 'earlier',
  status: 'pr-opened',
  cost,
  tokens: 1000,
  trigger: 'comment',
  ...(user ? { user } : {})
})

const ledger = (entries: Entry[], starters: Record<string, Starter>): RunSpend =>
  ({ branch: 'fleet-ledger', entries, starters: new Map(Object.entries(starters)) }) as RunSpend

describe('spend caps: which tasks start and which are deferred', () => {
  it("counts the run's own earlier tasks: the one that would cross the daily cap is deferred", () => {
    const tasks = [task('a'), task('b'), task('c')]
    const got = deferOverCaps(runWith({ daily: 10 }, 2), ledger([spent(5)], {}), tasks)
    expect(got.start.map(t => t.id)).toEqual(['a', 'b'])
    expect(got.deferred.map(o => [o.id, o.status, o.branch])).toEqual([
      ['c', 'deferred', 'fleet/c']
    ])
    expect(got.deferred[0]?.error).toMatch(
      /^The daily cap \(budgets: daily-cost-usd\) is \$10\.00 and \$9\.00 is spent today \(UTC\); this task may cost \$2\.00 \(budgets: task-cost-usd\)/
    )
  })

  it("holds the per-person cap for that person's work only, and not for work nobody started", () => {
    const starters: Record<string, Starter> = {
      alice: { trigger: 'comment', user: 'alice' },
      bob: { trigger: 'label', user: 'bob' },
      // A dispatch is nobody's: a login beside it does not count against that person.
      sched: { trigger: 'dispatch', user: 'alice' }
    }
    const tasks = [task('alice'), task('bob'), task('sched')]
    const entries = [spent(3, 'alice')]
    const got = deferOverCaps(runWith({ userDaily: 4 }, 2), ledger(entries, starters), tasks)
    expect(got.start.map(t => t.id)).toEqual(['bob', 'sched'])
    expect(got.deferred[0]?.error).toMatch(
      /^The person's daily cap \(budgets: user-daily-cost-usd\) is \$4\.00 .* alice started/
    )
  })

  it('without max-task-cost-usd, a task costs the median of recent tasks that spent', () => {
    // Spent today: 1 + 2 + 6 = 9 of 12; the median 2 fits (11), a second 2 would not (13).
    const entries = [spent(1), spent(2), spent(6)]
    const got = deferOverCaps(runWith({ daily: 12 }), ledger(entries, {}), [task('a'), task('b')])
    expect(got.start.map(t => t.id)).toEqual(['a'])
    expect(got.deferred[0]?.error).toContain('this task may cost $2.00 (the median of the last 3')
  })

  it('starts everything when no cap is set, whatever the ledger says', () => {
    const got = deferOverCaps(runWith({}, 2), ledger([spent(1e5)], {}), [task('a')])
    expect([got.start.length, got.deferred.length]).toEqual([1, 0])
  })
})
