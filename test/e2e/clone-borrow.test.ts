// No second download, through dist/ with the real claude CLI and a real git remote over HTTP: the
// fleet's clone links the objects the workspace's checkout holds and fetches only what it lacks.
// The checkout's config (the token's extraheader, and here an fsmonitor program too) is never
// read by the fleet's git. Behind a shallow checkout (actions/checkout's default) the clone stays
// shallow: the remote's packs, counted from their headers, hold at most 100 objects (issue #40).
import { execFileSync } from 'node:child_process'
import { rm, stat } from 'node:fs/promises'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { expectOk, writeScript } from '../support/scenario.js'
import { makeWorkspace } from '../../demo/git-remote.js'
import { script } from '../../demo/model-server.js'
import { byId, GITHUB_TOKEN, OWNER, REPO, type Stack, startStack } from '../../demo/stack.js'

const FULL = `${OWNER}/${REPO}`

const task = (id: string) => ({
  id,
  prompt: `Add a file.\n${writeScript(id, `${id}.txt`, `${id}\n`, 'Done.')}`
})

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: { PATH: process.env.PATH, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' }
  }).trim()

/** A commit on the remote's main that the checkout does not have: one new file. */
function pushToMain(stack: Stack, file: string): string {
  const bare = stack.git.repoPath(FULL)
  const blob = execFileSync('git', ['hash-object', '-w', '--stdin'], {
    cwd: bare,
    input: `${file}\n`,
    encoding: 'utf8'
  }).trim()
  const base = git(bare, 'rev-parse', 'refs/heads/main')
  const entries = git(bare, 'ls-tree', base)
  const tree = execFileSync('git', ['mktree'], {
    cwd: bare,
    input: `${entries}\n100644 blob ${blob}\t${file}\n`,
    encoding: 'utf8'
  }).trim()
  const env = {
    ...process.env,
    GIT_AUTHOR_NAME: 'Someone',
    GIT_AUTHOR_EMAIL: 'someone@example.com',
    GIT_COMMITTER_NAME: 'Someone',
    GIT_COMMITTER_EMAIL: 'someone@example.com'
  }
  const commit = execFileSync('git', ['commit-tree', tree, '-p', base, '-m', `Add ${file}`], {
    cwd: bare,
    env,
    encoding: 'utf8'
  }).trim()
  git(bare, 'update-ref', 'refs/heads/main', commit, base)
  return commit
}

/**
 * `n` more commits on the remote's main (one process: git fast-import), each changing one of 20
 * files under history/; returns the new tip.
 */
function history(stack: Stack, n: number): string {
  const bare = stack.git.repoPath(FULL)
  const base = git(bare, 'rev-parse', 'refs/heads/main')
  const data = (text: string) => `data ${Buffer.byteLength(text)}\n${text}\n`
  let stream = ''
  for (let i = 1; i <= n; i++) {
    stream += `commit refs/heads/main\nmark :${i}\ncommitter Someone <someone@example.com> ${1_700_000_000 + i} +0000\n`
    stream += data(`History ${i}`)
    stream += i === 1 ? `from ${base}\n` : `from :${i - 1}\n`
    stream += `M 100644 inline history/f${i % 20}.txt\n${data(`${i}\n`)}`
  }
  execFileSync('git', ['fast-import', '--quiet'], { cwd: bare, input: stream })
  return git(bare, 'rev-parse', 'refs/heads/main')
}

/** A side branch from `back` commits before `tip`, one new file, merged into main: the merge. */
function mergeOld(stack: Stack, tip: string, back: number): string {
  const bare = stack.git.repoPath(FULL)
  const fork = git(bare, 'rev-parse', `${tip}~${back}`)
  const data = (text: string) => `data ${Buffer.byteLength(text)}\n${text}\n`
  const who = 'committer Someone <someone@example.com> 1800000000 +0000\n'
  const stream =
    `commit refs/heads/side\nmark :1\n${who}${data('Side')}from ${fork}\nM 100644 inline side.txt\n${data('side\n')}` +
    `commit refs/heads/main\nmark :2\n${who}${data('Merge side')}from ${tip}\nmerge :1\nM 100644 inline side.txt\n${data('side\n')}`
  execFileSync('git', ['fast-import', '--quiet'], { cwd: bare, input: stream })
  return git(bare, 'rev-parse', 'refs/heads/main')
}

/** The objects in every pack the remote sent since request `from` (the packs' own headers). */
const objectsSent = (stack: Stack, from: number) =>
  stack.git.requests.slice(from).reduce((sum, r) => sum + (r.objects ?? 0), 0)

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

  it('a full checkout at the base: nothing is fetched again, and the PRs land', async () => {
    await checkout(0)
    const run = await stack.run({ inputs: { tasks: JSON.stringify([task('one'), task('two')]) } })
    await expectLanded(run, ['one', 'two'])
    const line = borrowLine(run.stdout)
    expect(line).toContain('the fetch brought only what it lacked')
    expect(fetched(line)).toBe(0)
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
