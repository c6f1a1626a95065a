// Issue 36, through dist/: what the landing train says of each PR it lands, and `/fleet merge` on an
// issue. A fleet PR's first run and a follow-up turn on it are recorded in the spend ledger; the
// train lands it and its summary row and results entry show their sum, while another landed PR
// shows its own single run. Then `/fleet merge` commented on an issue lands that issue's fleet PR
// and not another issue's, and writes the train's section into the issue's live comment; with no
// ledger kept, the cost is unknown (—) and the summary says why.
import { describe, expect, it } from 'vitest'
import { expectOk, useStack } from '../support/scenario.js'
import { script } from '../../demo/model-server.js'
import { byId, OWNER, REPO } from '../../demo/stack.js'
import { issueComment } from '../support/events.js'
import { fleetComments, pullsFor } from './triggers-support.js'

const FULL = `${OWNER}/${REPO}`
const LEDGER = 'fleet-ledger'
// High prices, so each run costs a visible amount (as test/e2e/spend.test.ts prices them).
const PRICED = { 'price-input': '1000', 'price-output': '1000', 'spend-ledger': LEDGER }

/** Work that writes one file, the model's script carried in the text. */
const writes = (key: string, file: string) =>
  `Write ${file} ${script({
    key,
    steps: [
      { tool: 'Write', input: { file_path: file, content: `${key}\n` } },
      { text: `Wrote ${file}.` }
    ]
  })}`

interface Entry {
  task: string
  status: string
  cost: number
  trigger: string
  pr?: number
}

