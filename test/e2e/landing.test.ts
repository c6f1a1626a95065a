// Issue 4, landing: the same tasks run twice update their branches and PRs; a PR closed by a
// person gets a new one; no change lands nothing; the worker's own commits are kept; PR inputs
// reach the PR. Failures of verify, push and the API: landing-failures.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { expectOk } from '../support/scenario.js'
import {
  bash,
  expectContractResults,
  expectSummary,
  prBodyDurationMs,
  scripted,
  write
} from './landing-support.js'
import { byId, OWNER, REPO, type Stack, startStack } from '../../demo/stack.js'

const NAME = `${OWNER}/${REPO}`
const IDS = ['alpha', 'beta', 'gamma']

/** Run `round` of the three tasks: same ids, content and titles that say which round wrote them. */
const round = (n: number, ids = IDS) =>
  JSON.stringify(
    ids.map(id => ({
      id,
      title: `${id} round ${n}`,
      prompt: scripted(
        `${id}-r${n}`,
        [write(`${id}.txt`, `${id} from round ${n}\n`)],
        `Wrote ${id}.txt in round ${n}.`
      )
    }))
  )

describe('landing: idempotent PRs, kept commits, PR inputs', () => {
  let stack: Stack
  let mainSha: string
  beforeAll(async () => {
    stack = await startStack({
      github: { collaborators: { 'rev-one': 'write', 'dev-two': 'write' } }
    })
    mainSha = (await stack.git.branches(NAME)).main ?? ''
  })
  afterAll(async () => stack?.close())

  it('runs the same three tasks twice: three branches, three PRs, updated with the second run', async () => {
    const first = await stack.run({ inputs: { tasks: round(1) } })
    expectOk(first)
    const firstOut = byId(first)
    const firstTips = await stack.git.branches(NAME)
    for (const id of IDS) expect(firstOut.get(id)?.status).toBe('pr-opened')
    expectContractResults(first, 3)
    expectSummary(first, IDS)

    const second = await stack.run({ inputs: { tasks: round(2) } })
    expectOk(second)
    expectContractResults(second, 3)
    expectSummary(second, IDS)
    const out = byId(second)
    const tips = await stack.git.branches(NAME)
    expect(
      Object.keys(tips)
        .filter(b => b.startsWith('fleet/'))
        .sort()
    ).toEqual(IDS.map(id => `fleet/${id}`))

    for (const id of IDS) {
      const r = out.get(id)
      expect(r?.status).toBe('pr-updated')
      expect(r?.['pr-number']).toBe(firstOut.get(id)?.['pr-number'])
      expect(r?.['pr-url']).toBe(firstOut.get(id)?.['pr-url'])
      expect(r?.usage).toEqual(stack.model.usageFor(`${id}-r2`))

      const branch = `fleet/${id}`
      expect(await stack.git.readFile(NAME, branch, `${id}.txt`)).toBe(`${id} from round 2\n`)
      // Each run starts from base: the tip is round 2's commit, straight on main, and round 1's
      // commit is gone from the branch (replaced with a lease, not merged).
      const log = await stack.git.log(NAME, branch)
      expect(tips[branch]).not.toBe(firstTips[branch])
      expect(log[0]?.sha).toBe(tips[branch])
      expect(log[0]?.subject).toBe(`fleet(${id}): ${id} round 2`)
      expect(log[1]?.sha).toBe(mainSha)
      expect(log.map(c => c.sha)).not.toContain(firstTips[branch])
    }

    const pulls = stack.github.state.pulls
    expect(pulls).toHaveLength(3)
    expect(pulls.every(p => p.state === 'open')).toBe(true)
    for (const id of IDS) {
      const pr = pulls.find(p => p.pull.head === `fleet/${id}`)
      expect(pr?.number).toBe(out.get(id)?.['pr-number'])
      expect(pr?.title).toBe(`${id} round 2`)
      expect(pr?.body).toContain(`Wrote ${id}.txt in round 2.`)
      expect(pr?.body).not.toContain('round 1')
      // The body is written before the outcome is final, but still accounts for the worker's time.
      const took = prBodyDurationMs(pr?.body)
      expect(took).toBeGreaterThan(0)
      expect(took).toBeLessThanOrEqual((out.get(id)?.['duration-ms'] ?? 0) + 50)
      expect(pr?.body).toContain(
        `| ${out.get(id)?.turns ?? -1} | ${out.get(id)?.usage.input_tokens ?? -1} |`
      )
    }
    expect(
      stack.github.requests.filter(r => r.method === 'POST' && r.path.endsWith('/pulls'))
    ).toHaveLength(3)
    expect(
      stack.github.requests.filter(r => r.method === 'PATCH' && /\/pulls\/\d+$/.test(r.path))
    ).toHaveLength(3)
    expect(stack.github.invalid).toEqual([])
  })

  it('opens a new PR on the branch when its PR was closed by a person; the closed one stays closed', async () => {
    const closed = stack.github.state.pulls.find(p => p.pull.head === 'fleet/alpha')
    expect(closed).toBeDefined()
    if (!closed) return
    closed.state = 'closed'
    closed.closed_at = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z')

    const run = await stack.run({ inputs: { tasks: round(3, ['alpha']) } })
    expectOk(run)
    const r = byId(run).get('alpha')
    expect(r?.status).toBe('pr-opened')
    expect(r?.['pr-number']).not.toBe(closed.number)

    expect(closed.state).toBe('closed')
    expect(closed.title).toBe('alpha round 2')
    const onBranch = stack.github.state.pulls.filter(p => p.pull.head === 'fleet/alpha')
    expect(onBranch.map(p => [p.number, p.state])).toEqual([
      [closed.number, 'closed'],
      [r?.['pr-number'], 'open']
    ])
    expect(onBranch[1]?.title).toBe('alpha round 3')
    expect(await stack.git.readFile(NAME, 'fleet/alpha', 'alpha.txt')).toBe('alpha from round 3\n')
    expect(stack.github.state.pulls.filter(p => p.state === 'open')).toHaveLength(3)
  })

  it('lands nothing for a worker that changes nothing: no-changes, no branch, no PR, exit 0', async () => {
    const pullsBefore = stack.github.state.pulls.length
    const pushes = () =>
      stack.git.requests.filter(q => q.service === 'git-receive-pack' && q.method === 'POST').length
    const pushesBefore = pushes()
    const tasks = [{ id: 'quiet', prompt: scripted('quiet', [], 'Nothing needed changing.') }]
    const run = await stack.run({ inputs: { tasks: JSON.stringify(tasks) } })
    expectOk(run)
    expectContractResults(run, 1)
    expectSummary(run, ['quiet'])
    const r = byId(run).get('quiet')
    expect(r?.status).toBe('no-changes')
    expect(r?.['pr-number']).toBeNull()
    expect(r?.['pr-url']).toBeNull()
    expect(r?.error).toBeNull()
    expect(r?.turns).toBe(1)
    expect(Object.keys(await stack.git.branches(NAME))).not.toContain('fleet/quiet')
    expect(stack.github.state.pulls).toHaveLength(pullsBefore)
    expect(pushes()).toBe(pushesBefore)
    expect(run.outputs.succeeded).toBe('1')
    expect(JSON.parse(run.outputs['pull-requests'] ?? 'null')).toEqual([])
  })

  it("keeps the worker's own commits and commits the rest as the configured identity", async () => {
    const steps = [
      write('kept/first.txt', 'committed by the worker\n'),
      bash('git add -A && git commit -m "worker commit"'),
      write('kept/second.txt', 'left uncommitted\n')
    ]
    const tasks = [
      { id: 'committer', title: 'Keep my commits', prompt: scripted('committer', steps) }
    ]
    const run = await stack.run({
      inputs: { tasks: JSON.stringify(tasks), 'commit-author': 'Fleet Bot <fleet-bot@example.com>' }
    })
    expectOk(run)
    expect(byId(run).get('committer')?.status).toBe('pr-opened')

    const log = await stack.git.log(NAME, 'fleet/committer')
    expect(log.map(c => c.subject)).toEqual([
      'fleet(committer): Keep my commits',
      'worker commit',
      'Initial commit'
    ])
    expect(log[0]?.author).toBe('Fleet Bot <fleet-bot@example.com>')
    // The worker's cage has no git identity of its own: it commits as the configured one too.
    expect(log[1]?.author).toBe('Fleet Bot <fleet-bot@example.com>')
    expect(log[2]?.sha).toBe(mainSha)
    const [tip, worker] = [log[0]?.sha ?? '', log[1]?.sha ?? '']
    expect(await stack.git.readFile(NAME, worker, 'kept/first.txt')).toBe(
      'committed by the worker\n'
    )
    expect(await stack.git.readFile(NAME, worker, 'kept/second.txt')).toBeUndefined()
    expect(await stack.git.readFile(NAME, tip, 'kept/second.txt')).toBe('left uncommitted\n')
  })

  it('puts the labels, reviewers and assignees inputs on the PR, and opens drafts with draft: true', async () => {
    const tasks = [
      { id: 'dressed', prompt: scripted('dressed', [write('dressed.txt', 'dressed\n')]) }
    ]
    const run = await stack.run({
      inputs: {
        tasks: JSON.stringify(tasks),
        labels: 'automated, fleet-made',
        reviewers: 'rev-one',
        assignees: 'dev-two',
        draft: 'true'
      }
    })
    expectOk(run)
    const r = byId(run).get('dressed')
    expect(r?.status).toBe('pr-opened')
    const pr = stack.github.state.pullByNumber(r?.['pr-number'] ?? -1)
    expect(pr?.pull.head).toBe('fleet/dressed')
    expect(pr?.pull.draft).toBe(true)
    expect([...(pr?.labels ?? [])].sort()).toEqual(['automated', 'fleet-made'])
    expect(pr?.pull.requested_reviewers).toEqual(['rev-one'])
    expect(pr?.assignees).toEqual(['dev-two'])
    // Earlier PRs, opened without those inputs, are plain.
    const plain = stack.github.state.pulls.find(p => p.pull.head === 'fleet/beta')
    expect(plain?.pull.draft).toBe(false)
    expect(plain?.labels).toEqual([])
    expect(stack.github.invalid).toEqual([])
  })
})
