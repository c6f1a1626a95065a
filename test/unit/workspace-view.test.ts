// git/workspace-view.ts on real repositories: the workspace's checkout is a view's lower layer only
// when it is exactly the start commit's files; each way it can differ is refused, with why.
import { execFile } from 'node:child_process'
import { lstat, mkdir, mkdtemp, readFile, rm, utimes, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { withViews } from '../../src/cage/views.js'
import { UNCHANGED_HOOK } from '../../src/git/fsmonitor.js'
import { Git } from '../../src/git/git.js'
import { indexSizes, workspaceLayer } from '../../src/git/workspace-view.js'

const exec = promisify(execFile)
const ENV = {
  PATH: process.env.PATH ?? '/usr/bin:/bin',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 't',
  GIT_AUTHOR_EMAIL: 't@t',
  GIT_COMMITTER_NAME: 't',
  GIT_COMMITTER_EMAIL: 't@t'
}
const git = async (cwd: string, ...args: string[]) =>
  (await exec('git', args, { cwd, env: ENV })).stdout.trim()

let root: string
let ws: string
let fleet: Git
let sha: string

beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'fleet-wsview-'))
  ws = path.join(root, 'ws')
  await mkdir(path.join(ws, 'src'), { recursive: true })
  await writeFile(path.join(ws, '.gitignore'), '*.env\n')
  await writeFile(path.join(ws, 'src', 'a.txt'), 'a\n')
  await git(ws, 'init', '-q')
  await git(ws, 'add', '-A')
  await git(ws, 'commit', '-qm', 'base')
  sha = await git(ws, 'rev-parse', 'HEAD')
  // The fleet's clone: the same objects, its own git dir (the workspace's is never its GIT_DIR).
  const clone = path.join(root, 'fleet')
  await exec('git', ['clone', '-q', '--no-checkout', ws, clone], { env: ENV })
  fleet = Git.create(clone, ENV)
})
afterEach(async () => {
  await rm(root, { recursive: true, force: true })
})

const layer = () => workspaceLayer(fleet, ws, sha, path.join(root, 'layer'))

describe("the workspace's checkout as a view's lower layer", () => {
  it('is taken when it is exactly the commit: its index copied and marked, a `.git` file to hide its own', async () => {
    const got = await layer()
    const index = path.join(root, 'layer', 'index')
    expect(got).toEqual({ dir: ws, index, hide: path.join(root, 'layer', 'hide'), fsmonitor: true })
    // Every entry of the copy marked unchanged for the views' git (`ls-files -f`: lower case).
    const { stdout } = await exec(
      'git',
      ['-c', `core.fsmonitor=${UNCHANGED_HOOK}`, 'ls-files', '-f'],
      { cwd: ws, env: { ...ENV, GIT_INDEX_FILE: index } }
    )
    expect(stdout).toBe('h .gitignore\nh src/a.txt\n')
    const marker = await lstat(path.join(root, 'layer', 'hide', '.git'))
    expect(marker.isFile() && marker.size === 0 && (marker.mode & 0o777) === 0).toBe(true)
  })

  it('is refused with an ignored file in it', async () => {
    await writeFile(path.join(ws, 'secret.env'), 'KEY=1\n')
    expect(await layer()).toEqual({
      why: 'it holds files the commit does not (untracked or ignored)'
    })
  })

  it('is refused with a nested .git below its top', async () => {
    await mkdir(path.join(ws, 'src', '.git'))
    await writeFile(path.join(ws, 'src', '.git', 'config'), '[http]\n\textraheader = x\n')
    expect(await layer()).toEqual({
      why: 'it holds files the commit does not (untracked or ignored)'
    })
  })

  it('is refused when a tracked file changed or went', async () => {
    await writeFile(path.join(ws, 'src', 'a.txt'), 'changed\n')
    expect(await layer()).toEqual({ why: 'a file changed since it was checked out' })
    await rm(path.join(ws, 'src', 'a.txt'))
    expect(await layer()).toEqual({ why: 'a file changed since it was checked out' })
  })

  it('is refused when its index is not the commit', async () => {
    await writeFile(path.join(ws, 'b.txt'), 'b\n')
    await git(ws, 'add', 'b.txt')
    expect(await layer()).toEqual({ why: 'its index is not the commit' })
  })

  it('is refused when a file is marked assume-unchanged', async () => {
    await git(ws, 'update-index', '--assume-unchanged', 'src/a.txt')
    expect(await layer()).toEqual({
      why: 'its index marks files assume-unchanged or skip-worktree'
    })
  })

  it('is refused for a sparse checkout, submodules or LFS', async () => {
    await mkdir(path.join(ws, '.git', 'lfs'))
    expect(await layer()).toEqual({ why: 'it has an LFS store' })
    await mkdir(path.join(ws, '.git', 'info'), { recursive: true })
    await writeFile(path.join(ws, '.git', 'info', 'sparse-checkout'), '/*\n')
    expect(await layer()).toEqual({ why: 'it is a sparse checkout' })
  })

  it("is refused when checkout converted a file (its size is not its blob's)", async () => {
    // autocrlf writes CRLF on checkout: the index's stat data match the file, not the blob.
    await git(ws, 'config', 'core.autocrlf', 'true')
    await rm(path.join(ws, 'src', 'a.txt'))
    await git(ws, 'checkout', '--', 'src/a.txt')
    expect(await readFile(path.join(ws, 'src', 'a.txt'), 'utf8')).toBe('a\r\n')
    expect(await git(ws, 'diff-files', '--name-only')).toBe('')
    // The index written well after the file, so no entry is racy: git trusts its stat data (else
    // the fleet's git, which converts nothing, would read the file and call it changed).
    const later = new Date(Date.now() + 10_000)
    await utimes(path.join(ws, '.git', 'index'), later, later)
    expect(await layer()).toEqual({
      why: 'a file differs in size from its blob (converted on checkout?)'
    })
  })

  it('is refused with a FIFO in it (find lists it by type, stats nothing)', async () => {
    await exec('mkfifo', [path.join(ws, 'src', 'pipe')])
    expect(await layer()).toEqual({
      why: 'it holds files the commit does not (untracked or ignored)'
    })
  })

  it('is taken with an index of version 4 (paths prefix-compressed), refused when split', async () => {
    await mkdir(path.join(ws, 'src', 'deeper'))
    await writeFile(path.join(ws, 'src', 'deeper', 'b.txt'), 'bb\n')
    await git(ws, 'add', '-A')
    await git(ws, 'commit', '-qm', 'two')
    sha = await git(ws, 'rev-parse', 'HEAD')
    await git(fleet.dir, 'fetch', '-q', 'origin', sha)
    await git(ws, 'update-index', '--index-version', '4')
    expect(await layer()).toHaveProperty('dir', ws)
    await git(ws, 'update-index', '--split-index')
    expect(indexSizes(await readFile(path.join(ws, '.git', 'index')), 20)).toBeUndefined()
    expect(await layer()).toHaveProperty('why')
  })

  it("is refused where overlayfs could not take its path (',' or ':')", async () => {
    expect(await workspaceLayer(fleet, '/a:b', sha, path.join(root, 'layer'))).toEqual({
      why: "its path has ',', ':', '\\' or a newline"
    })
  })
})

