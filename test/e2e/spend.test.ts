// Issue 37, through dist/: spend held over every run. Separate action runs of one workflow (a
// fresh RUNNER_TEMP each, the same git remote and GitHub mock) keep a ledger on branch
// fleet-ledger of the real HTTP git remote: a daily cap holds over runs, a task that would cross
// it is deferred (not started, its reason said) while a started one is never stopped, two runs at
// once both record, the per-user cap holds on comment triggers, a tampered ledger is refused with
// a sentence, the split layout reads in the run job and writes in the land job, and the report
// renders a week of entries with the PRs merged.
import { execFile, spawn } from 'node:child_process'
import { mkdtemp } from 'node:fs/promises'
import path from 'node:path'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { commentOn, expectOk, ISSUES, useStack, useTemp } from '../support/scenario.js'
import { script } from '../../demo/model-server.js'
import type { RunActionResult } from '../../demo/run-action.js'
import { gitTestEnv } from '../../demo/git-remote.js'
import { assertNoLeaks } from '../../demo/leaks.js'
import {
  byId,
  GITHUB_TOKEN,
  OWNER,
  READ_TOKEN,
  REPO,
  results,
  type Stack
} from '../../demo/stack.js'
import { LedgerBranch } from '../../src/spend/branch.js'
import { schedule } from '../support/events.js'
import { COLLABORATORS, fleetComments, labelsOf, slug } from './triggers-support.js'

const exec = promisify(execFile)
const FULL = `${OWNER}/${REPO}`
const LEDGER = 'fleet-ledger'
// High prices, so a two-turn task costs about $0.25 and the caps below are a few tasks wide.
const PRICED = { prices: 'default: {input: 1000, output: 1000}' }

/** A task that writes one file in `turns` model turns (the last one says it is done). */
function task(id: string, turns = 2) {
  const writes = Array.from({ length: turns - 1 }, (_, i) => ({
    tool: 'Write',
    input: { file_path: `${id}-${i}.txt`, content: `from ${id}\n` }
  }))
  const steps = [...writes, { text: `Wrote ${id}.` }]
  return { id, prompt: `Write ${id}'s files.\n${script({ key: id, steps })}` }
}
const tasks = (...list: Array<ReturnType<typeof task>>) => JSON.stringify(list)

interface LedgerEntry {
  v: number
  at: string
  run: string
  task: string
  status: string
  cost: number
  tokens: number
  trigger: string
  user?: string
  pr?: number
}

async function git(cwd: string, ...args: string[]): Promise<string> {
  const env = {
    ...process.env,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_AUTHOR_NAME: 'Someone',
    GIT_AUTHOR_EMAIL: 's@example.com',
    GIT_COMMITTER_NAME: 'Someone',
    GIT_COMMITTER_EMAIL: 's@example.com'
  }
  return (await exec('git', args, { cwd, env })).stdout.trim()
}

async function ledgerOf(stack: Stack): Promise<LedgerEntry[]> {
  const text = (await stack.git.readFile(FULL, LEDGER, 'ledger.jsonl')) ?? ''
  return text
    .split('\n')
    .filter(Boolean)
    .map(l => JSON.parse(l) as LedgerEntry)
}

/** The ledger branch's commits, newest first, and how many parents each has. */
async function ledgerHistory(stack: Stack): Promise<string[]> {
  if (!Object.keys(await stack.git.branches(FULL)).includes(LEDGER)) return []
  const out = await git(stack.git.repoPath(FULL), 'log', '--format=%H %P', LEDGER)
  return out.split('\n').map(l => l.split(' ').slice(1).join(' '))
}

