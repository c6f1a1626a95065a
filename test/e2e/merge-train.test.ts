// Issue 36, through dist/: the landing train. Seven fleet PRs are cut from an older main; main then
// moves (a person's push) and a person opens a PR of their own. Writers approve some. mode: merge
// lands the approved ones one at a time — each brought up to date with main as the previous merge
// left it, verified again on that tree, pushed with a lease and merged with the head pinned — and
// leaves the rest: no review, changes requested, approved by a reader only (waiting, each with its
// reason), one whose verify fails once up to date (blocked, labelled, one comment), the person's
// PR untouched. A second run changes nothing. Then a required check not yet reported on a new
// head: the PR waits, named with the check, auto-merge on, and GitHub lands it when the check
// passes. Then `/fleet merge` from a reader (refused) and from a writer (lands that PR).
import { writeFile } from 'node:fs/promises'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { expectOk, useStack } from '../support/scenario.js'
import { drainMergeQueue } from '../../demo/github-graphql.js'
import { reportCheck } from '../../demo/github-merge.js'
import type { Script } from '../../demo/model-server.js'
import { byId, OWNER, REPO } from '../../demo/stack.js'
import { issueComment } from '../support/events.js'
import { git, PERSON, useClone } from './landing-support.js'
import { pullsFor, writesNamedFile } from './triggers-support.js'

const FULL = `${OWNER}/${REPO}`
const IDS = ['land-a', 'land-b', 'land-c', 'breaks', 'noreview', 'changes', 'reader']
const TASKS = IDS.map(id => ({ id, prompt: `Write ${id}.txt` }))
// Passes on each PR as it was cut; fails on 'breaks' once main's moved.txt is in its tree.
const VERIFY = '! { test -e moved.txt && test -e breaks.txt; }'

function model(prompt: string): Script {
  // A conflict's worker turn (keep-fresh's, which the train reuses): it writes the resolution.
  if (prompt.includes('<conflicting-files>'))
    return {
      key: 'merge-clash',
      steps: [
        { tool: 'Write', input: { file_path: 'clash.txt', content: 'both sides\n' } },
        { text: 'clash.txt: kept both sides.' }
      ]
    }
  return writesNamedFile(prompt)
}

