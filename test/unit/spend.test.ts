// Issue 37: the pure parts of the spend held over every run — the ledger's lines, the caps'
// decision, the summary's lines and the report — over plain entries and a fixed clock.
import { describe, expect, it } from 'vitest'
import { InputError, parseConfig } from '../../src/config.js'
import { inputEnvName, type InputName } from '../../src/inputs.js'
import { admit, decide, estimate, spendLines, spentAt } from '../../src/spend/caps.js'
import { type Entry, LedgerError, ledgerLines, parseLedger } from '../../src/spend/entry.js'
import { spendChart, spendReportMarkdown, windowDays } from '../../src/spend/report.js'

const NOW = Date.parse('2026-12-02T15:00:00Z')
const entry = (over: Partial<Entry> = {}): Entry => ({
  v: 1,
  at: '2026-12-02T10:00:00.000Z',
  run: '7-0',
  task: 't1',
  status: 'pr-opened',
  cost: 0.1,
  tokens: 1000,
  trigger: 'dispatch',
  ...over
})

describe('the ledger file', () => {
  it('round-trips entries through its lines, blank lines allowed', () => {
    const entries = [entry(), entry({ task: 't2', user: 'maria', trigger: 'comment', pr: 4 })]
    const text = ledgerLines(entries)
    expect(text.split('\n')).toHaveLength(3)
    expect(parseLedger(`${text}\n\n`, 'fleet-ledger')).toEqual(entries)
  })

  it('refuses a garbled line with a sentence naming the ledger and the line', () => {
    const text = `${ledgerLines([entry()])}{"v":1,"at":`
    expect(() => parseLedger(text, 'fleet-ledger')).toThrow(LedgerError)
    expect(() => parseLedger(text, 'fleet-ledger')).toThrow(
      /^the spend ledger \(ledger\.jsonl on branch fleet-ledger\) line 2 is not JSON/
    )
  })

  it.each([
    ['a negative cost', { cost: -5 }, 'cost'],
    ['a cost as text', { cost: '0' }, 'cost'],
    ['an unknown field', { refund: 3 }, 'entry'],
    ['another version', { v: 2 }, 'v'],
    ['a day that is no time', { at: 'yesterday' }, 'at'],
    ['a login with a space', { user: 'a b' }, 'user']
  ])('refuses a tampered line (%s), naming the field', (_, change, field) => {
    const line = JSON.stringify({ ...entry(), ...change })
    expect(() => parseLedger(line, 'fleet-ledger')).toThrow(
      new RegExp(`line 1 is not a ledger entry \\(${field}: .*tampered`)
    )
  })
})

describe('what a task may cost', () => {
  it('is its max-task-cost-usd when given', () => {
    expect(estimate(0.25, [entry({ cost: 9 })])).toEqual({
      cost: 0.25,
      basis: 'budgets: task-cost-usd'
    })
  })

  it('else the median of the recent tasks that spent', () => {
    const costs = [0.1, 0.9, 0.3, 0.2]
    const entries = [...costs.map(cost => entry({ cost })), entry({ cost: 0, tokens: 0 })]
    expect(estimate(undefined, entries)).toEqual({
      cost: 0.25,
      basis: 'the median of the last 4 tasks'
    })
    expect(estimate(undefined, []).cost).toBe(0)
  })
})

