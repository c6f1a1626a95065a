import { describe, expect, it } from 'vitest'
import {
  REFRESH_END,
  REFRESH_START,
  refreshSection,
  sharing,
  withRefreshSection
} from '../../src/report/refresh.js'

const prs = [
  { number: 3, title: 'Write a', status: 'pr-updated' as const, conflicted: false, shares: [] },
  {
    number: 4,
    title: 'Write shared | @octocat',
    status: 'pr-updated' as const,
    conflicted: true,
    shares: [5]
  },
  {
    number: 5,
    title: 'Write shared too',
    status: 'conflict' as const,
    conflicted: true,
    error: 'markers are left in shared.txt',
    shares: [4]
  }
]

describe("the merge order on an issue's live comment", () => {
  it('lists the PRs in the order taken, what became of each, which conflicted, which share files', () => {
    const text = refreshSection({ base: 'main', prs, runUrl: 'https://example.com/run/1' })
    expect(text.startsWith(REFRESH_START)).toBe(true)
    expect(text.endsWith(REFRESH_END)).toBe(true)
    expect(text).toContain('### Merge order on `main`')
    expect(text).toContain('Conflicted: #4, #5.')
    const rows = text.split('\n').filter(l => /^\| \d/.test(l))
    expect(rows.map(r => r.split(' | ')[1]?.split(' ')[0])).toEqual(['#3', '#4', '#5'])
    expect(rows[1]).toContain('brought up to date: a worker resolved the conflict')
    expect(rows[1]).not.toContain('@octocat')
    expect(rows[2]).toContain(
      'conflicts: left as it was, the PR says why: markers are left in shared.txt'
    )
    expect(rows[0]).toMatch(/\| none \|$/)
    expect(rows[2]).toMatch(/\| #4 \|$/)
    expect(refreshSection({ base: 'main', prs: prs.slice(0, 1) })).toContain('None conflicted.')
  })

  it('replaces its own section and keeps the rest; adds one when there is none', () => {
    const table = '<!-- fleet-worker:status -->\n### Fleet Worker\n\n| task | state |'
    const first = withRefreshSection(table, refreshSection({ base: 'main', prs }))
    expect(first.startsWith(table)).toBe(true)
    const again = withRefreshSection(first, refreshSection({ base: 'main', prs: prs.slice(0, 1) }))
    expect(again.split(REFRESH_START)).toHaveLength(2)
    expect(again).not.toContain('#5')
    expect(again.startsWith(table)).toBe(true)
  })

  it('reads which PRs share files', () => {
    const shared = sharing([
      { number: 1, title: 'a', files: ['a.txt', 's.txt'] },
      { number: 2, title: 'b', files: ['b.txt'] },
      { number: 3, title: 'c', files: ['s.txt'] }
    ])
    expect(Object.fromEntries(shared)).toEqual({ 1: [3], 2: [], 3: [1] })
  })
})