/** Writes the ledger branch as someone with push access could: one commit on top. */
async function writeLedger(stack: Stack, scratch: string, text: string): Promise<void> {
  const dir = await mkdtemp(path.join(scratch, 'ledger-'))
  await git(dir, 'init', '--quiet')
  const has = Object.keys(await stack.git.branches(FULL)).includes(LEDGER)
  if (has) {
    await git(dir, 'fetch', '--quiet', stack.git.repoPath(FULL), `${LEDGER}:${LEDGER}`)
    await git(dir, 'checkout', '--quiet', LEDGER)
  } else await git(dir, 'checkout', '--quiet', '--orphan', LEDGER)
  await import('node:fs/promises').then(fs => fs.writeFile(path.join(dir, 'ledger.jsonl'), text))
  await git(dir, 'add', 'ledger.jsonl')
  await git(dir, 'commit', '--quiet', '-m', 'by hand')
  await git(dir, 'push', '--quiet', stack.git.repoPath(FULL), `${LEDGER}:${LEDGER}`)
}

/** The message the step failed with (the runner shows `::error::` lines as the step's error). */
const failure = (run: RunActionResult) => /^::error::(.*)$/m.exec(run.stdout)?.[1] ?? ''
const cost = (run: RunActionResult, id: string) => byId(run).get(id)?.['cost-usd'] ?? 0
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0)
const today = () => new Date().toISOString().slice(0, 10)

