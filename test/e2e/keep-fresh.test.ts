// Issue 25, through dist/: when the base moves, the action brings every open fleet PR up to date.
// Five fleet PRs are cut from an older main; then main moves (a person's merge) and a person also
// pushes to one fleet branch. A `push` to main then: the clean ones rebased and verified with no
// model request, the person's branch merged without rewriting their commit, one conflict resolved
// by a worker turn (the scripted model writes the resolution), one left untouched with a comment
// and the label. A second push changes nothing. Every run ends in the stack's leak scan.
import { writeFile } from 'node:fs/promises'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { expectOk, useStack } from '../support/scenario.js'
import type { Script } from '../../demo/model-server.js'
import { byId, OWNER, REPO } from '../../demo/stack.js'
import { push } from '../support/events.js'
import { expectContractResults, git, PERSON, useClone } from './landing-support.js'
import { pullsFor, writesNamedFile } from './triggers-support.js'

const FULL = `${OWNER}/${REPO}`
const FILES = {
  'README.md': '# widgets\n',
  'package.json': '{"name":"widgets","private":true}\n',
  'shared.txt': 'colour = green\n',
  'other.txt': 'size = small\n'
}
// High prices, so a merge turn costs a visible amount; the ledger records keep-fresh's turns.
const PRICED = { 'price-input': '1000', 'price-output': '1000', 'spend-ledger': 'fleet-ledger' }
const IDS = ['clean-a', 'clean-b', 'resolve', 'stuck', 'person']
const TASKS = [
  { id: 'clean-a', prompt: 'Write a.txt' },
  { id: 'clean-b', prompt: 'Write b.txt' },
  { id: 'resolve', prompt: 'Write shared.txt' },
  { id: 'stuck', prompt: 'Write other.txt' },
  { id: 'person', prompt: 'Write p.txt' }
]

/**
 * The model: a task "Write <file>" writes that file; a merge turn on fleet/resolve writes the
 * resolution of shared.txt, and one on fleet/stuck gives up with the markers left in place.
 */
function model(prompt: string): Script {
  if (prompt.includes('<conflicting-files>')) {
    if (prompt.includes('fleet/resolve'))
      return {
        key: 'merge-resolve',
        steps: [
          { tool: 'Bash', input: { command: 'cat shared.txt' } },
          { tool: 'Write', input: { file_path: 'shared.txt', content: 'colour = blue-green\n' } },
          { text: 'shared.txt: kept both colours.' }
        ]
      }
    return { key: 'merge-stuck', steps: [{ text: 'I cannot tell which size is right.' }] }
  }
  return writesNamedFile(prompt)
}

