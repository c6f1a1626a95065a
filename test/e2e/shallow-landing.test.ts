// Keep-fresh and the landing train behind a shallow checkout (issue #40 item 1), through dist/ with
// the real claude CLI and a real git remote over HTTP. The remote's main has 200 commits; every
// job's checkout is at depth 1, as actions/checkout leaves it. The fleet's clone stays shallow:
// it fetches the tips at depth 1, then deepens each PR's history and the base's only until they
// share a commit. Every pack the remote sent is counted from its header: a whole-history fetch
// (600 objects and more) fails these tests.
import { readdir, readFile, rm } from 'node:fs/promises'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { expectOk, writeScript } from '../support/scenario.js'
import { push } from '../support/events.js'
import { makeWorkspace } from '../../demo/git-remote.js'
import { byId, GITHUB_TOKEN, OWNER, REPO, type Stack, startStack } from '../../demo/stack.js'
import { script } from '../../demo/model-server.js'
import { git, history, mergeOld, objectsSent, pushToMain } from './shallow-support.js'

const FULL = `${OWNER}/${REPO}`
const IDS = ['one', 'two']

const task = (id: string) => ({
  id,
  prompt: `Add a file.\n${writeScript(id, `${id}.txt`, `${id}\n`, 'Done.')}`
})

/** Objects a whole fetch of main's history would be: every commit, tree and blob on the remote. */
const wholeHistory = (stack: Stack) =>
  Number(git(stack.git.repoPath(FULL), 'rev-list', '--objects', '--count', 'main'))

