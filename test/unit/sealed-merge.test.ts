// A merge turn's exit with real git: the seal records the worker's resolution as one merge commit
// of exactly [the PR's head, the base], the action makes it again as its own, and checkSealed
// refuses every other shape a hostile cage could hand over (one parent, swapped, a stranger, three,
// a commit on top, a gitlink of its own). Hooks and an fsmonitor left in the worker's clone never
// run in the seal.
import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { Git } from '../../src/git/git.js'
import { RefWriter } from '../../src/git/ref-writer.js'
import { type Checked, checkSealed } from '../../src/git/sealed.js'
import { acceptedHead, SEAL_SCRIPT, sealAsChild, type TaskGit } from '../../src/worker/exit.js'
import { GIT_ENV, git } from '../support/git.js'

const write = (dir: string, file: string, text: string) => {
  mkdirSync(path.dirname(path.join(dir, file)), { recursive: true })
  writeFileSync(path.join(dir, file), text)
}
const commit = (dir: string, message: string) => {
  git(dir, 'add', '--all')
  git(dir, 'commit', '-qm', message)
  return git(dir, 'rev-parse', 'HEAD')
}
/** `git merge origin/main`, which must stop on the conflict (exit 1), the merge left in progress. */
const conflictIn = (dir: string) =>
  expect(spawnSync('git', ['merge', 'origin/main'], { cwd: dir, env: GIT_ENV }).status).toBe(1)
const reasonOf = (c: Checked) => (c.kind === 'refused' ? c.reason : '')

/**
 * The fleet's clone: main at B0, fleet/t at H (its own colour), main moved to B1 (another colour);
 * a worker's clone of it on fleet/t with `git merge main` left in conflict, as a cage sees it.
 */
function conflict() {
  const root = mkdtempSync(path.join(tmpdir(), 'fleet-merge-seal-'))
  const fleet = path.join(root, 'fleet')
  const worker = path.join(root, 'worker')
  git(root, 'init', '-q', '-b', 'main', fleet)
  write(fleet, 'shared.txt', 'colour = green\n')
  commit(fleet, 'base')
  git(fleet, 'checkout', '-qb', 'fleet/t')
  write(fleet, 'shared.txt', 'colour = red\n')
  const head = commit(fleet, 'the task')
  git(fleet, 'checkout', '-q', 'main')
  write(fleet, 'shared.txt', 'colour = blue\n')
  const base = commit(fleet, 'main moves')
  git(root, 'clone', '-q', '--no-local', fleet, worker)
  git(worker, 'checkout', '-q', 'fleet/t')
  conflictIn(worker)
  return { root, fleet, worker, head, base, repo: Git.create(fleet) }
}

/** The fixed seal run in the worker's clone, as a cage runs it; the bundle file it wrote. */
function seal(r: ReturnType<typeof conflict>, merge: string = r.base): string {
  const out = path.join(r.root, `${Math.random().toString(36).slice(2)}.bundle`)
  execFileSync(
    'sh',
    ['-c', SEAL_SCRIPT, 'fleet-seal', 'fleet/t', r.head, out, 'Merge main', merge],
    { cwd: r.worker, env: GIT_ENV, stdio: 'pipe' }
  )
  return out
}

const want = (r: ReturnType<typeof conflict>) => ({
  branch: 'fleet/t',
  start: r.head,
  merge: r.base
})

describe('the seal of a merge turn', () => {
  it('records the resolution as one merge commit of [the head, the base], and the check accepts it', async () => {
    const r = conflict()
    write(r.worker, 'shared.txt', 'colour = blue-green\n')
    const checked = await checkSealed(r.repo, seal(r), want(r))
    expect(checked.kind, reasonOf(checked)).toBe('accepted')
    if (checked.kind !== 'accepted') return
    expect(checked.commits).toBe(1)
    expect(git(r.fleet, 'rev-list', '--parents', '-n', '1', checked.head).split(' ')).toEqual([
      checked.head,
      r.head,
      r.base
    ])
    expect(git(r.fleet, 'show', `${checked.head}:shared.txt`)).toBe('colour = blue-green')
  })

  it('never runs the hooks or the fsmonitor a worker left in its clone', async () => {
    const r = conflict()
    const ran = path.join(r.root, 'ran')
    const program = path.join(r.root, 'evil.sh')
    writeFileSync(program, `#!/bin/sh\necho ran >> '${ran}'\n`, { mode: 0o755 })
    const hooks = git(r.worker, 'rev-parse', '--git-path', 'hooks')
    for (const hook of ['pre-commit', 'post-commit', 'reference-transaction', 'post-index-change'])
      writeFileSync(path.join(r.worker, hooks, hook), `#!/bin/sh\n'${program}'\n`, { mode: 0o755 })
    git(r.worker, 'config', 'core.fsmonitor', program)
    git(r.worker, 'config', 'core.hooksPath', path.join(r.worker, hooks))
    write(r.worker, 'shared.txt', 'colour = teal\n')
    const checked = await checkSealed(r.repo, seal(r), want(r))
    expect(checked.kind, reasonOf(checked)).toBe('accepted')
    expect(existsSync(ran)).toBe(false)
  })
})

