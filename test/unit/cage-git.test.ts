// The worker's own clone (cage/cage-git.ts), made without a git process for its `git init`: real
// git reads it as the repository `git init` makes, on the task's branch at its commit, its objects
// borrowed, its index the worktree's, and it takes a commit of its own.
import { writeFileSync } from 'node:fs'
import { mkdir, rm } from 'node:fs/promises'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { finishGit, prepareGit } from '../../src/cage/cage-git.js'
import { baseRepo, git } from '../support/git.js'

describe("the cage's own clone", () => {
  let root = ''
  afterEach(async () => {
    await rm(root, { recursive: true, force: true })
  })

  it('is what git init makes: its config, its branch and commit, borrowed objects, the index', async () => {
    const made = baseRepo('fleet-cage-git-')
    root = made.root
    const tree = path.join(root, 'tree')
    git(made.fleet, 'worktree', 'add', '-q', '-b', 'fleet/t1', tree, made.start)
    const cageDir = path.join(root, 'cage')
    await mkdir(cageDir)
    const clone = await prepareGit(tree, cageDir)
    const inClone = (...args: string[]) =>
      git(tree, `--git-dir=${clone.gitDir}`, `--work-tree=${tree}`, ...args)

    git(root, 'init', '-q', '-b', 'fleet/t1', path.join(root, 'plain'))
    const plain = git(path.join(root, 'plain'), 'config', '--local', '--list')
    expect(inClone('config', '--local', '--list')).toBe(plain)
    expect(inClone('symbolic-ref', 'HEAD')).toBe('refs/heads/fleet/t1')
    expect(inClone('rev-parse', 'HEAD')).toBe(made.start)
    expect(clone.head).toBe(made.start)
    // The worktree's index: nothing is changed, nothing untracked.
    expect(inClone('status', '--porcelain')).toBe('')
    writeFileSync(path.join(tree, 'b.txt'), 'b\n')
    inClone('add', 'b.txt')
    inClone('commit', '-qm', 'worker')
    expect(inClone('rev-parse', 'HEAD~1')).toBe(made.start)
    inClone('fsck', '--connectivity-only', '--no-progress')
    // The worker's commit is in its clone alone, never in the fleet's objects.
    expect(() => git(made.fleet, 'cat-file', '-e', inClone('rev-parse', 'HEAD'))).toThrow()
    await finishGit(clone)
  })
})
