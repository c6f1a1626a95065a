// FleetRepo's clone right after a checkout and a task's worktree, with real git over file://: the
// clone at the checkout's HEAD fetches nothing and leaves no ref of its own behind; a worktree
// disposed of is gone from disk and from git's list, and its id can be used again; views and
// worktrees of the run's prepared ref read its commit once.
import { existsSync, mkdirSync, readdirSync, symlinkSync } from 'node:fs'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { FleetRepo } from '../../src/git/repo.js'
import { git, GIT_ENV, loggingGit, subcommandOf } from '../support/git.js'

describe("FleetRepo's clone and worktrees", () => {
  let dir: string
  let checkout: string
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'fleet-worktree-'))
    const remote = path.join(dir, 'remote.git')
    const seed = path.join(dir, 'seed')
    git(dir, 'init', '--quiet', '--bare', '--initial-branch=main', remote)
    git(dir, 'init', '--quiet', '--initial-branch=main', seed)
    await writeFile(path.join(seed, 'a.txt'), 'a\n')
    git(seed, 'add', '.')
    git(seed, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'one')
    git(seed, 'push', '--quiet', remote, 'main')
    checkout = path.join(dir, 'checkout')
    git(dir, 'clone', '--quiet', `file://${remote}`, checkout)
  })
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true })
  })

  const clone = (env: NodeJS.ProcessEnv = GIT_ENV) =>
    FleetRepo.clone({
      dir: path.join(dir, 'fleet', 'repo'),
      remoteUrl: `file://${path.join(dir, 'remote.git')}`,
      branches: ['fleet/x'],
      checkout,
      env
    })

  it("at the checkout's HEAD: no fetch, origin's base is that commit, no borrowed ref left", async () => {
    const { repo, base, borrowed } = await clone()
    expect(base).toBe('main')
    expect(borrowed).toMatchObject({ fetched: 0, noFetch: true })
    const head = git(checkout, 'rev-parse', 'HEAD')
    expect(await repo.remoteSha('main')).toBe(head)
    expect(git(repo.git.dir, 'for-each-ref', '--format=%(refname)')).toBe(
      'refs/remotes/origin/main'
    )
    expect(git(repo.git.dir, 'config', 'remote.origin.url')).toBe(repo.remoteUrl)
  })

  it('a disposed worktree is gone, from disk and from git, and its id is used again', async () => {
    const { repo } = await clone()
    const names = () =>
      git(repo.git.dir, 'worktree', 'list', '--porcelain')
        .split('\n')
        .filter(l => l.startsWith('worktree '))
    for (const round of [1, 2]) {
      const tree = await repo.worktree('t1', 'fleet/x', 'refs/remotes/origin/main')
      expect(path.basename(tree.gitDir), `round ${round}`).toBe('t1')
      expect(existsSync(path.join(tree.dir, 'a.txt'))).toBe(true)
      expect(names()).toHaveLength(2)
      await tree[Symbol.asyncDispose]()
      expect(existsSync(tree.dir)).toBe(false)
      expect(existsSync(tree.gitDir)).toBe(false)
      expect(names()).toHaveLength(1)
      // Nothing renamed away is left: not beside the files, not beside the admin dirs.
      expect(readdirSync(path.dirname(tree.dir))).toEqual([])
      expect(readdirSync(path.join(repo.git.dir, '.git', 'fleet-worktrees'))).toEqual([])
    }
    // A tree its worker removed itself is disposed of all the same: its admin dir goes too.
    const removed = await repo.worktree('t2', 'fleet/y', 'refs/remotes/origin/main')
    await rm(removed.dir, { recursive: true, force: true })
    await removed[Symbol.asyncDispose]()
    expect(existsSync(removed.gitDir)).toBe(false)
    expect(names()).toHaveLength(1)
    // The branch stays.
    expect(git(repo.git.dir, 'rev-parse', 'fleet/x')).toBe(git(checkout, 'rev-parse', 'HEAD'))
  })
  /** A clone whose git processes are logged; `reads()` counts its `rev-parse`s so far. */
  async function loggedClone() {
    const { bin, calls } = loggingGit(dir)
    const { repo } = await clone({ ...GIT_ENV, PATH: `${bin}:${process.env.PATH}` })
    let read = 0
    const reads = () => (read += calls().filter(l => subcommandOf(l) === 'rev-parse').length)
    return { repo, reads }
  }

  it("at the checkout's HEAD, views and worktrees start at the commit the clone wrote: no rev-parse until a refetch", async () => {
    const { repo, reads } = await loggedClone()
    const ref = 'refs/remotes/origin/main'
    await repo.prepareViews(ref)
    expect(reads()).toBe(0)
    const head = git(checkout, 'rev-parse', 'HEAD')
    for (const id of ['v1', 'v2']) {
      await using view = await repo.view(id, `fleet/${id}`, ref)
      expect(view.startSha).toBe(head)
      expect(git(repo.git.dir, 'rev-parse', `fleet/${id}`)).toBe(head)
    }
    // A worktree's git dir is read from the .git file git wrote in it, not asked of git.
    await using tree = await repo.worktree('w1', 'fleet/w1', ref)
    expect(tree.startSha).toBe(head)
    expect(tree.gitDir).toBe(path.join(repo.git.dir, '.git', 'worktrees', 'w1'))
    expect(git(tree.dir, 'rev-parse', 'HEAD', '--absolute-git-dir')).toBe(`${head}\n${tree.gitDir}`)
    expect(reads()).toBe(0)
    await repo.refetch(['main'])
    await using again = await repo.view('v3', 'fleet/v3', ref)
    expect(again.startSha).toBe(head)
    expect(reads()).toBe(1)
  })

  it('after a fetch, the start commit is read once by prepareStart, by no worktree', async () => {
    // The remote moves past the checkout: the clone fetches.
    const seed = path.join(dir, 'seed')
    await writeFile(path.join(seed, 'b.txt'), 'b\n')
    git(seed, 'add', '.')
    git(seed, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'two')
    git(seed, 'push', '--quiet', path.join(dir, 'remote.git'), 'main')
    const { repo, reads } = await loggedClone()
    const ref = 'refs/remotes/origin/main'
    expect(await repo.prepareStart(ref)).toBe(git(seed, 'rev-parse', 'HEAD'))
    expect(reads()).toBe(1)
    for (const id of ['w1', 'w2']) {
      await using tree = await repo.worktree(id, `fleet/${id}`, ref)
      expect(tree.startSha).toBe(git(seed, 'rev-parse', 'HEAD'))
      expect(existsSync(path.join(tree.dir, 'b.txt'))).toBe(true)
    }
    expect(reads()).toBe(1)
  })

  it("a worktree is one git start (read-tree; its ref through the clone's kept writer) and is one git itself reads as its own", async () => {
    const { bin, calls } = loggingGit(dir)
    const { repo } = await clone({ ...GIT_ENV, PATH: `${bin}:${process.env.PATH}` })
    // The clone at the checkout's HEAD wrote origin's base through the kept writer: no other
    // update-ref start, and none for the worktree's branch after it.
    const updates = calls().filter(c => subcommandOf(c) === 'update-ref')
    expect(updates.map(c => c.split(' update-ref ')[1])).toEqual(['--stdin'])
    await using tree = await repo.worktree('w1', 'fleet/w1', 'refs/remotes/origin/main')
    expect(calls().map(subcommandOf)).toEqual(['read-tree'])
    const head = git(checkout, 'rev-parse', 'HEAD')
    // Found through its .git file, as the worker's git finds it: on its branch, clean, listed.
    expect(git(tree.dir, 'symbolic-ref', 'HEAD')).toBe('refs/heads/fleet/w1')
    expect(git(tree.dir, 'rev-parse', 'HEAD')).toBe(head)
    expect(git(tree.dir, 'status', '--porcelain')).toBe('')
    expect(git(repo.git.dir, 'worktree', 'list', '--porcelain')).toContain(
      `worktree ${tree.dir}\nHEAD ${head}\nbranch refs/heads/fleet/w1`
    )
    // Nothing half-made is left beside the clone's worktrees.
    expect(existsSync(path.join(repo.git.dir, '.git', 'fleet-worktrees', 'w1'))).toBe(false)
    // A commit made in it moves its branch in the clone.
    await writeFile(path.join(tree.dir, 'c.txt'), 'c\n')
    git(tree.dir, 'add', 'c.txt')
    git(tree.dir, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'c')
    expect(git(repo.git.dir, 'rev-parse', 'fleet/w1')).toBe(git(tree.dir, 'rev-parse', 'HEAD'))
  })

  it('what an earlier run left at its paths (a tree, a dangling symlink, an admin dir) is replaced', async () => {
    const { repo } = await clone()
    const tree = path.join(repo.git.dir, '..', 'worktrees', 'w9')
    const making = path.join(repo.git.dir, '.git', 'fleet-worktrees', 'w9')
    const admin = path.join(repo.git.dir, '.git', 'worktrees', 'w9')
    mkdirSync(path.join(tree, 'deep'), { recursive: true })
    await writeFile(path.join(tree, 'deep', 'stale.txt'), 'stale\n')
    mkdirSync(path.dirname(making), { recursive: true })
    symlinkSync(path.join(dir, 'nowhere'), making)
    mkdirSync(admin, { recursive: true })
    await writeFile(path.join(admin, 'HEAD'), 'ref: refs/heads/elsewhere\n')
    await using made = await repo.worktree('w9', 'fleet/w9', 'refs/remotes/origin/main')
    expect(existsSync(path.join(made.dir, 'deep'))).toBe(false)
    expect(git(made.dir, 'symbolic-ref', 'HEAD')).toBe('refs/heads/fleet/w9')
    expect(git(made.dir, 'status', '--porcelain')).toBe('')
  })
})