describe('a daily cap held over the runs of one workflow', () => {
  const stack = useStack({ github: { collaborators: COLLABORATORS } })
  const scratch = useTemp('fleet-e2e-spend-')

  it('records the first run, then defers what would cross the cap, never stopping a started task', async () => {
    // Run 1: no history, nothing spent: both start, and the ledger branch is made.
    const first = await stack.run({
      inputs: { ...PRICED, tasks: tasks(task('t1'), task('t2')), budgets: 'daily-cost-usd: 100' }
    })
    expectOk(first)
    expect(first.stdout).not.toMatch(/Input '[a-z-]+' is deprecated/)
    expect(results(first).map(r => r.status)).toEqual(['pr-opened', 'pr-opened'])
    const spent1 = cost(first, 't1') + cost(first, 't2')
    expect(spent1).toBeGreaterThan(0)
    const after1 = await ledgerOf(stack)
    expect(after1.map(e => [e.task, e.status, e.trigger])).toEqual([
      ['t1', 'pr-opened', 'dispatch'],
      ['t2', 'pr-opened', 'dispatch']
    ])
    expect(sum(after1.map(e => e.cost))).toBeCloseTo(spent1, 5)
    expect(after1.every(e => e.pr !== undefined && e.at.startsWith(today()))).toBe(true)
    // A branch of its own: not the default, an orphan (its first commit has no parent).
    expect(stack.github.state.repo.defaultBranch).toBe('main')
    expect(await ledgerHistory(stack)).toEqual([''])
    expect(await stack.git.readFile(FULL, LEDGER, 'README.md')).toContain('spend ledger')

    // Run 2 (a fresh runner): the cap leaves room for one more median task, not two. t3 starts
    // and, being longer than the median, spends past the cap: it is not stopped.
    const median = (cost(first, 't1') + cost(first, 't2')) / 2
    const cap = spent1 + 1.5 * median
    const second = await stack.run({
      inputs: {
        ...PRICED,
        tasks: tasks(task('t3', 5), task('t4')),
        budgets: `{daily-cost-usd: ${cap.toFixed(6)}}`
      }
    })
    expectOk(second)
    const got = byId(second)
    expect(got.get('t3')?.status).toBe('pr-opened')
    expect(cost(second, 't3')).toBeGreaterThan(median)
    expect(spent1 + cost(second, 't3')).toBeGreaterThan(cap)
    expect(got.get('t4')?.status).toBe('deferred')
    expect(got.get('t4')?.error).toMatch(
      /^The daily cap \(budgets: daily-cost-usd\) is \$[\d.]+ and \$[\d.]+ is spent today \(UTC\); this task may cost \$[\d.]+ \(the median of the last 2 tasks\), so it was deferred, not started/
    )
    expect(stack.model.requestsFor('t4')).toHaveLength(0)
    expect(Object.keys(await stack.git.branches(FULL))).not.toContain('fleet/t4')
    expect(second.summary).toMatch(
      new RegExp(
        `today \\(${today()} UTC\\): \\$[\\d.]+ of \\$[\\d.]+ \\(budgets: daily-cost-usd\\)`
      )
    )
    expect(second.summary).toMatch(/this month \(\d{4}-\d{2}\): \$[\d.]+/)
    expect((await ledgerOf(stack)).map(e => e.task)).toEqual(['t1', 't2', 't3'])
    expect(await ledgerHistory(stack)).toHaveLength(2)

    // Run 3: the day is over its cap now; t4 is deferred again, by what the ledger holds.
    const third = await stack.run({
      inputs: { ...PRICED, tasks: tasks(task('t4')), 'max-daily-cost-usd': cap.toFixed(6) }
    })
    expectOk(third)
    expect(byId(third).get('t4')?.status).toBe('deferred')
    expect(stack.model.requestsFor('t4')).toHaveLength(0)
    // A monthly cap is held the same way; its old name still works, with a warning naming the new form.
    const monthly = await stack.run({
      inputs: { ...PRICED, tasks: tasks(task('t5')), 'max-monthly-cost-usd': cap.toFixed(6) }
    })
    expect(byId(monthly).get('t5')?.error).toMatch(
      /^The monthly cap \(budgets: monthly-cost-usd\) is/
    )
    expect(monthly.stdout).toMatch(
      /::warning::Input 'max-monthly-cost-usd' is deprecated .*use budgets: \{monthly-cost-usd: [\d.]+\} instead/
    )
    // The old name and its new key together: refused before any worker, naming both.
    const both = await stack.run({
      inputs: {
        ...PRICED,
        tasks: tasks(task('t6')),
        'max-monthly-cost-usd': '5',
        budgets: 'monthly-cost-usd: 5'
      }
    })
    expect(both.exitCode).not.toBe(0)
    expect(both.stdout + both.stderr).toContain(
      "Input 'budgets': 'max-monthly-cost-usd' and 'budgets: monthly-cost-usd' both set the same thing"
    )
    expect(stack.model.requestsFor('t6')).toHaveLength(0)
    expect(monthly.summary).toMatch(
      /this month \(\d{4}-\d{2}\): \$[\d.]+ of \$[\d.]+ \(budgets: monthly-cost-usd\)/
    )
  })

  it('two workflow runs at once both append: no entry is lost', async () => {
    const before = (await ledgerOf(stack)).length
    const commits = (await ledgerHistory(stack)).length
    const shard = (id: string) =>
      stack.run({ inputs: { ...PRICED, tasks: tasks(task(id)), 'spend-ledger': LEDGER } })
    const [a, b] = await Promise.all([shard('m1'), shard('m2')])
    for (const r of [a, b]) expectOk(r)
    const after = await ledgerOf(stack)
    expect(after).toHaveLength(before + 2)
    expect(
      after
        .slice(before)
        .map(e => e.task)
        .sort()
    ).toEqual(['m1', 'm2'])
    // One commit per append, each on top of the last: a straight line, nothing forced away.
    const history = await ledgerHistory(stack)
    expect(history).toHaveLength(commits + 2)
    expect(history.slice(0, -1).every(p => /^[0-9a-f]{40}$/.test(p))).toBe(true)
  })

  it('a planned matrix: two mode: run shards at once each append; the report job adds nothing', async () => {
    const before = (await ledgerOf(stack)).length
    const plan = await stack.run({
      inputs: { mode: 'plan', 'max-jobs': '2', tasks: tasks(task('m3'), task('m4')) }
    })
    expectOk(plan)
    const outcomesDir = await mkdtemp(path.join(scratch, 'shards-'))
    const shard = (n: number) =>
      stack.run({
        inputs: {
          ...PRICED,
          mode: 'run',
          plan: plan.outputs.plan ?? '',
          shard: String(n),
          'outcomes-dir': outcomesDir,
          'spend-ledger': LEDGER
        }
      })
    const shards = await Promise.all([shard(0), shard(1)])
    for (const r of shards) expectOk(r)
    const report = await stack.run({
      inputs: {
        mode: 'report',
        plan: plan.outputs.plan ?? '',
        'outcomes-dir': outcomesDir,
        'spend-ledger': LEDGER
      }
    })
    expectOk(report)
    const after = await ledgerOf(stack)
    expect(
      after
        .slice(before)
        .map(e => e.task)
        .sort()
    ).toEqual(['m3', 'm4'])
    expect(after.slice(before).map(e => e.run)).toEqual(
      expect.arrayContaining([expect.stringMatching(/-0$/), expect.stringMatching(/-1$/)])
    )
  })

  it('six appends racing over the HTTP remote: each loser reads again, every entry lands once', async () => {
    const before = await ledgerOf(stack)
    const commits = (await ledgerHistory(stack)).length
    const retried: string[] = []
    const entry = (i: number) => ({
      v: 1 as const,
      at: new Date().toISOString(),
      run: `race-${i}`,
      task: `race-${i}`,
      status: 'pr-opened',
      cost: 0.01,
      tokens: 10,
      trigger: 'dispatch' as const
    })
    await Promise.all(
      Array.from({ length: 6 }, async (_, i) => {
        const ledger = await LedgerBranch.open({
          remoteUrl: stack.cloneUrl,
          token: GITHUB_TOKEN,
          branch: LEDGER,
          dir: path.join(scratch, `race-${i}`),
          env: gitTestEnv(stack.home),
          author: { name: 'Fleet', email: 'fleet@example.com' },
          log: m => retried.push(m)
        })
        await ledger.append([entry(i)], `race ${i}`)
      })
    )
    const after = await ledgerOf(stack)
    expect(after.slice(0, before.length)).toEqual(before)
    expect(
      after
        .slice(before.length)
        .map(e => e.task)
        .sort()
    ).toEqual(Array.from({ length: 6 }, (_, i) => `race-${i}`))
    // They did race (six readers of one tip), and the losers went on top, never forced.
    expect(retried.length).toBeGreaterThan(0)
    expect(retried[0]).toMatch(/another run appended first; appending on top of it/)
    expect(await ledgerHistory(stack)).toHaveLength(commits + 6)
  })

  it('a tampered ledger ends the run with a sentence naming it, and no worker starts', async () => {
    const good = (await stack.git.readFile(FULL, LEDGER, 'ledger.jsonl')) ?? ''
    const lines = good.trim().split('\n')
    const forged = lines.map((l, i) => (i === 1 ? l.replace(/"cost":[\d.e-]+/, '"cost":-50') : l))
    await writeLedger(stack, scratch, `${forged.join('\n')}\n`)
    const run = await stack.run({
      inputs: { ...PRICED, tasks: tasks(task('x1')), 'max-daily-cost-usd': '1000' }
    })
    expect(run.exitCode).not.toBe(0)
    expect(failure(run)).toMatch(
      /^the spend ledger \(ledger\.jsonl on branch fleet-ledger\) line 2 is not a ledger entry \(cost: .*\): the ledger was tampered with or edited by hand, so spend caps cannot be checked/
    )
    // Every task still has its one outcome, saying why it did not start.
    expect(byId(run).get('x1')?.status).toBe('not-started')
    expect(byId(run).get('x1')?.error).toMatch(/^not started: the spend ledger/)
    expect(stack.model.requestsFor('x1')).toHaveLength(0)
    expect(Object.keys(await stack.git.branches(FULL))).not.toContain('fleet/x1')
    expect(run.stderr).not.toMatch(/TypeError|at .*\.js:\d+/)

    // Garbled (not JSON at all): the same, with its line.
    await writeLedger(stack, scratch, `${good}{"v":1,"at"\n`)
    const garbled = await stack.run({
      inputs: { ...PRICED, tasks: tasks(task('x1')), 'max-daily-cost-usd': '1000' }
    })
    expect(garbled.exitCode).not.toBe(0)
    expect(failure(garbled)).toMatch(
      new RegExp(`line ${lines.length + 1} is not JSON: the ledger was garbled`)
    )
    expect(stack.model.requestsFor('x1')).toHaveLength(0)
  })
})

