// No second download, through dist/ with the real claude CLI and a real git remote over HTTP: the
// fleet's clone links the objects the workspace's checkout holds and fetches only what it lacks.
// The checkout's config (the token's extraheader, and here an fsmonitor program too) is never
// read by the fleet's git. Behind a shallow checkout (actions/checkout's default) the clone stays
// shallow: the remote's packs, counted from their headers, hold at most 100 objects (issue #40).
import { rm, stat } from 'node:fs/promises'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { expectOk, writeScript } from '../support/scenario.js'
import { makeWorkspace } from '../../demo/git-remote.js'
import { script } from '../../demo/model-server.js'
import { byId, GITHUB_TOKEN, OWNER, REPO, type Stack, startStack } from '../../demo/stack.js'
import { git, history, mergeOld, objectsSent, pushToMain } from './shallow-support.js'

const FULL = `${OWNER}/${REPO}`

const task = (id: string) => ({
  id,
  prompt: `Add a file.\n${writeScript(id, `${id}.txt`, `${id}\n`, 'Done.')}`
})

/** A task whose worker counts the commits its own git sees, into <id>.txt. */
const counts = (id: string) => ({
  id,
  prompt: `Count the commits.\n${script({ key: id, steps: [{ tool: 'Bash', input: { command: `git rev-list --count HEAD > ${id}.txt` } }, { text: 'Done.' }] })}`
})

const borrowLine = (stdout: string) => /^fleet clone: borrowed .*$/m.exec(stdout)?.[0] ?? ''
const fetched = (line: string) => Number(/: (\d+) objects fetched$/.exec(line)?.[1] ?? NaN)

