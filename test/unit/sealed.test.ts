import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync
} from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { Git } from '../../src/git/git.js'
import { rewriteMessages } from '../../src/git/messages.js'
import { type Checked, checkSealed, readSealed, submodulePaths } from '../../src/git/sealed.js'
import { inertCommitMessage } from '../../src/inert-text.js'
import { baseRepo, commitFile, git, gitWithInput } from '../support/git.js'

/** The fleet's clone with a base commit, and a worker's clone of it on fleet/t. */
function repos() {
  const { root, fleet, start } = baseRepo('fleet-sealed-')
  const worker = path.join(root, 'worker')
  git(root, 'clone', '-q', fleet, worker)
  git(worker, 'checkout', '-qb', 'fleet/t')
  const bundle = (name = 'fleet/t', ...revs: string[]) => {
    const file = path.join(root, `${Math.random().toString(36).slice(2)}.bundle`)
    git(worker, 'bundle', 'create', '-q', file, name, ...(revs.length ? revs : [`^${start}`]))
    return file
  }
  return { root, fleet, worker, start, bundle, repo: Git.create(fleet) }
}

/** The refusal's sentence; '' when the result was accepted (so a match fails). */
const reasonOf = (c: Checked) => (c.kind === 'refused' ? c.reason : '')