describe('the ledger never on the default branch', () => {
  const stack = useStack()

  it("refuses spend-ledger naming the repository's default branch, and starts nothing", async () => {
    const run = await stack.run({
      inputs: { ...PRICED, tasks: tasks(task('d1')), 'spend-ledger': 'main' }
    })
    expect(run.exitCode).not.toBe(0)
    expect(failure(run)).toBe(
      "Input 'spend-ledger': 'main' is the repository's default branch: the ledger needs a branch of its own that nobody merges, such as fleet-ledger"
    )
    expect(byId(run).get('d1')?.status).toBe('not-started')
    expect(stack.model.requestsFor('d1')).toHaveLength(0)
  })
})

describe('a deferred queued issue keeps its label for a later night', () => {
  const stack = useStack(ISSUES)

  const nightly = () => schedule({ owner: OWNER, repo: REPO, cron: '17 3 * * *' })
  const queue = (title: string, created: string) =>
    stack.github.addIssue({
      title,
      body: '',
      labels: ['fleet'],
      user: 'maria',
      created_at: created
    }).number

  it('defers the issue that would cross the daily cap; it stays queued and runs the next night', async () => {
    const a = queue('Write notes/a.md', '2025-01-01T00:00:00Z')
    const first = await stack.run({
      eventName: 'schedule',
      payload: nightly(),
      inputs: { ...PRICED, 'max-daily-cost-usd': '100' }
    })
    expectOk(first)
    const spent = cost(first, `issue-${a}`)
    expect((await ledgerOf(stack))[0]).toMatchObject({ trigger: 'schedule', user: 'maria' })

    const b = queue('Write notes/b.md', '2025-01-02T00:00:00Z')
    const c = queue('Write notes/c.md', '2025-01-03T00:00:00Z')
    const cap = (spent * 2.5).toFixed(6)
    const second = await stack.run({
      eventName: 'schedule',
      payload: nightly(),
      inputs: { ...PRICED, 'max-daily-cost-usd': cap }
    })
    expectOk(second)
    expect(byId(second).get(`issue-${b}`)?.status).toBe('pr-opened')
    expect(byId(second).get(`issue-${c}`)?.status).toBe('deferred')
    expect(stack.model.requestsFor(slug('Write notes/c.md'))).toHaveLength(0)
    expect(labelsOf(stack, b)).toEqual(['fleet:done'])
    // Still queued, not in progress, not failed; its comment says why.
    expect(labelsOf(stack, c)).toEqual(['fleet'])
    const [live] = fleetComments(stack, c)
    expect(live?.body).toMatch(/deferred: The daily cap \(budgets: daily-cost-usd\) is \$[\d.]+/)

    // The next night, with room again: the queue takes it up.
    const third = await stack.run({
      eventName: 'schedule',
      payload: nightly(),
      inputs: { ...PRICED, 'max-daily-cost-usd': '100' }
    })
    expect(results(third).map(r => [r.id, r.status])).toEqual([[`issue-${c}`, 'pr-opened']])
    expect(labelsOf(stack, c)).toEqual(['fleet:done'])
  })
})