describe('keeping fleet PRs up to date when the base moves', () => {
  const stack = useStack({ files: FILES, model: { defaultScript: model } })
  const clone = useClone(stack, 'fleet-person-')
  const bare = () => stack.git.repoPath(FULL)
  const heads = async () => stack.git.branches(FULL)
  type Entry = { task: string; status: string; trigger: string; pr?: number; cost: number }
  const ledger = async () =>
    ((await stack.git.readFile(FULL, 'fleet-ledger', 'ledger.jsonl')) ?? '')
      .split('\n')
      .filter(Boolean)
      .map(l => JSON.parse(l) as Entry)
  const parents = async (sha: string) =>
    (await git(['rev-list', '--parents', '-n', '1', sha], bare())).trim().split(' ').slice(1)

  /** A person's commit pushed onto `branch` of the remote. */
  async function pushAsPerson(branch: string, files: Record<string, string>, subject: string) {
    await git(['fetch', '--quiet', 'origin', `+refs/heads/*:refs/remotes/origin/*`], clone)
    await git(['checkout', '--quiet', '-B', 'work', `origin/${branch}`], clone)
    for (const [file, content] of Object.entries(files))
      await writeFile(path.join(clone, file), content)
    await git(['add', '--all'], clone)
    await git([...PERSON, 'commit', '--quiet', '-m', subject], clone)
    await git(['push', '--quiet', 'origin', `HEAD:refs/heads/${branch}`], clone)
    return (await git(['rev-parse', 'HEAD'], clone)).trim()
  }

  it('brings each fleet PR up to date: clean ones without a model, a conflict by one worker turn, one left with a comment', async () => {
    const first = await stack.run({
      inputs: { tasks: JSON.stringify(TASKS), verify: 'true' },
      timeoutMs: 240_000
    })
    expectOk(first)
    for (const id of IDS) expect(byId(first).get(id)?.status, id).toBe('pr-opened')
    const cut = await heads()

    const theirs = await pushAsPerson('fleet/person', { 'human.txt': 'by hand\n' }, 'A fix by hand')
    const main = await pushAsPerson(
      'main',
      {
        'shared.txt': 'colour = blue\n',
        'other.txt': 'size = large\n',
        'moved.txt': 'main moved\n'
      },
      'Merge a person PR into main'
    )
    const before = stack.model.requests.length
    const event = push({ owner: OWNER, repo: REPO, ref: 'refs/heads/main', after: main })

    const run = await stack.run({
      eventName: 'push',
      payload: event,
      inputs: { verify: 'cat moved.txt', ...PRICED },
      timeoutMs: 240_000
    })

    expectOk(run)
    expectContractResults(run, 5)
    const r = byId(run)
    expect(Object.fromEntries(IDS.map(id => [id, r.get(id)?.status]))).toEqual({
      'clean-a': 'pr-updated',
      'clean-b': 'pr-updated',
      resolve: 'pr-updated',
      stuck: 'conflict',
      person: 'pr-updated'
    })
    // Only the two merge turns asked the model: the clean ones and the person's branch none.
    const asked = new Set(stack.model.requests.slice(before).map(q => q.key))
    expect([...asked].sort()).toEqual(['merge-resolve', 'merge-stuck'])
    const now = await heads()
    expect(now.main).toBe(main)

    // Clean, only the action's commit on it: rebased onto main, one commit, the action its author.
    for (const id of ['clean-a', 'clean-b']) {
      const head = now[`fleet/${id}`] ?? ''
      expect(await parents(head), id).toEqual([main])
      expect((await stack.git.log(FULL, `fleet/${id}`, 1))[0]?.author).not.toContain('Pat Person')
      const file = id === 'clean-a' ? 'a.txt' : 'b.txt'
      expect(await stack.git.readFile(FULL, `fleet/${id}`, file)).toBe(`Write ${file}\n`)
    }

    // A person pushed to it: a merge commit on top, their commit kept as it was.
    const personHead = now['fleet/person'] ?? ''
    expect(await parents(personHead)).toEqual([theirs, main])
    expect(await stack.git.readFile(FULL, 'fleet/person', 'human.txt')).toBe('by hand\n')

    // The conflict the worker resolved: its file as the worker wrote it, merged with main.
    const resolved = now['fleet/resolve'] ?? ''
    expect(await parents(resolved)).toEqual([cut['fleet/resolve'], main])
    expect(await stack.git.readFile(FULL, 'fleet/resolve', 'shared.txt')).toBe(
      'colour = blue-green\n'
    )
    const seen = stack.model.requestsFor('merge-resolve').find(q => q.step === 1)
    expect(seen?.toolResults.join('\n')).toContain('<<<<<<<')
    const [resolvePr] = pullsFor(stack, 'fleet/resolve')
    expect(resolvePr?.body).toContain('fix-ups=1')
    expect(resolvePr?.body).toContain('### Verify: passed')
    expect(resolvePr?.body).toContain('main moved')

    // The one it could not resolve: untouched, one comment naming the file, the label.
    expect(now['fleet/stuck']).toBe(cut['fleet/stuck'])
    const [stuckPr] = pullsFor(stack, 'fleet/stuck')
    if (!stuckPr) throw new Error('no fleet/stuck PR')
    const said = stack.github.state.comments.filter(
      c => c.issue_number === stuckPr.number && c.body.includes('<!-- fleet-worker:conflict')
    )
    expect(said).toHaveLength(1)
    expect(said[0]?.body).toContain('other.txt')
    expect(stuckPr.labels).toContain('fleet:conflict')
    expect(r.get('stuck')?.error).toContain('other.txt')

    // Verify ran again on the updated tree (moved.txt exists only on the new main).
    for (const id of ['clean-a', 'person']) {
      const [pr] = pullsFor(stack, `fleet/${id}`)
      expect(pr?.body, id).toContain('### Up to date with main')
      expect(pr?.body, id).toContain('main moved')
      expect(pr?.body, id).toMatch(/<!-- fleet-worker:task=[a-z-]+ -->$/)
    }
    expect(run.summary).toContain('Merge order on `main`')
    expect(stack.github.invalid).toEqual([])

    // The two merge turns spent tokens: each recorded in the ledger against its PR, by the push
    // (in the order their turns ended, which the two PRs' refreshes do not fix: sorted by task).
    const entries = await ledger()
    const byTask = [...entries].sort((a, b) => a.task.localeCompare(b.task))
    expect(byTask.map(e => [e.task, e.status, e.trigger, e.pr])).toEqual([
      ['resolve', 'pr-updated', 'push', resolvePr?.number],
      ['stuck', 'conflict', 'push', stuckPr.number]
    ])
    for (const e of entries)
      expect(e.cost, e.task).toBeCloseTo(r.get(e.task)?.['cost-usd'] ?? NaN, 5)
    expect(entries.every(e => e.cost > 0)).toBe(true)

    // The same push again: nothing new, so nothing changes.
    const comments = stack.github.state.comments.length
    const requests = stack.model.requests.length
    const again = await stack.run({
      eventName: 'push',
      payload: event,
      inputs: { verify: 'cat moved.txt', ...PRICED },
      timeoutMs: 240_000
    })
    expectOk(again)
    const a = byId(again)
    expect(Object.fromEntries(IDS.map(id => [id, a.get(id)?.status]))).toEqual({
      'clean-a': 'up-to-date',
      'clean-b': 'up-to-date',
      resolve: 'up-to-date',
      stuck: 'conflict',
      person: 'up-to-date'
    })
    expect(await heads()).toEqual(now)
    expect(stack.model.requests.length).toBe(requests)
    expect(stack.github.state.comments.length).toBe(comments)
    expect(await ledger()).toEqual(entries)
  }, 600_000)
})