describe("the landing train's view of what it landed", () => {
  const stack = useStack({
    pullsFromGit: true,
    github: { collaborators: { wren: 'write', rae: 'read' } }
  })

  const prOf = (branch: string) => {
    const [pr] = pullsFor(stack, branch)
    if (!pr) throw new Error(`no PR for ${branch}`)
    return pr
  }
  const ledger = async (): Promise<Entry[]> =>
    ((await stack.git.readFile(FULL, LEDGER, 'ledger.jsonl')) ?? '')
      .split('\n')
      .filter(Boolean)
      .map(l => JSON.parse(l) as Entry)

  /** A comment by `who` on issue or PR `n`, as the run's event. */
  function comment(n: number, body: string, who: string, onPullRequest: boolean) {
    const issue = stack.github.state.issue(n)
    const made = stack.github.addComment(n, body, who)
    return issueComment({
      owner: OWNER,
      repo: REPO,
      issueNumber: n,
      issueTitle: issue?.title ?? '',
      issueBody: issue?.body ?? '',
      commentBody: body,
      commenter: who,
      commentId: made.id,
      onPullRequest
    })
  }

  it("shows each landed PR's cost: its run plus its follow-up, summed from the ledger", async () => {
    const first = await stack.run({
      inputs: {
        ...PRICED,
        tasks: JSON.stringify([
          { id: 'costed', prompt: writes('costed-first', 'costed.txt') },
          { id: 'plain', prompt: writes('plain-first', 'plain.txt') }
        ])
      }
    })
    expectOk(first)
    const opened = byId(first)
    expect(opened.get('costed')?.status).toBe('pr-opened')
    expect(opened.get('plain')?.status).toBe('pr-opened')
    const run1 = opened.get('costed')?.['cost-usd'] ?? 0
    const plainCost = opened.get('plain')?.['cost-usd'] ?? 0
    expect(run1).toBeGreaterThan(0)
    const costed = prOf('fleet/costed')
    const plain = prOf('fleet/plain')

    // A follow-up turn on the PR, recorded in the ledger with the PR's number.
    const follow = await stack.run({
      eventName: 'issue_comment',
      payload: comment(
        costed.number,
        `/fleet ${writes('costed-follow', 'more.txt')}`,
        'wren',
        true
      ),
      inputs: PRICED
    })
    expectOk(follow)
    expect(byId(follow).get('costed')?.status).toBe('pr-updated')
    const run2 = byId(follow).get('costed')?.['cost-usd'] ?? 0
    expect(run2).toBeGreaterThan(0)
    const entries = await ledger()
    expect(
      entries.filter(e => e.pr === costed.number).map(e => [e.task, e.status, e.trigger])
    ).toEqual([
      ['costed', 'pr-opened', 'dispatch'],
      ['costed', 'pr-updated', 'comment']
    ])

    // Approved after the follow-up (a worker's turn is new content): the train lands both.
    stack.github.state.addReview(costed.number, 'wren', 'APPROVED')
    stack.github.state.addReview(plain.number, 'wren', 'APPROVED')
    const train = await stack.run({
      inputs: { mode: 'merge', 'spend-ledger': LEDGER },
      timeoutMs: 300_000
    })
    expectOk(train)
    const landed = byId(train)
    expect(landed.get('costed')?.status).toBe('merged')
    expect(landed.get('plain')?.status).toBe('merged')
    const both = run1 + run2
    expect(landed.get('costed')?.['cost-usd']).toBeCloseTo(both, 5)
    expect(landed.get('plain')?.['cost-usd']).toBeCloseTo(plainCost, 5)
    // Not the same number: the follow-up is in one sum and not in the other.
    expect(Math.abs(both - plainCost)).toBeGreaterThan(0.01)

    const row = (n: number) =>
      train.summary.split('\n').find(l => l.includes(`[#${n}](`) && l.includes('| merged |'))
    expect(row(costed.number)).toContain(`| merged | $${both.toFixed(2)} |`)
    expect(row(plain.number)).toContain(`| merged | $${plainCost.toFixed(2)} |`)
    expect(train.summary).toContain(
      "A landed PR's cost is everything its runs cost, its first run and each follow-up turn, as the spend ledger (ledger.jsonl on branch fleet-ledger) records them."
    )
    // The train records nothing in the ledger: no run of a worker, no spend.
    expect(await ledger()).toHaveLength(entries.length)
    expect(stack.github.invalid).toEqual([])
  }, 900_000)

  it("/fleet merge on an issue lands that issue's fleet PR, not another's, and the live comment shows the train", async () => {
    const { state } = stack.github
    const one = stack.github.addIssue({ title: 'Add one.txt', body: '', user: 'wren' })
    const two = stack.github.addIssue({ title: 'Add two.txt', body: '', user: 'wren' })
    for (const [issue, file] of [
      [one.number, 'one.txt'],
      [two.number, 'two.txt']
    ] as const) {
      const made = await stack.run({
        eventName: 'issue_comment',
        payload: comment(issue, `/fleet ${writes(`issue-${file}`, file)}`, 'wren', false)
      })
      expectOk(made)
      expect(byId(made).get(`issue-${issue}`)?.status).toBe('pr-opened')
    }
    const prOne = prOf(`fleet/issue-${one.number}`)
    const prTwo = prOf(`fleet/issue-${two.number}`)
    state.addReview(prOne.number, 'wren', 'APPROVED')
    state.addReview(prTwo.number, 'wren', 'APPROVED')

    // A reader's command on the issue is refused; nothing lands.
    const byReader = await stack.run({
      eventName: 'issue_comment',
      payload: comment(one.number, '/fleet merge', 'rae', false)
    })
    expect(byReader.exitCode).not.toBe(0)
    expect(JSON.parse(byReader.outputs.results ?? '[]')).toMatchObject([{ status: 'refused' }])
    expect(state.pullByNumber(prOne.number)?.state).toBe('open')

    const run = await stack.run({
      eventName: 'issue_comment',
      payload: comment(one.number, '/fleet merge', 'wren', false),
      timeoutMs: 300_000
    })
    expectOk(run)
    const results = JSON.parse(run.outputs.results ?? '[]') as Array<{
      id: string
      status: string
      'pr-number': number
      'cost-usd': number | null
    }>
    expect(results.map(r => [r.id, r.status, r['pr-number']])).toEqual([
      [`issue-${one.number}`, 'merged', prOne.number]
    ])
    expect(await stack.git.readFile(FULL, 'main', 'one.txt')).toBe('issue-one.txt\n')
    expect(state.pullByNumber(prTwo.number)?.state).toBe('open')
    expect(await stack.git.readFile(FULL, 'main', 'two.txt')).toBeUndefined()

    // No ledger kept in this run: the cost is unknown, and the summary says why.
    expect(results[0]?.['cost-usd']).toBeNull()
    expect(run.summary).toMatch(
      new RegExp(`\\[#${prOne.number}\\]\\([^)]*\\).*\\| merged \\| — \\|`)
    )
    expect(run.summary).toContain('no spend ledger is kept')

    // The issue's one live comment carries the train's section; the other issue's does not.
    const [live] = fleetComments(stack, one.number)
    expect(fleetComments(stack, one.number)).toHaveLength(1)
    expect(live?.body).toContain('### Landing train on `main`')
    expect(live?.body).toContain(`| 1 | #${prOne.number} `)
    expect(live?.body).toMatch(new RegExp(`#${prOne.number} [^\\n]*\\| merged \\|`))
    expect(live?.body).not.toContain(`#${prTwo.number} `)
    const [other] = fleetComments(stack, two.number)
    expect(other?.body).not.toContain('Landing train')
    expect(stack.github.invalid).toEqual([])
  }, 900_000)
})