describe('checkSealed: what the action accepts from a cage', () => {
  it("accepts the task's branch descending from its start commit", async () => {
    const r = repos()
    commitFile(r.worker, 'b.txt', 'work')
    const head = git(r.worker, 'rev-parse', 'HEAD')
    const checked = await checkSealed(r.repo, r.bundle(), { branch: 'fleet/t', start: r.start })
    expect(checked).toMatchObject({ kind: 'accepted', head, commits: 1 })
    // The branch itself is not moved by the check.
    expect(await r.repo.tryRevParse('refs/heads/fleet/t')).toBeUndefined()
  })

  it('refuses a new gitlink, naming its path', async () => {
    const r = repos()
    const nested = path.join(r.worker, 'vendor', 'nested')
    mkdirSync(nested, { recursive: true })
    git(nested, 'init', '-q')
    writeFileSync(path.join(nested, 'x'), 'x\n')
    git(nested, 'add', '.')
    git(nested, 'commit', '-qm', 'n')
    git(r.worker, 'add', 'vendor/nested')
    git(r.worker, 'commit', '-qm', 'gitlink')
    const checked = await checkSealed(r.repo, r.bundle(), { branch: 'fleet/t', start: r.start })
    expect(checked.kind).toBe('refused')
    if (checked.kind === 'refused') expect(checked.reason).toContain('vendor/nested')
  })

  it('refuses a .gitmodules change even without a gitlink', async () => {
    const r = repos()
    writeFileSync(path.join(r.worker, '.gitmodules'), '[submodule "x"]\n\tpath = x\n\turl = ../x\n')
    git(r.worker, 'add', '.')
    git(r.worker, 'commit', '-qm', 'modules')
    const checked = await checkSealed(r.repo, r.bundle(), { branch: 'fleet/t', start: r.start })
    expect(reasonOf(checked)).toContain('.gitmodules')
  })

  it('refuses history that does not descend from the start commit', async () => {
    const r = repos()
    git(r.worker, 'checkout', '-q', '--orphan', 'other')
    git(r.worker, 'commit', '-qm', 'foreign root')
    git(r.worker, 'branch', '-qf', 'fleet/t', 'other')
    const file = path.join(r.root, 'foreign.bundle')
    git(r.worker, 'bundle', 'create', '-q', file, 'fleet/t')
    const checked = await checkSealed(r.repo, file, { branch: 'fleet/t', start: r.start })
    expect(reasonOf(checked)).toMatch(/do not descend/)
  })

  it('refuses a bundle with another branch, or more than one', async () => {
    const r = repos()
    git(r.worker, 'commit', '-q', '--allow-empty', '-m', 'w')
    git(r.worker, 'branch', 'main2')
    const other = path.join(r.root, 'other.bundle')
    git(r.worker, 'bundle', 'create', '-q', other, 'main2', `^${r.start}`)
    expect(
      reasonOf(await checkSealed(r.repo, other, { branch: 'fleet/t', start: r.start }))
    ).toContain('refs/heads/main2')
    const two = path.join(r.root, 'two.bundle')
    git(r.worker, 'bundle', 'create', '-q', two, 'fleet/t', 'main2', `^${r.start}`)
    expect((await checkSealed(r.repo, two, { branch: 'fleet/t', start: r.start })).kind).toBe(
      'refused'
    )
  })

  it('refuses past the commit cap, and a file that is no bundle', async () => {
    const r = repos()
    for (let i = 0; i < 3; i++) git(r.worker, 'commit', '-q', '--allow-empty', '-m', `c${i}`)
    const caps = { maxBytes: 1 << 20, maxCommits: 2 }
    expect(
      reasonOf(await checkSealed(r.repo, r.bundle(), { branch: 'fleet/t', start: r.start, caps }))
    ).toContain('over the cap of 2')
    const junk = path.join(r.root, 'junk.bundle')
    writeFileSync(junk, 'not a bundle\n')
    expect((await checkSealed(r.repo, junk, { branch: 'fleet/t', start: r.start })).kind).toBe(
      'refused'
    )
  })

  it("refuses a bundle made against commits the fleet's clone lacks, naming the missing object", async () => {
    const r = repos()
    git(r.worker, 'commit', '-q', '--allow-empty', '-m', 'only the worker has this')
    const missing = git(r.worker, 'rev-parse', 'HEAD')
    git(r.worker, 'commit', '-q', '--allow-empty', '-m', 'on top')
    const checked = await checkSealed(r.repo, r.bundle('fleet/t', `^${missing}`), {
      branch: 'fleet/t',
      start: r.start
    })
    expect(reasonOf(checked)).toMatch(/not a valid bundle of this repository: it needs objects/)
    expect(reasonOf(checked)).toContain(missing)
  })

  // A worker's git writes what it is told: `hash-object --literally` and `mktree` make objects
  // git's fsck refuses. A `git fetch` of the bundle let both in here (git 2.39, fetch.fsckObjects
  // set): the check's own index-pack --strict is what refuses them.
  it("refuses objects git's fsck finds broken: a malformed committer, a tree naming .git", async () => {
    const r = repos()
    const tree = git(r.worker, 'rev-parse', 'HEAD^{tree}')
    const commit = (body: string) =>
      gitWithInput(r.worker, body, 'hash-object', '-t', 'commit', '-w', '--literally', '--stdin')
    const malformed = commit(
      `tree ${tree}\nparent ${r.start}\nauthor w <w@example.com> 1 +0000\ncommitter w<<x> 1 +0000\n\nm\n`
    )
    const blob = gitWithInput(r.worker, 'hook\n', 'hash-object', '-w', '--stdin')
    // `.git` itself, and the names Windows (8.3) and macOS (case, an ignorable code point) read as it.
    const planted = ['.git', '.GIT', 'git~1', '.g\u200cit'].map(name =>
      commit(
        `tree ${gitWithInput(r.worker, `100644 blob ${blob}\t${name}\n`, 'mktree')}\nparent ${r.start}\nauthor w <w@example.com> 1 +0000\ncommitter w <w@example.com> 1 +0000\n\nm\n`
      )
    )
    for (const [head, complaint] of [
      [malformed, 'missingSpaceBeforeEmail'],
      ...planted.map(p => [p, 'hasDotgit'] as const)
    ] as const) {
      git(r.worker, 'update-ref', 'refs/heads/fleet/t', head)
      const checked = await checkSealed(r.repo, r.bundle(), { branch: 'fleet/t', start: r.start })
      expect(reasonOf(checked), head).toMatch(/failed git's object checks/)
      expect(reasonOf(checked), head).toContain(complaint)
    }
  })

  it("accepts a change to a repository whose history holds a tree fsck now flags: only the pack's own objects are checked", async () => {
    const { root, fleet } = baseRepo('fleet-sealed-legacy-')
    // A 200-entry tree as old tools wrote it (zero-padded modes): fsck warns, strict fsck refuses.
    const entries = Array.from({ length: 200 }, (_, i) => {
      const name = `f${String(i).padStart(3, '0')}`
      const blob = gitWithInput(fleet, `file ${i}\n`, 'hash-object', '-w', '--stdin')
      return Buffer.concat([Buffer.from(`0100644 ${name}\0`), Buffer.from(blob, 'hex')])
    })
    const raw = path.join(root, 'legacy.tree')
    writeFileSync(raw, Buffer.concat(entries))
    const tree = git(fleet, 'hash-object', '-t', 'tree', '-w', '--literally', raw)
    expect(() =>
      git(fleet, '-c', 'fsck.zeroPaddedFilemode=error', 'fsck', '--no-dangling')
    ).toThrow(/zeroPaddedFilemode/)
    const start = git(fleet, 'commit-tree', tree, '-m', 'legacy')
    git(fleet, 'update-ref', 'refs/heads/main', start)
    const worker = path.join(root, 'worker')
    git(root, 'clone', '-q', fleet, worker)
    git(worker, 'checkout', '-qb', 'fleet/t')
    writeFileSync(path.join(worker, 'f005'), 'changed\n')
    git(worker, 'commit', '-qam', 'work')
    const file = path.join(root, 'legacy.bundle')
    git(worker, 'bundle', 'create', '-q', file, 'fleet/t', `^${start}`)
    const checked = await checkSealed(Git.create(fleet), file, { branch: 'fleet/t', start })
    expect(checked).toMatchObject({ kind: 'accepted', commits: 1 })
    // The worker's new tree came as a delta of the legacy one, which --fix-thin appended.
    const packs = path.join(fleet, '.git', 'objects', 'pack')
    const idx = readdirSync(packs).filter(f => f.endsWith('.idx'))
    expect(idx).toHaveLength(1)
    expect(git(fleet, 'verify-pack', '-v', path.join(packs, idx[0] ?? ''))).toContain(tree)
  })

  it('refuses a head that is no commit (a tree, a tag, an object nowhere) with a sentence', async () => {
    const r = repos()
    commitFile(r.worker, 'b.txt', 'work')
    const bytes = readFileSync(r.bundle())
    const pack = bytes.subarray(bytes.indexOf('\n\n') + 2)
    git(r.worker, 'tag', '-a', '-m', 'tag', 'v1')
    const tag = git(r.worker, 'rev-parse', 'v1')
    git(r.worker, 'bundle', 'create', '-q', path.join(r.root, 'tag.bundle'), 'v1', `^${r.start}`)
    const tagged = readFileSync(path.join(r.root, 'tag.bundle'))
    for (const [head, from] of [
      [git(r.worker, 'rev-parse', 'HEAD^{tree}'), pack],
      [tag, tagged.subarray(tagged.indexOf('\n\n') + 2)],
      ['1'.repeat(40), pack]
    ] as const) {
      const file = path.join(r.root, `${Math.random().toString(36).slice(2)}.bundle`)
      writeFileSync(
        file,
        Buffer.concat([
          Buffer.from(`# v2 git bundle\n-${r.start}\n${head} refs/heads/fleet/t\n\n`),
          from
        ])
      )
      for (const merge of [undefined, r.start]) {
        const checked = await checkSealed(r.repo, file, {
          branch: 'fleet/t',
          start: r.start,
          merge
        })
        expect(reasonOf(checked), head).toMatch(
          new RegExp(`head ${head.slice(0, 12)} is not a commit of this repository`)
        )
      }
    }
  })

  it('refuses a header git would read differently, with no git process run', async () => {
    const r = repos()
    git(r.worker, 'commit', '-q', '--allow-empty', '-m', 'w')
    const head = git(r.worker, 'rev-parse', 'HEAD')
    const bytes = readFileSync(r.bundle())
    const pack = bytes.subarray(bytes.indexOf('\n\n') + 2)
    for (const header of [
      `# v2 git bundle\n${head} refs/heads/fleet/t refs/heads/main\n\n`,
      `# v2 git bundle\n${head} refs/heads/fleet/t\r\n\n`,
      `# v3 git bundle\n@filter=blob:none\n${head} refs/heads/fleet/t\n\n`
    ]) {
      const file = path.join(r.root, `${Math.random().toString(36).slice(2)}.bundle`)
      writeFileSync(file, Buffer.concat([Buffer.from(header), pack]))
      expect(
        reasonOf(await checkSealed(r.repo, file, { branch: 'fleet/t', start: r.start }))
      ).toMatch(/not a valid bundle/)
    }
  })

  it('reads start..head once: a merge of older history descends, a message posing as a gitlink is a message, the history comes back for the rewrite, and no ref is left', async () => {
    const r = repos()
    // History older than the start commit, merged in on the task's branch.
    git(r.fleet, 'checkout', '-q', '--orphan', 'old')
    git(r.fleet, 'commit', '-q', '--allow-empty', '-m', 'old root')
    git(r.fleet, 'checkout', '-q', 'main')
    git(r.fleet, 'merge', '-q', '--allow-unrelated-histories', '-m', 'merge old', 'old')
    const start = git(r.fleet, 'rev-parse', 'HEAD')
    git(r.worker, 'pull', '-q', '--no-rebase', r.fleet, 'main')
    git(
      r.worker,
      'commit',
      '-q',
      '--allow-empty',
      '-m',
      `posing\n:000000 160000 ${'0'.repeat(40)} ${'1'.repeat(40)} A\tvendor/x`
    )
    const head = git(r.worker, 'rev-parse', 'HEAD')
    const checked = await checkSealed(r.repo, r.bundle('fleet/t', `^${start}`), {
      branch: 'fleet/t',
      start
    })
    expect(checked).toMatchObject({ kind: 'accepted', head, commits: 1 })
    if (checked.kind !== 'accepted') return
    expect(checked.history?.map(c => c.sha)).toEqual([head])
    expect(checked.history?.[0]?.message).toContain('vendor/x')
    expect(git(r.fleet, 'for-each-ref', '--format=%(refname)')).not.toContain('fleet-sealed')
    // A root commit of its own on top: foreign history is refused even beside the start's child.
    git(r.worker, 'checkout', '-q', '--orphan', 'stranger')
    git(r.worker, 'commit', '-q', '--allow-empty', '-m', 'stranger')
    git(r.worker, 'checkout', '-q', 'fleet/t')
    git(r.worker, 'merge', '-q', '--allow-unrelated-histories', '-m', 'join', 'stranger')
    const joined = await checkSealed(r.repo, r.bundle('fleet/t', `^${start}`), {
      branch: 'fleet/t',
      start
    })
    // Still descends (the start is an ancestor through its child): accepted, three commits.
    expect(joined).toMatchObject({ kind: 'accepted', commits: 3 })
  })
})

describe('readSealed: the file is read as bytes, never followed', () => {
  const dir = () => mkdtempSync(path.join(tmpdir(), 'fleet-read-'))

  it('copies a regular file, and says when there is none', async () => {
    const d = dir()
    writeFileSync(path.join(d, 'in'), 'bytes')
    expect(await readSealed(path.join(d, 'in'), path.join(d, 'out', 'copy'), 100)).toBe(
      path.join(d, 'out', 'copy')
    )
    expect(await readSealed(path.join(d, 'missing'), path.join(d, 'x'), 100)).toBeUndefined()
  })

  it('copies the same bytes, small (at once) or large (through the pool), only to a new file of the action', async () => {
    const d = dir()
    for (const [name, size] of [
      ['small', 3000],
      ['large', 5 * 1024 * 1024]
    ] as const) {
      const bytes = Buffer.alloc(size, name)
      writeFileSync(path.join(d, name), bytes)
      const copy = path.join(d, 'out', name)
      expect(await readSealed(path.join(d, name), copy, 10 * 1024 * 1024)).toBe(copy)
      expect(readFileSync(copy).equals(bytes), name).toBe(true)
      expect(statSync(copy).mode & 0o777, name).toBe(0o600)
      // A file already at the copy's path is never written over.
      await expect(readSealed(path.join(d, name), copy, 10 * 1024 * 1024)).rejects.toThrow(/EEXIST/)
    }
  })

  it('refuses a symlink (to a secret of the runner, say), a directory and an oversized file', async () => {
    const d = dir()
    writeFileSync(path.join(d, 'secret'), 'token')
    symlinkSync(path.join(d, 'secret'), path.join(d, 'link'))
    await expect(readSealed(path.join(d, 'link'), path.join(d, 'a'), 100)).rejects.toThrow(
      /symlink/
    )
    mkdirSync(path.join(d, 'dir'))
    await expect(readSealed(path.join(d, 'dir'), path.join(d, 'b'), 100)).rejects.toThrow(
      /not a regular file/
    )
    writeFileSync(path.join(d, 'big'), 'x'.repeat(101))
    await expect(readSealed(path.join(d, 'big'), path.join(d, 'c'), 100)).rejects.toThrow(
      /over the cap/
    )
  })
})

describe('commit messages that would act once merged', () => {
  it('are made inert; a plain message is left as written', () => {
    for (const live of [
      'Fixes #1',
      'closes owner/repo#2',
      'resolves https://github.com/o/r/issues/3',
      'fix: GH-4',
      'thanks @octocat',
      'Resolved:  #5'
    ])
      expect(inertCommitMessage(live), live).not.toBe(live)
    expect(inertCommitMessage('Fixes #1')).toBe('F\u200bixes #\u200b1')
    for (const plain of ['Fix the parser', 'Close the file handle', 'issue #12 was about this'])
      expect(inertCommitMessage(plain), plain).toBe(plain)
  })

  // Forms GitHub may honour beyond its documented list (issue 38, item 5).
  const KEYWORD = /(?<![\p{L}\p{N}])(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?)(?![\p{L}\p{N}])/iu
  it.each([
    'fixes:#1',
    'Closes:owner/repo#7',
    'fixes https://github.com/o/r/issues/1',
    'Fixes github.com/o/r/issues/1',
    'resolves <https://github.com/o/r/pull/9>',
    '**fixes** #1',
    '_closes_ #2',
    '__Resolved__: #3',
    '*fix*:#4',
    'fix: **#4**',
    'Tidy up.\n\n~~closes~~ GH-5'
  ])('%j comes out with its closing keyword broken', live => {
    const out = inertCommitMessage(live)
    expect(out).not.toBe(live)
    expect(out).not.toMatch(KEYWORD)
    expect(out.replace(/\u200b/g, '')).toBe(live)
  })

  it('leaves words that only contain a keyword, and keywords naming nothing, as written', () => {
    for (const plain of ['Add prefixes: 12 of them', 'fix_ups: #', 'Fixed the build, see the log'])
      expect(inertCommitMessage(plain), plain).toBe(plain)
  })

  it('are rewritten in place in history, trees and authors kept', async () => {
    const r = repos()
    commitFile(r.worker, 'b.txt', 'Fixes #1')
    git(r.worker, 'commit', '-q', '--allow-empty', '-m', 'plain')
    await checkSealed(r.repo, r.bundle(), { branch: 'fleet/t', start: r.start })
    const head = git(r.worker, 'rev-parse', 'HEAD')
    const moved = await rewriteMessages(r.repo, r.start, head, inertCommitMessage)
    expect(moved).not.toBe(head)
    expect(git(r.fleet, 'log', '--format=%s', `${r.start}..${moved}`).split('\n')).toEqual([
      'plain',
      'F\u200bixes #\u200b1'
    ])
    expect(git(r.fleet, 'rev-parse', `${moved}^{tree}`)).toBe(
      git(r.worker, 'rev-parse', 'HEAD^{tree}')
    )
    expect(git(r.fleet, 'log', '-1', '--format=%an %ae', moved)).toBe('w w@example.com')
    expect(await rewriteMessages(r.repo, r.start, moved, inertCommitMessage)).toBe(moved)
  })
})

describe('submodulePaths', () => {
  it('reads added gitlinks and .gitmodules from raw diff lines', () => {
    const z = '0'.repeat(40)
    const raw = [
      `:000000 160000 ${z} ${'a'.repeat(40)} A\tlib/x`,
      `:160000 160000 ${'b'.repeat(40)} ${'c'.repeat(40)} M\tkept`,
      `:100644 100644 ${'d'.repeat(40)} ${'e'.repeat(40)} M\t.gitmodules`,
      `:100644 100644 ${'d'.repeat(40)} ${'e'.repeat(40)} M\tsrc/a.ts`
    ].join('\n')
    expect(submodulePaths(raw)).toEqual(['lib/x', '.gitmodules'])
  })
})
