import { describe, expect, it } from 'vitest'
import { FAILING, STATUSES, type Outcome } from '../../src/domain.js'
import { cell, fence } from '../../src/report/markdown.js'
import { prBody } from '../../src/report/pr-body.js'
import { outputs, resultEntry, totals } from '../../src/report/results.js'
import { parallelismLine, summaryMarkdown, timeline } from '../../src/report/summary.js'
import type { Task } from '../../src/domain.js'

const usage = {
  input_tokens: 1200,
  output_tokens: 340,
  cache_read_input_tokens: 5000,
  cache_creation_input_tokens: 800
}

function outcome(over: Partial<Outcome> = {}): Outcome {
  return {
    id: 'fix-login-a1b2c3',
    title: 'Fix the login bug',
    status: 'pr-opened',
    source: { kind: 'input' },
    branch: 'fleet/fix-login-a1b2c3',
    prNumber: 17,
    prUrl: 'https://github.com/acme/app/pull/17',
    turns: 5,
    durationMs: 65_000,
    usage,
    model: 'glm-4.6',
    attempts: 1,
    startedAt: 1_000_000,
    endedAt: 1_065_000,
    ...over
  }
}

const CONTRACT_FIELDS = [
  'id',
  'status',
  'branch',
  'pr-number',
  'pr-url',
  'turns',
  'duration-ms',
  'usage',
  'error'
]
const USAGE_FIELDS = [
  'input_tokens',
  'output_tokens',
  'cache_read_input_tokens',
  'cache_creation_input_tokens'
]

/** Cells of a GFM table row: split on pipes no backslash escapes. */
const cells = (row: string) => row.split(/(?<!\\)\|/).length - 2

describe('results output', () => {
  it('every entry carries every CONTRACT field, null where it does not apply', () => {
    const notStarted = outcome({
      id: 'later',
      status: 'not-started',
      branch: undefined,
      prNumber: undefined,
      prUrl: undefined,
      turns: 0,
      durationMs: 0,
      usage: { ...usage, input_tokens: 0 },
      error: 'the run deadline came first'
    })
    const parsed = JSON.parse(outputs([outcome(), notStarted]).results ?? '') as Record<
      string,
      unknown
    >[]
    expect(parsed).toHaveLength(2)
    for (const entry of parsed) {
      for (const field of CONTRACT_FIELDS) expect(entry, field).toHaveProperty(field)
      expect(Object.keys(entry.usage as object).sort()).toEqual([...USAGE_FIELDS].sort())
      expect(STATUSES).toContain(entry.status)
    }
    expect(parsed[0]).toMatchObject({
      id: 'fix-login-a1b2c3',
      status: 'pr-opened',
      branch: 'fleet/fix-login-a1b2c3',
      'pr-number': 17,
      'pr-url': 'https://github.com/acme/app/pull/17',
      turns: 5,
      'duration-ms': 65_000,
      usage,
      error: null
    })
    expect(parsed[1]).toMatchObject({
      branch: null,
      'pr-number': null,
      'pr-url': null,
      error: 'the run deadline came first'
    })
  })

  it('counts succeeded and failed, and lists each PR URL once', () => {
    const all = STATUSES.map((status, i) => outcome({ id: `t${i}`, status }))
    const out = outputs(all)
    // pr-opened, pr-updated, pushed, no-changes, up-to-date, ready, merged
    expect(out.succeeded).toBe('7')
    expect(out.failed).toBe(String(FAILING.length))
    expect(JSON.parse(out['pull-requests'] ?? '')).toEqual(['https://github.com/acme/app/pull/17'])
    expect(Object.keys(out).sort()).toEqual(['failed', 'pull-requests', 'results', 'succeeded'])
  })

  it('totals count cached input as input', () => {
    expect(totals([outcome(), outcome()])).toMatchObject({
      tokensIn: 2 * 7000,
      tokensOut: 680,
      turns: 10
    })
  })

  it('worker-start-ms is the time from the task start to its first worker, null without one', () => {
    const ran = resultEntry(outcome({ startedAt: 1_000_000, workerStartedAt: 1_002_345 }))
    expect(ran['worker-start-ms']).toBe(2345)
    // A task that ended before any worker (setup failed, not started) has no such time.
    expect(resultEntry(outcome({ workerStartedAt: undefined }))['worker-start-ms']).toBeNull()
    expect(
      resultEntry(outcome({ startedAt: undefined, workerStartedAt: 5 }))['worker-start-ms']
    ).toBeNull()
    const parsed: unknown = JSON.parse(
      outputs([outcome({ workerStartedAt: 1_000_010 })]).results ?? ''
    )
    expect(parsed).toMatchObject([{ 'worker-start-ms': 10 }])
  })

  it('resultEntry is JSON-safe (no undefined that JSON.stringify would drop)', () => {
    const entry = resultEntry(outcome({ branch: undefined }))
    expect(Object.keys(JSON.parse(JSON.stringify(entry)) as object)).toEqual(Object.keys(entry))
  })
})

