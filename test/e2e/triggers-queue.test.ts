// Issue 5, through dist/: the off-peak `schedule` trigger works the issues labelled for the queue,
// oldest first, moves their labels, and a rerun duplicates no live comment and no PR.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { expectOk } from '../support/scenario.js'
import { schedule } from '../support/events.js'
import { script } from '../../demo/model-server.js'
import { byId, OWNER, REPO, results, type Stack, startStack } from '../../demo/stack.js'
import {
  COLLABORATORS,
  fleetComments,
  labelsOf,
  pullsFor,
  wordsToFile
} from './triggers-support.js'
import { signalAction, waitFor } from './faults-support.js'

const FULL = `${OWNER}/${REPO}`
const nightly = () => schedule({ owner: OWNER, repo: REPO, cron: '17 3 * * *' })

describe('the scheduled queue', () => {
  let stack: Stack
  // Numbers follow seeding order; creation dates do not, so "oldest first" is not "lowest first".
  const n = { oldest: 0, middle: 0, taken: 0, newest: 0, unlabelled: 0 }
  beforeAll(async () => {
    stack = await startStack({
      model: { defaultScript: wordsToFile },
      github: { collaborators: COLLABORATORS }
    })
    const seed = (title: string, created: string, labels: string[]) =>
      stack.github.addIssue({
        title,
        body: `${title}, please.`,
        labels,
        user: 'maria',
        created_at: created
      }).number
    n.newest = seed('Write notes/newest.md', '2025-03-01T09:00:00Z', ['fleet'])
    n.oldest = seed('Write notes/oldest.md', '2025-01-01T09:00:00Z', ['fleet', 'docs'])
    n.taken = seed('Write notes/taken.md', '2024-12-01T09:00:00Z', ['fleet', 'fleet:in-progress'])
    n.middle = seed('Write notes/middle.md', '2025-02-01T09:00:00Z', ['fleet'])
    n.unlabelled = seed('Write notes/unlabelled.md', '2024-11-01T09:00:00Z', ['docs'])
  })
  afterAll(async () => stack?.close())

  it('runs the three queued issues oldest first, moves their labels; a rerun of one updates its PR and comment', async () => {
    const first = await stack.run({ eventName: 'schedule', payload: nightly() })
    expectOk(first)
    const order = [n.oldest, n.middle, n.newest]
    expect(results(first).map(r => r.id)).toEqual(order.map(i => `issue-${i}`))
    for (const i of order) {
      const id = `issue-${i}`
      expect(byId(first).get(id)?.status).toBe('pr-opened')
      const file = stack.github.state.issue(i)?.title.replace('Write ', '') ?? ''
      expect(await stack.git.readFile(FULL, `fleet/${id}`, file)).toBe(`Write ${file}\n`)
      expect(labelsOf(stack, i)).not.toContain('fleet')
      expect(labelsOf(stack, i)).not.toContain('fleet:in-progress')
      expect(labelsOf(stack, i)).toContain('fleet:done')
      expect(fleetComments(stack, i)).toHaveLength(1)
      expect(pullsFor(stack, `fleet/${id}`)).toHaveLength(1)
    }
    expect(labelsOf(stack, n.oldest)).toEqual(['docs', 'fleet:done'])
    // The issue another run holds, and the one never queued, are left alone.
    expect(labelsOf(stack, n.taken)).toEqual(['fleet', 'fleet:in-progress'])
    expect(labelsOf(stack, n.unlabelled)).toEqual(['docs'])
    expect(fleetComments(stack, n.taken)).toEqual([])
    expect(pullsFor(stack, `fleet/issue-${n.taken}`)).toEqual([])

    // Someone queues the middle issue again.
    stack.github.state.issue(n.middle)?.labels.push('fleet')
    const commentsBefore = stack.github.state.comments.length
    const prBefore = pullsFor(stack, `fleet/issue-${n.middle}`)[0]
    const second = await stack.run({ eventName: 'schedule', payload: nightly() })
    expectOk(second)
    expect(results(second).map(r => r.id)).toEqual([`issue-${n.middle}`])
    const again = byId(second).get(`issue-${n.middle}`)
    expect(again?.status).toBe('pr-updated')
    expect(again?.['pr-number']).toBe(prBefore?.number)
    expect(labelsOf(stack, n.middle)).toEqual(['fleet:done'])

    // No duplicate: still one live comment per issue (rewritten, not added), one PR per branch.
    expect(stack.github.state.comments.length).toBe(commentsBefore)
    for (const i of order) expect(fleetComments(stack, i)).toHaveLength(1)
    expect(fleetComments(stack, n.middle)[0]?.body).toContain(`pr-updated [#${prBefore?.number}]`)
    const heads = stack.github.state.pulls.map(p => p.pull.head)
    expect(heads.length).toBe(new Set(heads).size)
    expect(heads.sort()).toEqual(order.map(i => `fleet/issue-${i}`).sort())
    expect(stack.github.invalid).toEqual([])
  })

  it('max-tasks caps the batch: the oldest queued issues go first, the rest stay queued', async () => {
    for (const i of [n.newest, n.oldest]) stack.github.state.issue(i)?.labels.push('fleet')
    const run = await stack.run({
      eventName: 'schedule',
      payload: nightly(),
      inputs: { 'max-tasks': '1' }
    })
    expectOk(run)
    expect(results(run).map(r => r.id)).toEqual([`issue-${n.oldest}`])
    expect(byId(run).get(`issue-${n.oldest}`)?.status).toBe('pr-updated')
    expect(labelsOf(stack, n.oldest)).toEqual(['docs', 'fleet:done'])
    expect(labelsOf(stack, n.newest)).toEqual(['fleet', 'fleet:done'])
  })
})

describe('a cancelled scheduled run', () => {
  let stack: Stack
  afterAll(async () => stack?.close())

  it('puts the issue of a worker it stopped back in the queue', async () => {
    stack = await startStack({ github: { collaborators: COLLABORATORS } })
    // The model never answers, so the worker is surely running when the runner cancels.
    const hang = script({ key: 'never-answers', steps: [{ text: 'unreachable' }], hang: true })
    const issue = stack.github.addIssue({
      title: 'A long job',
      body: `Take your time. ${hang}`,
      labels: ['fleet'],
      user: 'maria'
    })

    const running = stack.run({ eventName: 'schedule', payload: nightly() })
    // The runner cancels once the worker is surely running: its request has reached the model.
    await waitFor(
      'the worker to ask the model',
      () => stack.model.requestsFor('never-answers').length > 0
    )
    await signalAction(stack.workspace, 'SIGTERM')
    const run = await running
    expect(results(run).map(r => r.id)).toEqual([`issue-${issue.number}`])
    // Queued again for the next night: the queue label is back, nothing marks it taken or failed.
    expect(labelsOf(stack, issue.number)).toEqual(['fleet'])
    expect(fleetComments(stack, issue.number)).toHaveLength(1)
  })
})
