// The seal's one `rev-parse` (worker/exit.ts SEAL_SCRIPT): whatever the worker did to HEAD and the
// index lock, what is sealed is its work on the task's branch, with real git (isolation: process,
// the seal as a plain child), and the branch and HEAD end where the next caged run expects them.
import { execFileSync } from 'node:child_process'
import { existsSync, lstatSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { Git } from '../../src/git/git.js'
import { RefWriter } from '../../src/git/ref-writer.js'
import { prepareGit } from '../../src/cage/cage-git.js'
import {
  acceptedHead,
  acceptSeal,
  LAYER_STATE,
  openSeal,
  SEAL_SCRIPT,
  SEALED_FILE,
  sealAsChild,
  type TaskGit
} from '../../src/worker/exit.js'
import { baseRepo, commitFile, git, GIT_ENV, loggingGit, subcommandOf } from '../support/git.js'

function task() {
  const { root, fleet, start } = baseRepo('fleet-seal-head-')
  const tree = path.join(root, 'tree')
  git(fleet, 'worktree', 'add', '-q', '-b', 'fleet/t', tree, 'main')
  const adminDir = git(tree, 'rev-parse', '--absolute-git-dir')
  const t: TaskGit = {
    id: 't',
    repo: Git.create(fleet),
    refs: new RefWriter(Git.create(fleet)),
    branch: 'fleet/t',
    start,
    adminDir,
    keepDir: path.join(root, 'keep'),
    author: { name: 'Fleet Bot', email: 'bot@example.com' },
    message: 'fleet(t): the task'
  }
  const files = (at: string) => git(fleet, 'ls-tree', '-r', '--name-only', at).split('\n')
  return { root, fleet, tree, start, adminDir, t, files }
}

describe("the seal reads HEAD once and seals the worker's work wherever HEAD went", () => {
  it('on the branch: its own commit and what it left, in one commit on top; HEAD untouched', async () => {
    const r = task()
    commitFile(r.tree, 'b.txt', 'worker commit')
    writeFileSync(path.join(r.tree, 'c.txt'), 'c\n')
    await sealAsChild(r.t, r.tree)
    expect(r.t.refused).toBeUndefined()
    const head = await acceptedHead(r.t)
    expect(git(r.fleet, 'log', '--format=%s', `${r.start}..${head}`).split('\n')).toEqual([
      'fleet(t): the task',
      'worker commit'
    ])
    expect(r.files(head)).toEqual(['a.txt', 'b.txt', 'c.txt'])
    expect(git(r.tree, 'symbolic-ref', 'HEAD')).toBe('refs/heads/fleet/t')
  })

  it('on another branch, or detached: the task branch follows HEAD, and HEAD is put back on it', async () => {
    for (const away of [
      ['checkout', '-qb', 'elsewhere'],
      ['checkout', '-q', '--detach']
    ]) {
      const r = task()
      git(r.tree, ...away)
      commitFile(r.tree, 'b.txt', 'away')
      await sealAsChild(r.t, r.tree)
      expect(r.t.refused, away.join(' ')).toBeUndefined()
      const head = await acceptedHead(r.t)
      expect(git(r.fleet, 'log', '--format=%s', `${r.start}..${head}`)).toBe('away')
      expect(git(r.tree, 'symbolic-ref', 'HEAD')).toBe('refs/heads/fleet/t')
    }
  })

  it('with no HEAD to read (an orphan branch): the files are sealed on the start commit', async () => {
    const r = task()
    git(r.tree, 'checkout', '-q', '--orphan', 'nothing')
    writeFileSync(path.join(r.tree, 'b.txt'), 'b\n')
    await sealAsChild(r.t, r.tree)
    expect(r.t.refused).toBeUndefined()
    const head = await acceptedHead(r.t)
    expect(git(r.fleet, 'rev-parse', `${head}^`)).toBe(r.start)
    expect(r.files(head)).toEqual(['a.txt', 'b.txt'])
  })

  it('a stale index.lock is removed; nothing changed seals nothing', async () => {
    const r = task()
    mkdirSync(r.adminDir, { recursive: true })
    writeFileSync(path.join(r.adminDir, 'index.lock'), '')
    await sealAsChild(r.t, r.tree)
    expect(r.t.refused).toBeUndefined()
    expect(existsSync(path.join(r.adminDir, 'index.lock'))).toBe(false)
    expect(await acceptedHead(r.t)).toBe(r.start)
  })

  it("leaves the worktree's index at the accepted head from its own add: clean, no read-tree after it", async () => {
    const r = task()
    const { bin, calls } = loggingGit(r.root)
    r.t.repo = Git.create(r.fleet, { ...GIT_ENV, PATH: `${bin}:${process.env.PATH}` })
    commitFile(r.tree, 'b.txt', 'worker commit')
    writeFileSync(path.join(r.tree, 'a.txt'), 'changed\n')
    writeFileSync(path.join(r.tree, 'c.txt'), 'c\n')
    await sealAsChild(r.t, r.tree)
    expect(r.t.refused).toBeUndefined()
    const head = await acceptedHead(r.t)
    // The rewrite made new commits (the messages), so the index is checked against the moved head.
    expect(head).not.toBe(git(r.fleet, 'rev-parse', 'fleet/t@{1}'))
    expect(git(r.tree, 'rev-parse', 'HEAD')).toBe(head)
    expect(git(r.tree, 'status', '--porcelain')).toBe('')
    expect(git(r.tree, 'diff-index', '--cached', '--name-only', head)).toBe('')
    expect(calls().map(subcommandOf)).not.toContain('read-tree')
  })
})

/** A cage's clone made, c.txt written, and the seal run in that clone as the cage runs it. */
async function sealInOwnClone(r: ReturnType<typeof task>) {
  const first = await prepareGit(r.t, path.join(r.root, 'cage-1'))
  writeFileSync(path.join(r.tree, 'c.txt'), 'c\n')
  const seal = await openSeal(r.t, path.join(r.root, 'seals'))
  const [file = 'sh', ...args] = seal.command
  execFileSync(file, args, {
    cwd: r.tree,
    env: { ...GIT_ENV, ...seal.env, GIT_DIR: first.gitDir, GIT_WORK_TREE: r.tree },
    stdio: 'pipe'
  })
  return seal
}

describe("a seal from a clone of the cage's own (sandbox, container)", () => {
  it("leaves the worktree's index to the next cage: no read-tree on the way out, the next clone's index at the head", async () => {
    const r = task()
    const { bin, calls } = loggingGit(r.root)
    r.t.repo = Git.create(r.fleet, { ...GIT_ENV, PATH: `${bin}:${process.env.PATH}` })
    const inClone = (gitDir: string, ...args: string[]) =>
      git(r.tree, '--git-dir', gitDir, '--work-tree', r.tree, ...args)
    const seal = await sealInOwnClone(r)
    calls()
    await acceptSeal(r.t, seal, { exitCode: 0, tail: '' })
    expect(r.t.refused).toBeUndefined()
    const head = await acceptedHead(r.t)
    expect(r.files(head)).toContain('c.txt')
    // Accepted: the branch moved, and no git process rewrote the worktree's index for it.
    expect(calls().map(subcommandOf)).toEqual(['index-pack', 'log'])
    expect(r.t.indexAt).toBe(head)
    expect(git(r.tree, 'diff-index', '--cached', '--name-only', head)).toBe('c.txt')
    // The next cage's clone: the index reset once, then copied; clean at the head.
    const next = await prepareGit(r.t, path.join(r.root, 'cage-2'))
    expect(calls().map(subcommandOf).sort()).toEqual(['for-each-ref', 'read-tree'])
    expect(r.t.indexAt).toBeUndefined()
    expect(inClone(next.gitDir, 'rev-parse', 'HEAD')).toBe(head)
    expect(inClone(next.gitDir, 'status', '--porcelain')).toBe('')
  })

  it('leaves no index reset for a head the branch never reached (its ref refused)', async () => {
    const r = task()
    const seal = await sealInOwnClone(r)
    // The branch's ref held locked, as another git writing it would: git refuses the move.
    const lock = path.join(
      git(r.fleet, 'rev-parse', '--absolute-git-dir'),
      'refs/heads/fleet/t.lock'
    )
    writeFileSync(lock, '')
    await expect(acceptSeal(r.t, seal, { exitCode: 0, tail: '' })).rejects.toThrow(
      /git update-ref failed/
    )
    expect(r.t.indexAt).toBeUndefined()
    expect(git(r.fleet, 'rev-parse', 'fleet/t')).toBe(r.start)
  })
})

describe('a seal after an accepted one', () => {
  /** The fixed seal run in the worktree as a cage runs it: whether it wrote a bundle file. */
  function sealed(r: ReturnType<typeof task>, from: string): boolean {
    const out = path.join(r.root, `${from.slice(0, 8)}-${Date.now()}.bundle`)
    execFileSync('sh', ['-c', SEAL_SCRIPT, 'fleet-seal', 'fleet/t', r.start, out, 'm', '', from], {
      cwd: r.tree,
      env: GIT_ENV,
      stdio: 'pipe'
    })
    return existsSync(out)
  }

  it('writes no file when nothing is new since the commit its cage was given (a verify that changed nothing)', () => {
    const r = task()
    commitFile(r.tree, 'b.txt', 'the worker, accepted')
    const accepted = git(r.tree, 'rev-parse', 'HEAD')
    expect(sealed(r, accepted)).toBe(false)
    // Given only the start, the same state is new work: a bundle to hand over.
    expect(sealed(r, r.start)).toBe(true)
    // And a file changed since the accepted commit is sealed.
    writeFileSync(path.join(r.tree, 'c.txt'), 'c\n')
    expect(sealed(r, accepted)).toBe(true)
  })

  it("writes a bundle git's own tools read as `git bundle create` writes it: one head, the start as prerequisite", () => {
    const r = task()
    commitFile(r.tree, 'b.txt', 'the worker')
    writeFileSync(path.join(r.tree, 'c.txt'), 'c\n')
    const out = path.join(r.root, 'sealed.bundle')
    execFileSync('sh', ['-c', SEAL_SCRIPT, 'fleet-seal', 'fleet/t', r.start, out, 'm', ''], {
      cwd: r.tree,
      env: GIT_ENV,
      stdio: 'pipe'
    })
    // The header: the start commit as the one prerequisite, the task's branch as the one head.
    const header = readFileSync(out, 'latin1').split('\n\n')[0] ?? ''
    expect(header).toMatch(
      new RegExp(`^# v2 git bundle\n-${r.start}\n[0-9a-f]{40} refs/heads/fleet/t$`)
    )
    expect(git(r.fleet, 'bundle', 'verify', '--quiet', out)).toBe('')
    // Fetched into a clone that has only the start: both commits, the worker's and the seal's.
    const other = path.join(r.root, 'other')
    git(r.root, 'clone', '-q', '--no-local', r.fleet, other, '--branch', 'main', '--single-branch')
    git(other, 'fetch', '-q', out, 'refs/heads/fleet/t:refs/heads/got')
    expect(git(other, 'log', '--format=%s', `${r.start}..got`).split('\n')).toEqual([
      'm',
      'the worker'
    ])
    expect(git(other, 'ls-tree', '-r', '--name-only', 'got').split('\n')).toEqual([
      'a.txt',
      'b.txt',
      'c.txt'
    ])
    // No ref moved in the seal: the branch is where the worker left it until the action accepts.
    expect(git(r.fleet, 'log', '-1', '--format=%s', 'fleet/t')).toBe('the worker')
  })

  it('removes a layer state the caged command left beside the bundle, a file or a symlink', () => {
    for (const plant of ['file', 'symlink'] as const) {
      const r = task()
      const out = path.join(r.root, 'out')
      mkdirSync(out)
      const state = path.join(out, LAYER_STATE)
      if (plant === 'file') writeFileSync(state, '1 2\n')
      else symlinkSync(path.join(r.root, 'elsewhere'), state)
      writeFileSync(path.join(r.tree, 'b.txt'), 'b\n')
      const file = path.join(out, SEALED_FILE)
      execFileSync('sh', ['-c', SEAL_SCRIPT, 'fleet-seal', 'fleet/t', r.start, file, 'm', ''], {
        cwd: r.tree,
        env: GIT_ENV,
        stdio: 'pipe'
      })
      expect(existsSync(file), plant).toBe(true)
      expect(() => lstatSync(state), plant).toThrow(/ENOENT/)
    }
  })
})