describe('checkSealed: the one shape a merge turn may hand over', () => {
  it("refuses the worker's own commit with one parent (it committed instead of leaving files)", async () => {
    const r = conflict()
    write(r.worker, 'shared.txt', 'colour = blue-green\n')
    git(r.worker, 'add', '--all')
    const single = git(
      r.worker,
      'commit-tree',
      git(r.worker, 'write-tree'),
      '-p',
      r.head,
      '-m',
      'one'
    )
    git(r.worker, 'reset', '-q', '--hard', single)
    expect(reasonOf(await checkSealed(r.repo, seal(r), want(r)))).toMatch(
      /has parents \[[0-9a-f]{12}\], not exactly/
    )
  })

  it('refuses swapped parents, a stranger for the base, a third parent and a commit on top', async () => {
    const r = conflict()
    write(r.worker, 'shared.txt', 'colour = blue-green\n')
    git(r.worker, 'add', '--all')
    const tree = git(r.worker, 'write-tree')
    const stranger = git(r.worker, 'commit-tree', tree, '-m', 'a root of its own')
    const merge = git(r.worker, 'commit-tree', tree, '-p', r.head, '-p', r.base, '-m', 'm')
    const shapes = {
      swapped: ['-p', r.base, '-p', r.head],
      stranger: ['-p', r.head, '-p', stranger],
      octopus: ['-p', r.head, '-p', r.base, '-p', stranger],
      'on top': ['-p', merge]
    }
    for (const [name, parents] of Object.entries(shapes)) {
      const forged = git(r.worker, 'commit-tree', tree, ...parents, '-m', name)
      git(r.worker, 'reset', '-q', '--hard', forged)
      const checked = await checkSealed(r.repo, seal(r), want(r))
      expect(reasonOf(checked), name).toMatch(/not exactly \[/)
    }
  })

  it('refuses a gitlink the merge adds, and accepts one the base brought', async () => {
    const r = conflict()
    const nested = path.join(r.worker, 'vendor', 'nested')
    mkdirSync(nested, { recursive: true })
    git(nested, 'init', '-q')
    write(nested, 'x', 'x\n')
    commit(nested, 'n')
    write(r.worker, 'shared.txt', 'colour = blue-green\n')
    expect(reasonOf(await checkSealed(r.repo, seal(r), want(r)))).toContain(
      'adds a submodule (a gitlink or a .gitmodules change: vendor/nested)'
    )

    // The base itself gained a gitlink: kept by the merge, it is the base's and passes.
    const s = conflict()
    const sha = git(s.fleet, 'rev-parse', 'HEAD')
    git(s.fleet, 'update-index', '--add', '--cacheinfo', `160000,${sha},lib/dep`)
    git(s.fleet, 'commit', '-qm', 'a submodule on main')
    const base = git(s.fleet, 'rev-parse', 'HEAD')
    git(s.worker, 'merge', '--abort')
    git(s.worker, 'fetch', '-q', 'origin')
    conflictIn(s.worker)
    write(s.worker, 'shared.txt', 'colour = blue-green\n')
    const checked = await checkSealed(s.repo, seal({ ...s, base }, base), {
      ...want(s),
      merge: base
    })
    expect(checked.kind, reasonOf(checked)).toBe('accepted')
  })
})

describe('acceptSeal of a merge turn (isolation: process, the seal as a plain child)', () => {
  it("moves the branch to the action's own merge commit: the worker's tree, the two parents, the action's message and name", async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'fleet-merge-accept-'))
    const fleet = path.join(root, 'fleet')
    git(root, 'init', '-q', '-b', 'main', fleet)
    write(fleet, 'shared.txt', 'colour = green\n')
    commit(fleet, 'base')
    git(fleet, 'branch', 'fleet/t')
    write(fleet, 'shared.txt', 'colour = blue\n')
    const base = commit(fleet, 'main moves')
    const tree = path.join(root, 'tree')
    git(fleet, 'worktree', 'add', '-q', tree, 'fleet/t')
    write(tree, 'shared.txt', 'colour = red\n')
    const head = commit(tree, 'the task')
    expect(() => git(tree, 'merge', 'main')).toThrow()
    write(tree, 'shared.txt', 'colour = purple\n')
    const t: TaskGit = {
      id: 't.merge',
      repo: Git.create(fleet),
      refs: new RefWriter(Git.create(fleet)),
      branch: 'fleet/t',
      start: head,
      merge: base,
      adminDir: git(tree, 'rev-parse', '--absolute-git-dir'),
      keepDir: path.join(root, 'keep'),
      author: { name: 'Fleet Bot', email: 'bot@example.com' },
      message: 'Merge main into fleet/t (Fleet Worker)'
    }
    await sealAsChild(t, tree)
    expect(t.refused).toBeUndefined()
    const merged = await acceptedHead(t)
    expect(git(fleet, 'log', '-1', '--format=%P|%an <%ae>|%cn|%s', merged)).toBe(
      `${head} ${base}|Fleet Bot <bot@example.com>|Fleet Bot|Merge main into fleet/t (Fleet Worker)`
    )
    expect(git(fleet, 'show', `${merged}:shared.txt`)).toBe('colour = purple')

    // A retried attempt starts from that merge: its files are sealed as the merge again, not on top.
    write(tree, 'shared.txt', 'colour = mauve\n')
    await sealAsChild(t, tree)
    expect(t.refused).toBeUndefined()
    const again = await acceptedHead(t)
    expect(git(fleet, 'log', '-1', '--format=%P', again)).toBe(`${head} ${base}`)
    expect(git(fleet, 'show', `${again}:shared.txt`)).toBe('colour = mauve')
  })
})