describe('a push to the base with no fleet PR open', () => {
  const stack = useStack()

  it('costs one API listing and no clone', async () => {
    // The floor first (a run that does nothing: an event the action ignores), on the same cold start.
    const floor = await stack.run({ eventName: 'release', payload: {} })
    expect(floor.summary).toContain('Nothing to do')
    const api = stack.github.requests.length
    const git = stack.git.requests.length
    const run = await stack.run({
      eventName: 'push',
      payload: push({ owner: OWNER, repo: REPO, ref: 'refs/heads/main' })
    })
    expectOk(run)
    expect(JSON.parse(run.outputs.results ?? '')).toEqual([])
    const calls = stack.github.requests.slice(api).map(q => `${q.method} ${q.path}`)
    expect(calls).toEqual([`GET /repos/${FULL}/pulls`])
    expect(stack.git.requests.length).toBe(git)
    expect(stack.model.requests).toEqual([])
    expect(run.summary).toContain('no open fleet PR targets main')
    // Measured, not asserted (the machine is shared): docs/performance.md records it, beside the
    // floor.
    console.log(
      `idle push: the action's step took ${Math.round(run.durationMs)} ms; an ignored event ${Math.round(floor.durationMs)} ms`
    )
  })
})

describe('a fleet branch a person pushes to while the action brings it up to date', () => {
  const stack = useStack({ files: FILES, model: { defaultScript: model } })
  const clone = useClone(stack, 'fleet-racer-')

  it('is left as the person left it, and the run says so', async () => {
    const first = await stack.run({
      inputs: { tasks: JSON.stringify([{ id: 'raced', prompt: 'Write r.txt' }]) },
      timeoutMs: 240_000
    })
    expect(byId(first).get('raced')?.status, first.stdout + first.stderr).toBe('pr-opened')
    await git([...PERSON, 'commit', '--quiet', '--allow-empty', '-m', 'main moves'], clone)
    await git(['push', '--quiet', 'origin', 'HEAD:refs/heads/main'], clone)
    // The person's push lands while the action works: from verify itself (isolation: process
    // reaches the person's clone), after the action fetched the branch and before it pushes.
    const racer = [
      `cd '${clone}'`,
      'git fetch -q origin',
      'git checkout -q -B racer origin/fleet/raced',
      "git -c 'user.name=Pat Person' -c user.email=pat@example.com commit -q --allow-empty -m 'pushed meanwhile'",
      'git push -q origin HEAD:refs/heads/fleet/raced',
      'git rev-parse HEAD'
    ].join(' && ')
    const [pr] = pullsFor(stack, 'fleet/raced')
    const bodyBefore = pr?.body
    const headBefore = (await stack.git.branches(FULL))['fleet/raced']

    // dry-run: the PR is listed and nothing is touched.
    const dry = await stack.run({
      eventName: 'push',
      payload: push({ owner: OWNER, repo: REPO, ref: 'refs/heads/main' }),
      inputs: { 'dry-run': 'true' }
    })
    expectOk(dry)
    expect(byId(dry).get('raced')?.status).toBe('not-started')
    expect((await stack.git.branches(FULL))['fleet/raced']).toBe(headBefore)

    const run = await stack.run({
      eventName: 'push',
      payload: push({ owner: OWNER, repo: REPO, ref: 'refs/heads/main' }),
      inputs: { verify: racer, isolation: 'process' },
      timeoutMs: 240_000
    })

    expectOk(run)
    const r = byId(run).get('raced')
    expect(r?.status).toBe('no-changes')
    expect(r?.error).toContain('moved while the action worked on it')
    const theirs = (await git(['rev-parse', 'racer'], clone)).trim()
    expect((await stack.git.branches(FULL))['fleet/raced']).toBe(theirs)
    expect(pullsFor(stack, 'fleet/raced')[0]?.body).toBe(bodyBefore)
    // The action's own merge is not thrown away: it says where it is kept.
    expect(r?.error).toMatch(/kept in \S+\.bundle/)
  }, 600_000)
})