describe('summary', () => {
  const tableRows = (md: string) => md.split('\n').filter(l => l.startsWith('|'))

  it('has a row per task, and a title with | or line breaks does not break the table', () => {
    const md = summaryMarkdown([
      outcome({ title: 'Use a | b in the parser' }),
      outcome({
        id: 'two',
        title: 'Split\nlines\r\nhere',
        status: 'failed',
        error: 'exit | 1\nsee log'
      })
    ])
    const rows = tableRows(md)
    expect(rows).toHaveLength(4)
    const width = cells(rows[0] ?? '')
    expect(width).toBe(8)
    for (const row of rows) expect(cells(row), row).toBe(width)
    expect(md).toContain('Use a \\| b in the parser')
    expect(md).toContain('fix-login-a1b2c3')
  })

  it('a lone carriage return (a CommonMark line ending) does not break a row either', () => {
    const md = summaryMarkdown([outcome({ status: 'failed', error: 'npm ERR!\rDownloading 100%' })])
    for (const row of tableRows(md)) expect(row).not.toMatch(/\r/)
  })

  it('states the totals', () => {
    const md = summaryMarkdown([outcome(), outcome({ id: 'b', status: 'failed' })], 'Dry run.')
    expect(md).toContain('2 tasks: 1 succeeded, 1 failed.')
    expect(md).toContain('Dry run.')
  })

  it('the gantt is a mermaid block with one line per task that ran', () => {
    const ran = [
      outcome({ id: 'a', startedAt: 5000, endedAt: 9000 }),
      outcome({ id: 'b', status: 'failed', startedAt: 6000, endedAt: 7000 }),
      outcome({ id: 'c', status: 'verify-failed', startedAt: 5500, endedAt: 12_000 })
    ]
    const skipped = outcome({
      id: 'd',
      status: 'not-started',
      startedAt: undefined,
      endedAt: undefined
    })
    const md = summaryMarkdown([...ran, skipped])
    const block = /```mermaid\n([\s\S]*?)\n```/.exec(md)?.[1]
    expect(block).toBeDefined()
    const lines = (block ?? '').split('\n')
    expect(lines[0]).toBe('gantt')
    const tasks = lines.filter(l => /^\s+\S+ :\w+, \d+, \d+$/.test(l))
    expect(tasks).toEqual(['  a :done, 0, 4000', '  b :crit, 1000, 2000', '  c :active, 500, 7000'])
    expect(timeline([skipped])).toBe('')
    expect(summaryMarkdown([skipped])).not.toContain('mermaid')
  })
})

describe('prBody', () => {
  const task = (over: Partial<Task> = {}): Task => ({
    id: 'issue-12-2',
    prompt: 'Fix the login bug',
    title: 'Fix the login bug',
    branch: 'fleet/issue-12-2',
    source: { kind: 'issue', issue: 12, item: 2 },
    ...over
  })

  /** The text of the first fenced block after `heading`, read as a markdown renderer would. */
  function fencedAfter(md: string, heading: string): string | undefined {
    const lines = md.split('\n')
    const open = lines.findIndex(
      (l, i) => i > lines.findIndex(h => h.startsWith(heading)) && /^`{3,}$/.test(l)
    )
    if (open < 0) return undefined
    const close = lines.findIndex((l, i) => i > open && l === lines[open])
    return lines.slice(open + 1, close).join('\n')
  }

  it("says 'Refs #N' for issue tasks and follow-ups on issues, not for input tasks", () => {
    expect(prBody(task(), outcome(), {}).split('\n')[0]).toBe('Refs #12')
    expect(
      prBody(task({ source: { kind: 'follow-up', pr: 30, issue: 12 } }), outcome(), {})
    ).toContain('Refs #12')
    expect(prBody(task({ source: { kind: 'input' } }), outcome(), {})).not.toMatch(/Refs #/)
  })

  it('puts the verify tail in a fence that survives backticks in the output', () => {
    const tail = 'FAIL src/a.test.ts\n```\nnot the end\n````\nstill output `x`\n```js'
    const body = prBody(
      task(),
      outcome({
        status: 'verify-failed',
        verify: { command: 'npm test', exitCode: 1, timedOut: false, tail }
      }),
      {}
    )
    expect(body).toContain('### Verify: failed (exit 1)')
    expect(fencedAfter(body, '### Verify')).toBe(tail)
  })

  it('fences the task prompt the same way, and names the task and the run', () => {
    const prompt = 'Do ```this``` and\n```\nthat'
    const body = prBody(task({ prompt }), outcome(), {
      runUrl: 'https://github.com/acme/app/actions/runs/1'
    })
    expect(fencedAfter(body, '### Task')).toBe(prompt)
    expect(body).toContain('https://github.com/acme/app/actions/runs/1')
    expect(body).toContain('issue-12-2')
  })

  it('reports a verify timeout and an empty tail', () => {
    const body = prBody(
      task(),
      outcome({ verify: { command: 'npm test', exitCode: null, timedOut: true, tail: '' } }),
      {}
    )
    expect(body).toContain('### Verify: timed out')
    expect(fencedAfter(body, '### Verify')).toBe('(no output)')
  })
})

describe('markdown helpers', () => {
  it('cell escapes pipes and folds lines', () => {
    expect(cell('a|b\nc')).toBe('a\\|b c')
  })

  it('fence is longer than any backtick run inside', () => {
    expect(fence('x')).toBe('```\nx\n```')
    expect(fence('a ````` b').startsWith('``````\n')).toBe(true)
  })
})

describe('the parallelism line', () => {
  const p = { mode: 'auto', cap: 16, cores: 2, peak: 16, limitedBy: 'hard-cap' } as const
  it('tells the peak and what held it there, in words', () => {
    expect(parallelismLine(p)).toBe(
      'Peak parallelism: 16 workers at once (max-parallel: auto, 2 cores); it stopped there because it reached the hard cap of 8 × cores (16).'
    )
    expect(parallelismLine({ ...p, peak: 1, limitedBy: 'cpu' })).toMatch(
      /^Peak parallelism: 1 worker at once .*the CPU had no room/
    )
    expect(
      parallelismLine({ ...p, mode: 'fixed', cap: 6, peak: 6, limitedBy: 'max-parallel' })
    ).toMatch(/\(max-parallel: 6, 2 cores\); it stopped there because max-parallel is 6\.$/)
    expect(parallelismLine({ ...p, peak: 3, limitedBy: 'tasks' })).toMatch(/every task had started/)
  })
})