describe('the landing train', () => {
  const stack = useStack({
    model: { defaultScript: model },
    pullsFromGit: true,
    github: { collaborators: { wren: 'write', mo: 'maintain', rae: 'read' } }
  })
  const clone = useClone(stack, 'fleet-train-person-')
  const heads = async () => stack.git.branches(FULL)
  const prOf = (id: string) => {
    const [pr] = pullsFor(stack, `fleet/${id}`)
    if (!pr) throw new Error(`no PR for ${id}`)
    return pr
  }
  const trainComments = (n: number) =>
    stack.github.state.comments.filter(
      c => c.issue_number === n && c.body.includes('<!-- fleet-worker:train')
    )

  async function pushAsPerson(branch: string, from: string, files: Record<string, string>) {
    await git(['fetch', '--quiet', 'origin', '+refs/heads/*:refs/remotes/origin/*'], clone)
    await git(['checkout', '--quiet', '-B', 'work', `origin/${from}`], clone)
    for (const [file, content] of Object.entries(files))
      await writeFile(path.join(clone, file), content)
    await git(['add', '--all'], clone)
    await git([...PERSON, 'commit', '--quiet', '-m', `By hand: ${Object.keys(files)[0]}`], clone)
    await git(['push', '--quiet', 'origin', `HEAD:refs/heads/${branch}`], clone)
    return (await git(['rev-parse', 'HEAD'], clone)).trim()
  }

  const train = (inputs: Record<string, string> = {}) =>
    stack.run({ inputs: { mode: 'merge', verify: VERIFY, ...inputs }, timeoutMs: 300_000 })

  it('lands the approved PRs one by one on a moving base, and leaves the rest with reasons', async () => {
    const first = await stack.run({
      inputs: { tasks: JSON.stringify(TASKS), verify: VERIFY },
      timeoutMs: 300_000
    })
    expectOk(first)
    for (const id of IDS) expect(byId(first).get(id)?.status, id).toBe('pr-opened')

    const moved = await pushAsPerson('main', 'main', { 'moved.txt': 'main moved\n' })
    await pushAsPerson('feature/by-hand', 'main', { 'hand.txt': 'mine\n' })
    const mine = stack.github.addPull({ head: 'feature/by-hand', user: 'wren', title: 'By hand' })
    const { state } = stack.github
    for (const id of ['land-a', 'land-b', 'land-c', 'breaks', 'changes'])
      state.addReview(prOf(id).number, 'wren', 'APPROVED')
    state.addReview(prOf('changes').number, 'mo', 'CHANGES_REQUESTED')
    state.addReview(prOf('reader').number, 'rae', 'APPROVED')
    state.addReview(mine.number, 'mo', 'APPROVED')
    const cut = await heads()

    const run = await train()

    expectOk(run)
    const r = byId(run)
    expect(Object.fromEntries(IDS.map(id => [id, r.get(id)?.status]))).toEqual({
      'land-a': 'merged',
      'land-b': 'merged',
      'land-c': 'merged',
      breaks: 'blocked',
      noreview: 'waiting',
      changes: 'waiting',
      reader: 'waiting'
    })
    expect(r.get('noreview')?.error).toContain('no approval yet from a person with write access')
    expect(r.get('changes')?.error).toContain('changes requested by mo')
    expect(r.get('reader')?.error).toContain('approved only by rae, without write access')
    expect(r.get('breaks')?.error).toContain('exited with 1')

    // main moved under the train: each PR landed on the main the previous merge left, and each
    // squash commit's tree holds everything before it (nothing pushed to main but by GitHub).
    // None of the three shares a file: the train takes them oldest first (PR number order).
    const landedIds = ['land-a', 'land-b', 'land-c'].sort((x, y) => prOf(x).number - prOf(y).number)
    const log = await stack.git.log(FULL, 'main', 4)
    expect(log.map(c => c.subject)).toEqual([
      ...[...landedIds].reverse().map(id => `Write ${id}.txt (#${prOf(id).number})`),
      'By hand: moved.txt'
    ])
    expect(log[3]?.sha).toBe(moved)
    for (const id of landedIds)
      expect(await stack.git.readFile(FULL, 'main', `${id}.txt`), id).toBe(`Write ${id}.txt\n`)
    for (const id of landedIds) expect(prOf(id).state).toBe('closed')
    // Each landed head was brought up to date first: the second's branch head has, for parent,
    // main as the first merge left it (the squash commit GitHub made).
    const now = await heads()
    const second = `fleet/${landedIds[1]}`
    expect(now[second]).not.toBe(cut[second])
    const parent = (await git(['rev-parse', `${now[second]}^`], stack.git.repoPath(FULL))).trim()
    expect(parent).toBe(log[2]?.sha)

    // The blocked one: its branch as it was, one comment with the label; the person's PR untouched.
    const breaks = prOf('breaks')
    expect(now['fleet/breaks']).toBe(cut['fleet/breaks'])
    expect(breaks.labels).toContain('fleet:blocked')
    expect(trainComments(breaks.number)).toHaveLength(1)
    expect(state.pullByNumber(mine.number)?.state).toBe('open')
    expect(now['feature/by-hand']).toBe(cut['feature/by-hand'])
    for (const id of ['noreview', 'changes', 'reader'])
      expect(now[`fleet/${id}`], id).toBe(cut[`fleet/${id}`])

    expect(run.summary).toContain('Landing train on `main`')
    expect(run.summary).toMatch(/3 of 7 fleet PRs landed \(squash\)/)
    const merges = stack.github.requests.filter(
      q => q.method === 'PUT' && q.path.endsWith('/merge')
    )
    expect(merges).toHaveLength(3)
    for (const m of merges) expect((m.body as { sha?: string }).sha).toMatch(/^[0-9a-f]{40}$/)
    expect(stack.github.invalid).toEqual([])

    // A second run: nothing merged twice, no comment repeated, no branch moved.
    const comments = state.comments.length
    const again = await train()
    expectOk(again)
    const a = byId(again)
    expect(Object.fromEntries(IDS.map(id => [id, a.get(id)?.status ?? 'absent']))).toEqual({
      'land-a': 'absent',
      'land-b': 'absent',
      'land-c': 'absent',
      breaks: 'blocked',
      noreview: 'waiting',
      changes: 'waiting',
      reader: 'waiting'
    })
    expect(await heads()).toEqual(now)
    expect(state.comments.length).toBe(comments)
  }, 900_000)

  it('waits on a required check not yet reported on the new head, naming it; GitHub lands it once it passes', async () => {
    const { state } = stack.github
    state.rules = [{ type: 'required_status_checks', checks: ['ci'] }]
    state.settings.allow_auto_merge = true
    const pr = prOf('noreview')
    state.addReview(pr.number, 'wren', 'APPROVED')

    const run = await train()
    expectOk(run)
    const o = byId(run).get('noreview')
    expect(o?.status).toBe('waiting')
    expect(o?.error).toContain('Required status check "ci" is expected.')
    expect(o?.error).toMatch(/Required checks not passed on [0-9a-f]{7}: ci\./)
    expect(o?.error).toContain('Auto-merge is on')
    expect(trainComments(pr.number)).toHaveLength(1)
    // Brought up to date and pushed: the approval still counts on the new head (the action's own
    // update), so the next run needs no new review.
    const head = (await heads())['fleet/noreview'] ?? ''
    expect(await stack.git.readFile(FULL, 'fleet/noreview', 'land-c.txt')).toBe(
      'Write land-c.txt\n'
    )
    const comments = state.comments.length
    const again = await train()
    // Still approved (the record of the action's own update carries wren's review to the new head):
    // it waits on GitHub's check, not on a review.
    expect(byId(again).get('noreview')?.status).toBe('waiting')
    expect(byId(again).get('noreview')?.error).toContain('Required status check "ci" is expected.')
    expect((await heads())['fleet/noreview']).toBe(head)
    expect(state.comments.length).toBe(comments)

    // CI reports on the head: GitHub merges it (auto-merge).
    reportCheck(state, head, 'ci')
    expect(state.pullByNumber(pr.number)?.pull.merged_at).not.toBeNull()
    expect(await stack.git.readFile(FULL, 'main', 'noreview.txt')).toBe('Write noreview.txt\n')
    state.rules = []
    expect(stack.github.invalid).toEqual([])
  }, 900_000)

  it('/fleet merge: refused from a reader, lands the PR from a writer', async () => {
    const { state } = stack.github
    const pr = prOf('changes')
    state.addReview(pr.number, 'mo', 'APPROVED')
    const command = (commenter: string) => {
      const comment = stack.github.addComment(pr.number, '/fleet merge', commenter)
      return issueComment({
        owner: OWNER,
        repo: REPO,
        issueNumber: pr.number,
        issueTitle: pr.title,
        issueBody: pr.body ?? '',
        commentBody: '/fleet merge',
        commenter,
        commentId: comment.id,
        onPullRequest: true
      })
    }
    const byReader = await stack.run({
      eventName: 'issue_comment',
      payload: command('rae'),
      inputs: { verify: VERIFY }
    })
    expect(byReader.exitCode).not.toBe(0)
    const [refusal] = JSON.parse(byReader.outputs.results ?? '[]') as Array<{ status: string }>
    expect(refusal?.status).toBe('refused')
    expect(state.pullByNumber(pr.number)?.state).toBe('open')
    expect(state.comments.at(-1)?.body).toContain('did not start the landing train')

    const byWriter = await stack.run({
      eventName: 'issue_comment',
      payload: command('wren'),
      inputs: { verify: VERIFY },
      timeoutMs: 300_000
    })
    expectOk(byWriter)
    const results = JSON.parse(byWriter.outputs.results ?? '[]') as Array<{
      id: string
      status: string
    }>
    expect(results.map(x => [x.id, x.status])).toEqual([['changes', 'merged']])
    expect(await stack.git.readFile(FULL, 'main', 'changes.txt')).toBe('Write changes.txt\n')
    expect(stack.github.invalid).toEqual([])
  }, 900_000)

  it('marks a passing draft ready; reads a 409 again and goes on; enqueues where main has a merge queue', async () => {
    const { state } = stack.github
    const pr = prOf('reader')
    const pull = state.pullByNumber(pr.number)
    if (!pull) throw new Error('no reader PR')
    pull.pull.draft = true
    const ready = await train({ 'mark-ready': 'true' })
    expectOk(ready)
    expect(byId(ready).get('reader')?.error).toContain('marked ready for review')
    expect(pull.pull.draft).toBe(false)
    expect(pull.state).toBe('open')

    // Approved now; the merge races a push (GitHub answers 409): read again, it waits, the train goes on.
    state.addReview(pr.number, 'wren', 'APPROVED')
    stack.github.fail({
      method: 'PUT',
      path: /\/pulls\/\d+\/merge$/,
      status: 409,
      body: {
        message: 'Head branch was modified. Review and try the merge again.',
        documentation_url: 'https://docs.github.com/rest/pulls/pulls#merge-a-pull-request'
      }
    })
    const raced = await train()
    expectOk(raced)
    const r = byId(raced)
    expect(r.get('reader')?.status).toBe('waiting')
    expect(r.get('reader')?.error).toContain('Head branch was modified')
    expect(r.get('reader')?.error).toContain('the next train takes it again')
    expect(r.get('breaks')?.status).toBe('blocked')
    expect(pull.state).toBe('open')

    // main merges through a merge queue: the PR is enqueued, not merged; the queue lands it.
    state.rules = [{ type: 'merge_queue' }]
    const queued = await train()
    expectOk(queued)
    expect(byId(queued).get('reader')?.error).toContain("added to main's merge queue")
    expect(pull.pull.queued).toBe(true)
    expect(pull.state).toBe('open')
    expect(drainMergeQueue(state)).toEqual([pr.number])
    expect(await stack.git.readFile(FULL, 'main', 'reader.txt')).toBe('Write reader.txt\n')
    state.rules = []
    expect(stack.github.invalid).toEqual([])
  }, 900_000)

  it("a conflict's worker turn is new content: the approval no longer counts until a writer approves again", async () => {
    const { state } = stack.github
    const opened = await stack.run({
      inputs: {
        tasks: JSON.stringify([{ id: 'clash', prompt: 'Write clash.txt' }]),
        verify: VERIFY
      },
      timeoutMs: 300_000
    })
    expect(byId(opened).get('clash')?.status, opened.stdout + opened.stderr).toBe('pr-opened')
    const pr = prOf('clash')
    const approved = state.addReview(pr.number, 'wren', 'APPROVED')
    await pushAsPerson('main', 'main', { 'clash.txt': 'theirs\n' })

    // Priced and with a ledger: the turn's spend is recorded against the PR, by the train.
    const priced = { 'price-input': '1000', 'price-output': '1000', 'spend-ledger': 'fleet-ledger' }
    const run = await train(priced)
    expectOk(run)
    const o = byId(run).get('clash')
    expect(o?.status).toBe('waiting')
    expect(o?.error).toContain('a worker resolved it: new content')
    const ledger = ((await stack.git.readFile(FULL, 'fleet-ledger', 'ledger.jsonl')) ?? '')
      .split('\n')
      .filter(Boolean)
      .map(l => JSON.parse(l) as { task: string; status: string; pr?: number; cost: number })
    expect(ledger.map(e => [e.task, e.status, e.pr])).toEqual([['clash', 'waiting', pr.number]])
    expect(ledger[0]?.cost).toBeCloseTo(o?.['cost-usd'] ?? NaN, 5)
    expect(ledger[0]?.cost).toBeGreaterThan(0)
    expect(await stack.git.readFile(FULL, 'fleet/clash', 'clash.txt')).toBe('both sides\n')
    expect(state.pullByNumber(pr.number)?.state).toBe('open')

    const again = await train()
    const a = byId(again).get('clash')
    expect(a?.status).toBe('waiting')
    expect(a?.error).toContain(`approved by wren at ${approved.commit_id.slice(0, 7)}`)
    expect(a?.error).toContain("before a worker's turn changed the PR")

    state.addReview(pr.number, 'wren', 'APPROVED')
    const third = await train()
    expect(byId(third).get('clash')?.status, third.stdout + third.stderr).toBe('merged')
    expect(await stack.git.readFile(FULL, 'main', 'clash.txt')).toBe('both sides\n')
    expect(stack.github.invalid).toEqual([])
  }, 900_000)
})