describe('a view with a hiding layer', () => {
  it('mounts it above the lower layer (overlayfs: the higher one first)', () => {
    const view = { lower: '/ws', hide: '/t/hide', at: '/t/at', upper: '/t/up', work: '/t/wk' }
    const cmd = withViews('/usr/bin/unshare', [view], { file: 'true', args: [] })
    expect(cmd.args).toContain('/t/hide:/ws')
  })

  it('refuses a private layer inside the hiding layer', () => {
    const view = { lower: '/ws', hide: '/t/hide', at: '/t/at', upper: '/t/hide/up', work: '/t/wk' }
    expect(() => withViews('/usr/bin/unshare', [view], { file: 'true', args: [] })).toThrow(
      /must lie outside/
    )
  })
})

describe("an index file's sizes as checked out (indexSizes)", () => {
  it.each([2, 3, 4])('reads version %i as git does (ls-files --debug)', async version => {
    await writeFile(path.join(ws, 'src', 'b.txt'), 'bbb\n')
    await mkdir(path.join(ws, 'src', 'sub'))
    await writeFile(path.join(ws, 'src', 'sub', 'c.txt'), 'c'.repeat(5000))
    await git(ws, 'add', '-A')
    // Version 3 only when an entry needs the extended flags (here: skip-worktree).
    if (version === 3) await git(ws, 'update-index', '--skip-worktree', 'src/b.txt')
    await git(ws, 'update-index', '--index-version', String(version))
    const data = await readFile(path.join(ws, '.git', 'index'))
    expect(data.readUInt32BE(4)).toBe(version)
    const debug = await git(ws, 'ls-files', '--debug')
    const want = new Map<string, number>()
    for (const m of debug.matchAll(/^(\S[^\n]*)\n(?: {2}[^\n]*\n)*? {2}size: (\d+)/gm))
      want.set(m[1] ?? '', Number(m[2]))
    expect(want.size).toBe(4)
    expect(indexSizes(data, 20)).toEqual(want)
  })

  it('refuses what is not an index, or one cut short', () => {
    expect(indexSizes(Buffer.from('not an index at all'), 20)).toBeUndefined()
    const cut = Buffer.alloc(40)
    cut.write('DIRC', 0, 'latin1')
    cut.writeUInt32BE(2, 4)
    cut.writeUInt32BE(3, 8)
    expect(indexSizes(cut, 20)).toBeUndefined()
  })
})