describe('the caps', () => {
  const cost = { cost: 0.1, basis: 'budgets: task-cost-usd' }
  const entries = [
    entry({ cost: 0.3 }),
    entry({ cost: 0.15, at: '2026-12-01T23:59:59.000Z' }),
    entry({ cost: 5, at: '2026-11-30T12:00:00.000Z' }),
    entry({ cost: 0.05, user: 'maria', trigger: 'comment' })
  ]

  it('count today and this month in UTC, and each person today', () => {
    const spent = spentAt(entries, NOW)
    expect(spent.day).toBeCloseTo(0.35)
    expect(spent.month).toBeCloseTo(0.5)
    expect(spent.users.get('maria')).toBeCloseTo(0.05)
  })

  it('defer a task that would cross the daily cap, saying which and why', () => {
    const d = decide({ daily: 0.4 }, { day: 0.35, month: 0.5 }, cost)
    expect(d).toEqual({
      kind: 'defer',
      input: 'budgets: daily-cost-usd',
      reason:
        'The daily cap (budgets: daily-cost-usd) is $0.4000 and $0.3500 is spent today (UTC); this task may cost $0.1000 (budgets: task-cost-usd), so it was deferred, not started, and stays queued for a later run'
    })
    expect(decide({ daily: 0.45 }, { day: 0.35, month: 0.5 }, cost).kind).toBe('start')
  })

  it('defer on the monthly cap, and on a cap already reached even by a task costing nothing', () => {
    expect(decide({ monthly: 0.55 }, { day: 0.35, month: 0.5 }, cost)).toMatchObject({
      input: 'budgets: monthly-cost-usd'
    })
    const free = { cost: 0, basis: 'no recent task to go by' }
    expect(decide({ daily: 0.35 }, { day: 0.35, month: 0.5 }, free).kind).toBe('defer')
  })

  it('hold the per-user cap for the person only', () => {
    const caps = { userDaily: 0.12 }
    expect(decide(caps, { day: 1, month: 1, user: 0.05 }, cost, 'maria')).toMatchObject({
      input: 'budgets: user-daily-cost-usd'
    })
    expect(decide(caps, { day: 1, month: 1 }, cost).kind).toBe('start')
  })

  it("admit in order, counting the run's own earlier tasks", () => {
    const spent = spentAt(entries, NOW)
    const decisions = admit(
      [{ id: 'a' }, { id: 'b', user: 'maria' }, { id: 'c', user: 'maria' }, { id: 'd' }],
      { daily: 0.7, userDaily: 0.2 },
      spent,
      cost
    )
    expect([...decisions].map(([id, d]) => `${id}:${d.kind}`)).toEqual([
      'a:start',
      'b:start',
      'c:defer', // maria: 0.05 + 0.1 + 0.1 > 0.2
      'd:start' // the day: 0.35 + 0.1 + 0.1 + 0.1 = 0.65 <= 0.7
    ])
  })

  it('state today and the month against each cap for the summary', () => {
    const lines = spendLines(
      { daily: 1, monthly: 20, userDaily: 0.5 },
      spentAt(entries, NOW),
      NOW,
      ['maria']
    )
    expect(lines).toEqual([
      'today (2026-12-02 UTC): $0.3500 of $1.00 (budgets: daily-cost-usd)',
      'this month (2026-12): $0.5000 of $20.00 (budgets: monthly-cost-usd)',
      'maria today: $0.0500 of $0.5000 (budgets: user-daily-cost-usd)'
    ])
  })
})