describe('the per-user cap on comment triggers', () => {
  const stack = useStack(ISSUES)

  function commentRun(commenter: string, key: string, cap: string) {
    const issue = stack.github.addIssue({ title: `Write ${key}`, body: '', user: commenter })
    const body = `/fleet Write ${key}.txt`
    const { payload } = commentOn(stack, issue, body, commenter)
    return {
      issue: issue.number,
      run: stack.run({
        eventName: 'issue_comment',
        payload,
        inputs: { ...PRICED, 'max-user-daily-cost-usd': cap }
      })
    }
  }

  it("defers maria's second comment once her day's spend would cross the cap; olga's still runs", async () => {
    const one = commentRun('maria', 'c1', '100')
    const first = await one.run
    expectOk(first)
    const [entry] = await ledgerOf(stack)
    expect(entry).toMatchObject({ task: `issue-${one.issue}`, trigger: 'comment', user: 'maria' })
    const spent = entry?.cost ?? 0
    expect(spent).toBeGreaterThan(0)
    // Room for half a task more of maria's: her next one would cross it.
    const cap = (spent * 1.5).toFixed(6)

    const two = commentRun('maria', 'c2', cap)
    const second = await two.run
    expectOk(second)
    const deferred = byId(second).get(`issue-${two.issue}`)
    expect(deferred?.status).toBe('deferred')
    expect(deferred?.error).toMatch(
      /^The person's daily cap \(budgets: user-daily-cost-usd\) is \$[\d.]+ and \$[\d.]+ is spent today \(UTC\) on work maria started/
    )
    expect(stack.model.requestsFor(slug('Write c2.txt'))).toHaveLength(0)
    // The live comment says why.
    const [live] = fleetComments(stack, two.issue)
    expect(live?.body).toContain('deferred')
    expect(live?.body).toContain('budgets: user-daily-cost-usd')
    expect(second.summary).toMatch(
      /maria today: \$[\d.]+ of \$[\d.]+ \(budgets: user-daily-cost-usd\)/
    )

    const three = commentRun('olga', 'c3', cap)
    const third = await three.run
    expectOk(third)
    expect(byId(third).get(`issue-${three.issue}`)?.status).toBe('pr-opened')
    expect((await ledgerOf(stack)).map(e => e.user)).toEqual(['maria', 'olga'])
  })
})

