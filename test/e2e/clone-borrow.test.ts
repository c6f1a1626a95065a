// No second download, through dist/ with the real claude CLI and a real git remote over HTTP: the
// fleet's clone links the objects the workspace's checkout holds and fetches only what it lacks.
// The checkout's config (the token's extraheader, and here an fsmonitor program too) is never
// read by the fleet's git; a shallow checkout (actions/checkout's default) still works.
import { execFileSync } from 'node:child_process'
import { rm, stat } from 'node:fs/promises'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { makeWorkspace } from '../../demo/git-remote.js'
import { script } from '../../demo/model-server.js'
import { byId, GITHUB_TOKEN, OWNER, REPO, type Stack, startStack } from '../../demo/stack.js'

const FULL = `${OWNER}/${REPO}`

const task = (id: string) => ({
  id,
  prompt: `Add a file.\n${script({ key: id, steps: [{ tool: 'Write', input: { file_path: `${id}.txt`, content: `${id}\n` } }, { text: 'Done.' }] })}`
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
    expect(run.exitCode, run.stdout + run.stderr).toBe(0)
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

  it("a shallow checkout (actions/checkout's default) still works: the base's history is fetched", async () => {
    // Two commits on main, so depth 1 cuts its history.
    pushToMain(stack, 'second.txt')
    await checkout(1)
    const run = await stack.run({ inputs: { tasks: JSON.stringify([task('shallow')]) } })
    await expectLanded(run, ['shallow'])
    const line = borrowLine(run.stdout)
    expect(line).toContain('its history is cut')
    expect(fetched(line)).toBeGreaterThan(0)
  })
})