describe("the fleet's clone borrows the checkout's objects", () => {
  let stack: Stack
  let marker: string
  beforeEach(async () => {
    stack = await startStack()
    marker = path.join(stack.home, 'fsmonitor-ran')
  })
  afterEach(async () => {
    await stack?.close()
  })

  /** The checkout as actions/checkout leaves it, plus a config program the fleet must never run. */
  async function checkout(fetchDepth: number): Promise<void> {
    await rm(stack.workspace, { recursive: true, force: true })
    await makeWorkspace(stack.cloneUrl, GITHUB_TOKEN, { dir: stack.workspace, fetchDepth })
    git(stack.workspace, 'config', 'core.fsmonitor', `touch '${marker}'; false`)
  }

  async function expectLanded(run: Awaited<ReturnType<Stack['run']>>, ids: string[]) {
    expectOk(run)
    for (const id of ids) {
      expect(byId(run).get(id)?.status, run.stdout).toBe('pr-opened')
      expect(await stack.git.readFile(FULL, `fleet/${id}`, `${id}.txt`)).toBe(`${id}\n`)
    }
    expect(await stat(marker).catch(() => undefined)).toBeUndefined()
  }

  it('a full checkout at the base: no fetch at all, and the PRs land', async () => {
    await checkout(0)
    const from = stack.git.requests.length
    const run = await stack.run({ inputs: { tasks: JSON.stringify([task('one'), task('two')]) } })
    await expectLanded(run, ['one', 'two'])
    const line = borrowLine(run.stdout)
    expect(line).toContain("the remote's base is the checkout's HEAD, so there was no fetch")
    expect(fetched(line)).toBe(0)
    // The run read the remote once (ls-remote: its refs advertised, then listed) and pushed: no
    // fetch's negotiation, and no pack sent.
    const reads = stack.git.requests.slice(from).filter(r => r.service === 'git-upload-pack')
    expect(reads.map(r => r.method)).toEqual(['GET', 'POST'])
    expect(objectsSent(stack, from)).toBe(0)
  })

  it('base-branch named, at the checkout: no fetch either; a fleet branch already on the remote is fetched', async () => {
    await checkout(0)
    const bare = stack.git.repoPath(FULL)
    git(bare, 'branch', 'fleet/again', 'main')
    const run = await stack.run({
      inputs: { 'base-branch': 'main', tasks: JSON.stringify([task('named')]) }
    })
    await expectLanded(run, ['named'])
    expect(borrowLine(run.stdout)).toContain('so there was no fetch')
    const again = await stack.run({
      inputs: { 'base-branch': 'main', tasks: JSON.stringify([task('again')]) }
    })
    await expectLanded(again, ['again'])
    expect(borrowLine(again.stdout)).toContain('the fetch brought only what it lacked')
  })

  it('the base moved on since the checkout: only the new commit is fetched, and the task starts from it', async () => {
    await checkout(0)
    const moved = pushToMain(stack, 'later.txt')
    const run = await stack.run({ inputs: { tasks: JSON.stringify([task('after')]) } })
    await expectLanded(run, ['after'])
    // A commit, its tree and the new file's blob.
    expect(fetched(borrowLine(run.stdout))).toBe(3)
    const bare = stack.git.repoPath(FULL)
    expect(git(bare, 'merge-base', 'fleet/after', 'main')).toBe(moved)
    expect(await stack.git.readFile(FULL, 'fleet/after', 'later.txt')).toBe('later.txt\n')
  })

  it("a shallow checkout of 200 commits (actions/checkout's default): the clone stays shallow, fetches at most 100 objects, and the PRs land", async () => {
    const tip = history(stack, 199)
    await checkout(1)
    const from = stack.git.requests.length
    const run = await stack.run({
      inputs: { tasks: JSON.stringify([task('one'), task('two'), counts('three')]) }
    })
    // Every pack the remote sent in the run, counted from the packs' headers: the base is the
    // checkout's HEAD, so nothing (the base's whole history would be 600 objects and more).
    const sent = objectsSent(stack, from)
    expect(sent, run.stdout).toBeLessThanOrEqual(100)
    await expectLanded(run, ['one', 'two'])
    expect(byId(run).get('three')?.status, run.stdout).toBe('pr-opened')
    const line = borrowLine(run.stdout)
    expect(line).toContain('and so is the clone')
    expect(fetched(line)).toBe(sent)
    const bare = stack.git.repoPath(FULL)
    for (const id of ['one', 'two', 'three']) {
      expect(git(bare, 'rev-parse', `fleet/${id}^`)).toBe(tip)
      expect(git(bare, 'diff', '--name-only', 'main', `fleet/${id}`)).toBe(`${id}.txt`)
    }
    // The worker's own git saw the cut history (one commit), not an error at its boundary.
    expect(await stack.git.readFile(FULL, 'fleet/three', 'three.txt')).toBe('1\n')
    expect(git(bare, 'fsck', '--no-dangling')).toBe('')
    console.log(`shallow checkout of 200 commits: ${sent} objects fetched in the run (${line})`)
  })

  it('behind a shallow checkout the base moved on by a merge of old history: the fetch is at depth 1, the task starts from the new base', async () => {
    const old = history(stack, 199)
    await checkout(1)
    // A branch from 150 commits back, merged into main after the checkout.
    const moved = mergeOld(stack, old, 150)
    const from = stack.git.requests.length
    const run = await stack.run({ inputs: { tasks: JSON.stringify([task('after')]) } })
    await expectLanded(run, ['after'])
    const sent = objectsSent(stack, from)
    // The merge, its side commit, their trees, the side's blob: a whole fetch would be hundreds.
    expect(sent, run.stdout).toBeLessThanOrEqual(10)
    const bare = stack.git.repoPath(FULL)
    expect(git(bare, 'rev-parse', 'fleet/after^')).toBe(moved)
    expect(await stack.git.readFile(FULL, 'fleet/after', 'side.txt')).toBe('side\n')
    console.log(`shallow checkout, base moved by a merge of old history: ${sent} objects fetched`)
  })

  it('the split layout behind shallow checkouts: the land job deepens the base only as far as the start, and lands', async () => {
    const start = history(stack, 199)
    await checkout(1)
    const handed = path.join(stack.home, 'handed-over', 'fleet-hand-over')
    const ran = await stack.run({
      inputs: { tasks: JSON.stringify([task('split')]), land: 'false', 'outcomes-dir': handed }
    })
    expectOk(ran)
    expect(byId(ran).get('split')?.status, ran.stdout).toBe('ready')
    // The base moves on by three commits before the land job, whose checkout is of the new tip.
    for (const f of ['a.txt', 'b.txt', 'c.txt']) pushToMain(stack, f)
    await checkout(1)
    const from = stack.git.requests.length
    const landed = await stack.run({
      inputs: {
        mode: 'land',
        'api-key': '',
        'base-url': 'http://127.0.0.1:9',
        'outcomes-dir': path.dirname(handed)
      }
    })
    expectOk(landed)
    expect(byId(landed).get('split')?.status, landed.stdout).toBe('pr-opened')
    const sent = objectsSent(stack, from)
    expect(sent, landed.stdout).toBeLessThanOrEqual(100)
    const bare = stack.git.repoPath(FULL)
    expect(git(bare, 'rev-parse', 'fleet/split^')).toBe(start)
    expect(await stack.git.readFile(FULL, 'fleet/split', 'split.txt')).toBe('split\n')
    expect(stack.github.state.pulls.map(p => p.pull.head)).toEqual(['fleet/split'])
    console.log(`split layout, land job behind a shallow checkout: ${sent} objects fetched`)
  })
})