describe('the split layout: the run job reads the ledger, the land job writes it', () => {
  const stack = useStack({ workspace: { credentials: 'none' } })
  const outcomesDir = useTemp('fleet-e2e-spend-split-')

  it('defers by the ledger in the read-only job, and the land job appends with the PRs', async () => {
    // The first workflow run: an ordinary one records what it spent.
    const seed = await stack.run({
      inputs: { ...PRICED, tasks: tasks(task('s0')), 'spend-ledger': LEDGER }
    })
    expectOk(seed)
    const spent = cost(seed, 's0')
    const cap = (spent * 2.5).toFixed(6)
    const pushesBefore = stack.git.requests.filter(r => r.service === 'git-receive-pack').length

    const run = await stack.run({
      inputs: {
        ...PRICED,
        tasks: tasks(task('s1'), task('s2')),
        land: 'false',
        'outcomes-dir': outcomesDir,
        'github-token': READ_TOKEN,
        'max-daily-cost-usd': cap
      }
    })
    expectOk(run)
    // s0 + s1's estimate fits under 2.5x; s2's would not.
    expect(results(run).map(r => [r.id, r.status])).toEqual([
      ['s1', 'ready'],
      ['s2', 'deferred']
    ])
    expect(stack.git.requests.filter(r => r.service === 'git-receive-pack').length).toBe(
      pushesBefore
    )
    expect(stack.git.refused).toEqual([])
    expect((await ledgerOf(stack)).map(e => e.task)).toEqual(['s0'])
    expect(run.summary).toContain("with this job's tasks, which mode: land records")

    const land = await stack.run({
      inputs: {
        mode: 'land',
        'outcomes-dir': outcomesDir,
        'api-key': '',
        'base-url': 'http://127.0.0.1:9',
        'max-daily-cost-usd': cap,
        ...PRICED
      }
    })
    expectOk(land)
    const landed = byId(land)
    expect(landed.get('s1')?.status).toBe('pr-opened')
    expect(landed.get('s2')?.status).toBe('deferred')
    const ledger = await ledgerOf(stack)
    expect(ledger.map(e => e.task)).toEqual(['s0', 's1'])
    expect(ledger[1]?.pr).toBe(landed.get('s1')?.['pr-number'])
    expect(ledger[1]?.cost).toBeCloseTo(cost(run, 's1'), 5)
    expect(land.summary).toMatch(
      /today \(.* UTC\): \$[\d.]+ of \$[\d.]+ \(budgets: daily-cost-usd\)/
    )
  })
})