describe('the spend report', () => {
  const days = windowDays(7, NOW)
  const week = [
    entry({ at: '2026-11-26T08:00:00.000Z', cost: 0.2, model: 'glm-4.6', pr: 1 }),
    entry({
      at: '2026-11-27T08:00:00.000Z',
      cost: 0.4,
      model: 'glm-4.6',
      pr: 2,
      trigger: 'comment',
      user: 'maria'
    }),
    entry({
      at: '2026-11-29T08:00:00.000Z',
      cost: 0.1,
      model: 'glm-4.6',
      pr: 1,
      trigger: 'review',
      user: 'maria'
    }),
    entry({ at: '2026-12-02T08:00:00.000Z', cost: 0.3, model: 'kimi-k2', status: 'failed' }),
    // Outside the window: not counted.
    entry({ at: '2026-11-20T08:00:00.000Z', cost: 50, model: 'glm-4.6', pr: 9 })
  ]
  const prs = new Map([
    [1, { merged: true }],
    [2, { merged: false }],
    [9, { merged: true }]
  ])
  const md = spendReportMarkdown({ entries: week, prs, days, dailyCap: 0.5, ledger: 'the ledger' })

  it('covers the window of UTC days', () => {
    expect(days).toEqual([
      '2026-11-26',
      '2026-11-27',
      '2026-11-28',
      '2026-11-29',
      '2026-11-30',
      '2026-12-01',
      '2026-12-02'
    ])
    expect(md).toContain('## Fleet Worker: spend, 2026-11-26 to 2026-12-02 (7 UTC days)')
  })

  it('states the cost per merged PR overall, by model and by trigger', () => {
    expect(md).toContain(
      'From the ledger: 4 tasks cost $1.00; 2 PRs opened, 1 merged: $1.00 per merged PR.'
    )
    expect(md).toContain('| glm-4.6 | 3 | 2 | 1 | $0.7000 | $0.7000 |')
    expect(md).toContain('| kimi-k2 | 1 | 0 | 0 | $0.3000 | — |')
    expect(md).toContain('| comment | 1 | 1 | 0 | $0.4000 | — |')
    expect(md).toContain('| dispatch | 2 | 1 | 1 | $0.5000 | $0.5000 |')
    expect(md).toContain('| review | 1 | 1 | 1 | $0.1000 | $0.1000 |')
    // PR #1 took a first task and a review's follow-up.
    expect(md).toContain('| #1 | 2 | $0.3000 |')
    expect(md).not.toContain('#9')
  })

  it('charts spend per day against the daily cap', () => {
    expect(spendChart(week, days, 0.5)).toBe(
      [
        '```mermaid',
        'xychart-beta',
        '  title "Spend per UTC day (USD) against budgets: daily-cost-usd"',
        '  x-axis ["11-26", "11-27", "11-28", "11-29", "11-30", "12-01", "12-02"]',
        '  y-axis "USD" 0 --> 0.55',
        '  bar [0.2, 0.4, 0, 0.1, 0, 0, 0.3]',
        '  line [0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5]',
        '```'
      ].join('\n')
    )
  })
})

describe('the spend inputs', () => {
  const env = (inputs: Partial<Record<InputName, string>>) =>
    Object.fromEntries(Object.entries(inputs).map(([k, v]) => [inputEnvName(k), v]))
  const fails = (inputs: Partial<Record<InputName, string>>) => {
    try {
      parseConfig(env(inputs))
    } catch (error) {
      expect(error).toBeInstanceOf(InputError)
      return (error as Error).message
    }
    throw new Error('accepted')
  }

  it('keeps the ledger on fleet-ledger once a cap is set, and none without', () => {
    const priced = { 'price-input': '1', 'price-output': '2' }
    expect(parseConfig(env({ ...priced, 'max-daily-cost-usd': '5' })).spend).toEqual({
      caps: { daily: 5, monthly: undefined, userDaily: undefined },
      ledger: 'fleet-ledger',
      ledgerBranch: 'fleet-ledger',
      reportDays: undefined
    })
    expect(parseConfig(env({})).spend.ledger).toBeUndefined()
    expect(parseConfig(env({ 'spend-ledger': 'costs/ledger' })).spend.ledger).toBe('costs/ledger')
  })

  it('names the input and the fix', () => {
    expect(fails({ 'max-daily-cost-usd': '5' })).toMatch(/max-daily-cost-usd.*needs your prices/)
    expect(fails({ 'max-user-daily-cost-usd': '-1' })).toMatch(
      /max-user-daily-cost-usd.*an amount in USD above 0/
    )
    expect(fails({ 'spend-ledger': 'fleet/ledger' })).toMatch(/spend-ledger.*inside branch-prefix/)
    expect(fails({ 'spend-ledger': 'main', 'base-branch': 'main' })).toMatch(/the base branch/)
    expect(fails({ 'spend-ledger': '-x' })).toMatch(/expected a branch name/)
    expect(fails({ 'report-days': '7' })).toMatch(/report-days.*mode: report/)
    expect(fails({ mode: 'report', 'report-days': '0' })).toMatch(/1 to 366/)
  })
})