describe('behind a shallow checkout of 200 commits, keep-fresh, the train and the planner fetch only what the work needs', () => {
  let stack: Stack
  beforeEach(async () => {
    stack = await startStack({
      pullsFromGit: true,
      github: { collaborators: { wren: 'write' } }
    })
  })
  afterEach(async () => {
    await stack?.close()
  })

  /** The workspace as actions/checkout leaves it by default: main's tip at depth 1. */
  async function checkout(): Promise<void> {
    await rm(stack.workspace, { recursive: true, force: true })
    await makeWorkspace(stack.cloneUrl, GITHUB_TOKEN, { dir: stack.workspace, fetchDepth: 1 })
    expect(git(stack.workspace, 'rev-parse', '--is-shallow-repository')).toBe('true')
  }

  /**
   * Two fleet PRs cut from main's tip behind a shallow checkout, then main moved on by three
   * commits and checked out again at depth 1 (the next job's checkout). Returns main's new tip.
   */
  async function prsThenMainMoves(): Promise<{ cut: string; moved: string }> {
    const cut = history(stack, 199)
    await checkout()
    const first = await stack.run({ inputs: { tasks: JSON.stringify(IDS.map(task)) } })
    expectOk(first)
    for (const id of IDS) expect(byId(first).get(id)?.status, first.stdout).toBe('pr-opened')
    let moved = cut
    for (const f of ['a.txt', 'b.txt', 'c.txt']) moved = pushToMain(stack, f)
    await checkout()
    return { cut, moved }
  }

  /** What the run's clone fetched, and the log lines that say how far it deepened. */
  function expectBounded(run: Awaited<ReturnType<Stack['run']>>, from: number): number {
    const sent = objectsSent(stack, from)
    const whole = wholeHistory(stack)
    expect(whole).toBeGreaterThan(600)
    expect(sent, run.stdout).toBeLessThanOrEqual(100)
    expect(run.stdout).toMatch(/^fleet clone: borrowed .*and so is the clone/m)
    // Deepened by 8 commits where the tips shared no commit in the cut history, never whole.
    // One step for the first PR; the second PR's tip and the base the train's merge moved on are
    // joined to what that step brought, so nothing more is fetched.
    const deepened = run.stdout.match(/^shallow clone: .*$/gm) ?? []
    expect(deepened, run.stdout).toHaveLength(1)
    for (const line of deepened)
      expect(line).toMatch(
        /^shallow clone: fleet\/(one|two) and main share no commit in the cut history: deepening main and fleet\/(one|two) by 8 commits$/
      )
    return sent
  }

  it('keep-fresh: main moved under two open fleet PRs; both rebased onto it, at most 100 objects fetched', async () => {
    const { moved } = await prsThenMainMoves()
    const from = stack.git.requests.length
    const run = await stack.run({
      eventName: 'push',
      payload: push({ owner: OWNER, repo: REPO, ref: 'refs/heads/main', after: moved }),
      inputs: {}
    })
    expectOk(run)
    for (const id of IDS) expect(byId(run).get(id)?.status, run.stdout).toBe('pr-updated')
    const sent = expectBounded(run, from)
    const bare = stack.git.repoPath(FULL)
    for (const id of IDS) {
      // Rebased: one commit on main's new tip, its file and main's new files in its tree.
      expect(git(bare, 'rev-parse', `fleet/${id}^`)).toBe(moved)
      expect(git(bare, 'diff', '--name-only', 'main', `fleet/${id}`)).toBe(`${id}.txt`)
    }
    expect(git(bare, 'fsck', '--no-dangling')).toBe('')
    console.log(
      `keep-fresh behind a shallow checkout of 200 commits: ${sent} objects fetched (whole history: ${wholeHistory(stack)})`
    )
  }, 600_000)

  it('the train: two approved fleet PRs land one after the other on the moved main, at most 100 objects fetched', async () => {
    const { moved } = await prsThenMainMoves()
    const prs = IDS.map(id => {
      const pr = stack.github.state.pulls.find(p => p.pull.head === `fleet/${id}`)
      if (!pr) throw new Error(`no PR for ${id}`)
      return pr
    })
    for (const pr of prs) stack.github.state.addReview(pr.number, 'wren', 'APPROVED')
    const from = stack.git.requests.length
    const run = await stack.run({ inputs: { mode: 'merge' } })
    expectOk(run)
    for (const id of IDS) expect(byId(run).get(id)?.status, run.stdout).toBe('merged')
    const sent = expectBounded(run, from)
    // Both landed on main, each after the commits before it: the three moves, then the two PRs.
    const log = await stack.git.log(FULL, 'main', 3)
    expect(log[2]?.sha).toBe(moved)
    for (const id of IDS)
      expect(await stack.git.readFile(FULL, 'main', `${id}.txt`)).toBe(`${id}\n`)
    expect(await stack.git.readFile(FULL, 'main', 'c.txt')).toBe('c.txt\n')
    for (const pr of prs) expect(stack.github.state.pullByNumber(pr.number)?.state).toBe('closed')
    console.log(
      `the train behind a shallow checkout of 200 commits: ${sent} objects fetched (whole history: ${wholeHistory(stack)})`
    )
  }, 600_000)

  it("the planner reads the base's files and none of its history: its clone is the base's tip at depth 1", async () => {
    const old = history(stack, 199)
    await checkout()
    // main moves on by a merge of a branch forked 150 commits back: the base is not the checkout's.
    const moved = mergeOld(stack, old, 150)
    const tasks = [{ title: 'Add the notes', prompt: 'Write notes.md\nTwo lines.' }]
    const goal = `Plan the notes ${script({ key: 'plan-shallow', steps: [{ tool: 'StructuredOutput', input: { tasks } }] })}`
    const from = stack.git.requests.length
    const run = await stack.run({ inputs: { goal } })
    expectOk(run)
    expect(JSON.parse(run.outputs.plan ?? '{}')).toMatchObject({
      tasks: [{ title: 'Add the notes' }]
    })
    // The merge, its tree and the side's file: the base's history (and the side's) stays behind.
    const sent = objectsSent(stack, from)
    expect(sent, run.stdout).toBeLessThanOrEqual(10)
    const root = path.join(run.runnerTemp, 'fleet-worker')
    const [planner] = (await readdir(root)).filter(d => d.endsWith('-planner'))
    const repo = path.join(root, planner ?? 'none', 'repo')
    expect((await readFile(path.join(repo, '.git', 'shallow'), 'utf8')).split('\n')).toContain(
      moved
    )
    expect(git(repo, 'rev-list', '--count', `refs/remotes/origin/main`)).toBe('1')
    console.log(`the planner behind a shallow checkout of 200 commits: ${sent} objects fetched`)
  }, 600_000)
})