describe('the spend report', () => {
  const stack = useStack()
  const scratch = useTemp('fleet-e2e-spend-report-')

  it('renders a week of the ledger: tasks, PRs opened and merged, cost per merged PR, the chart', async () => {
    const pulls = [1, 2, 3].map(i => stack.github.state.addPull({ head: `fleet/w${i}` }))
    const [p1, p2, p3] = pulls.map(p => p.number)
    for (const p of [pulls[0], pulls[2]]) if (p) p.pull.merged_at = '2026-12-01T00:00:00Z'
    const day = (back: number) => new Date(Date.now() - back * 86_400_000).toISOString()
    const line = (back: number, t: string, c: number, more: object = {}) =>
      JSON.stringify({
        v: 1,
        at: day(back),
        run: '1-0',
        task: t,
        status: 'pr-opened',
        cost: c,
        tokens: 100,
        trigger: 'schedule',
        model: 'glm-4.6',
        ...more
      })
    const week = [
      line(9, 'old', 40, { pr: p2 }), // before the window
      line(6, 'w1', 0.5, { pr: p1 }),
      line(5, 'w2', 0.25, { pr: p2, trigger: 'comment', user: 'maria' }),
      line(3, 'w3', 1.25, { pr: p3, model: 'kimi-k2' }),
      line(1, 'w1-fix', 0.25, { pr: p1, trigger: 'review', user: 'maria' }),
      line(0, 'w4', 0.75, { status: 'failed' })
    ]
    await writeLedger(stack, scratch, `${week.join('\n')}\n`)

    const run = await stack.run({
      inputs: { mode: 'report', 'report-days': '7', 'max-daily-cost-usd': '2', ...PRICED }
    })
    expectOk(run)
    expect(JSON.parse(run.outputs.spend ?? '{}')).toMatchObject({
      tasks: 5,
      'cost-usd': 3,
      'prs-opened': 3,
      'prs-merged': 2,
      'cost-per-merged-pr-usd': 1.5
    })
    const md = run.summary
    expect(md).toContain('5 tasks cost $3.00; 3 PRs opened, 2 merged: $1.50 per merged PR.')
    expect(md).toContain('| glm-4.6 | 4 | 2 | 1 | $1.75 | $1.75 |')
    expect(md).toContain('| kimi-k2 | 1 | 1 | 1 | $1.25 | $1.25 |')
    expect(md).toContain('| review | 1 | 1 | 1 | $0.2500 | $0.2500 |')
    expect(md).toContain(`| #${p1} | 2 | $0.7500 |`)
    expect(md).not.toContain(`| #${p2} |`)
    expect(md).toContain('```mermaid\nxychart-beta')
    expect(md).toContain('  bar [0.5, 0.25, 0, 1.25, 0, 0.25, 0.75]')
    expect(md).toContain('  line [2, 2, 2, 2, 2, 2, 2]')
    // Read only: nothing pushed, no API write.
    expect(stack.git.requests.filter(r => r.service === 'git-receive-pack')).toHaveLength(0)
    expect(stack.github.requests.filter(r => r.method !== 'GET')).toEqual([])
  })

  it('fleet-worker report prints the same report from the local clone', async () => {
    const cli = await new Promise<{ code: number | null; out: string; err: string }>(done => {
      const child = spawn(
        process.execPath,
        [
          path.resolve(import.meta.dirname, '../../dist/cli/index.js'),
          'report',
          '--repository',
          FULL,
          '--api-url',
          stack.github.url
        ],
        {
          cwd: stack.workspace,
          env: { ...gitTestEnv(stack.home), GITHUB_TOKEN, PATH: process.env.PATH },
          stdio: ['ignore', 'pipe', 'pipe']
        }
      )
      let out = ''
      let err = ''
      child.stdout.on('data', (c: Buffer) => (out += c.toString()))
      child.stderr.on('data', (c: Buffer) => (err += c.toString()))
      child.on('close', code => done({ code, out, err }))
    })
    // The leak scan of the harness, on what the CLI printed (it has no outputs or summary).
    await assertNoLeaks(stack, {
      exitCode: cli.code,
      signal: null,
      stdout: cli.out,
      stderr: cli.err,
      outputs: {},
      summary: '',
      runnerTemp: scratch,
      durationMs: 0
    })
    expect(cli.code, cli.out + cli.err).toBe(0)
    expect(cli.out).toContain('(7 UTC days)')
    expect(cli.out).toContain('5 tasks cost $3.00; 3 PRs opened, 2 merged: $1.50 per merged PR.')
    expect(cli.out).toContain('| kimi-k2 | 1 | 1 | 1 | $1.25 | $1.25 |')
  })
})
