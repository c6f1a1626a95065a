import { execFileSync } from 'node:child_process'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  extraheaderValue,
  gitTestEnv,
  makeWorkspace,
  runGit,
  startGitRemote,
  type GitRemote
} from '../../demo/git-remote.js'

const TOKEN = 'ghs_test_token_123'
const READ_ONLY = 'ghs_test_read_only_456'

let remote: GitRemote
let tmp: string
let env: NodeJS.ProcessEnv

beforeAll(async () => {
  remote = await startGitRemote({ token: TOKEN, tokens: { [READ_ONLY]: 'read' } })
  tmp = await mkdtemp(join(tmpdir(), 'git-remote-test-'))
  env = gitTestEnv(join(tmp, 'home'))
})

afterAll(async () => {
  await remote.close()
  await rm(tmp, { recursive: true, force: true })
})

const git = (args: string[], cwd = tmp) => runGit(args, cwd, env)
const withHeader = (value: string) => ['-c', `http.extraheader=${value}`]

async function commitFile(dir: string, file: string, content: string, message: string) {
  await writeFile(join(dir, file), content)
  expect((await git(['add', file], dir)).exitCode).toBe(0)
  expect((await git(['commit', '-q', '-m', message], dir)).exitCode).toBe(0)
}

describe('git remote', () => {
  it('clones with the token as Basic x-access-token or as Bearer', async () => {
    const url = await remote.createRepo('acme/clone', { files: { 'a.txt': 'hello\n' } })
    expect(url).toBe(`${remote.url}acme/clone.git`)

    const basic = await git([...withHeader(extraheaderValue(TOKEN)), 'clone', '-q', url, 'c1'])
    expect(basic.stderr).toBe('')
    expect(basic.exitCode).toBe(0)
    expect(await readFile(join(tmp, 'c1', 'a.txt'), 'utf8')).toBe('hello\n')

    const bearer = await git([
      ...withHeader(`Authorization: Bearer ${TOKEN}`),
      'clone',
      '-q',
      url,
      'c2'
    ])
    expect(bearer.exitCode).toBe(0)

    const inUrl = url.replace('http://', `http://x-access-token:${TOKEN}@`)
    expect((await git(['clone', '-q', inUrl, 'c3'])).exitCode).toBe(0)
  })

  it('accepts a push with the right token and shows it in branches, readFile and log', async () => {
    const url = await remote.createRepo('acme/push')
    const header = withHeader(extraheaderValue(TOKEN))
    expect((await git([...header, 'clone', '-q', url, 'p1'])).exitCode).toBe(0)
    const dir = join(tmp, 'p1')
    await commitFile(dir, 'new.txt', 'pushed\n', 'Add new.txt\n\nBody line one.\nBody line two.')
    const push = await git([...header, 'push', '-q', 'origin', 'HEAD:refs/heads/fleet/one'], dir)
    expect(push.stderr).toBe('')
    expect(push.exitCode).toBe(0)

    const head = (await git(['rev-parse', 'HEAD'], dir)).stdout.trim()
    const branches = await remote.branches('acme/push')
    expect(Object.keys(branches).sort()).toEqual(['fleet/one', 'main'])
    expect(branches['fleet/one']).toBe(head)
    expect(branches.main).toMatch(/^[0-9a-f]{40}$/)
    expect(branches.main).not.toBe(head)
    expect(await remote.readFile('acme/push', 'fleet/one', 'new.txt')).toBe('pushed\n')
    expect(await remote.readFile('acme/push', 'main', 'new.txt')).toBeUndefined()
    const onDisk = await git(['rev-parse', 'refs/heads/fleet/one'], remote.repoPath('acme/push'))
    expect(onDisk.stdout.trim()).toBe(head)
    const [top, initial] = await remote.log('acme/push', 'fleet/one')
    expect(top).toEqual({
      sha: head,
      subject: 'Add new.txt',
      body: 'Body line one.\nBody line two.',
      author: 'Fleet Test <fleet-test@example.com>'
    })
    expect(initial?.subject).toBe('Initial commit')
    const receive = remote.requests.filter(
      r => r.service === 'git-receive-pack' && r.method === 'POST'
    )
    expect(receive.at(-1)).toMatchObject({
      path: '/acme/push.git/git-receive-pack',
      authorized: true
    })
  })

  it("refuses, as GitHub does, a push whose objects fail git's fsck (a tree naming .git)", async () => {
    const url = await remote.createRepo('acme/fsck')
    const header = withHeader(extraheaderValue(TOKEN))
    expect((await git([...header, 'clone', '-q', url, 'fsck1'])).exitCode).toBe(0)
    const dir = join(tmp, 'fsck1')
    const withInput = (args: string[], input: string) =>
      execFileSync('git', args, { cwd: dir, env, input, encoding: 'utf8' }).trim()
    const blob = withInput(['hash-object', '-w', '--stdin'], 'hook\n')
    const tree = withInput(['mktree'], `100644 blob ${blob}\t.git\n`)
    const commit = (
      await git(['commit-tree', tree, '-p', 'HEAD', '-m', 'planted'], dir)
    ).stdout.trim()
    const push = await git([...header, 'push', 'origin', `${commit}:refs/heads/fleet/planted`], dir)
    expect(push.exitCode).not.toBe(0)
    expect(push.stderr).toMatch(/hasDotgit/)
    expect((await remote.branches('acme/fsck'))['fleet/planted']).toBeUndefined()
  })

  it('refuses a wrong or absent token with 401, and git fails fast without prompting', async () => {
    const url = await remote.createRepo('acme/private')
    const before = remote.requests.length
    for (const args of [
      [...withHeader(extraheaderValue('wrong')), 'clone', '-q', url, 'x1'],
      ['clone', '-q', url, 'x2'],
      ['ls-remote', url.replace('http://', 'http://x-access-token:nope@')]
    ]) {
      const started = performance.now()
      const r = await git(args)
      expect(r.exitCode).not.toBe(0)
      expect(performance.now() - started).toBeLessThan(5000)
      expect(r.stderr).toMatch(/terminal prompts disabled|Authentication failed/)
    }
    const seen = remote.requests.slice(before)
    expect(seen.length).toBeGreaterThanOrEqual(3)
    expect(seen.every(r => !r.authorized)).toBe(true)
  })

  it('lets a read-only token fetch, and refuses its push with the 403 GitHub sends', async () => {
    const url = await remote.createRepo('acme/read-only', { files: { 'a.txt': 'a\n' } })
    const readHeader = withHeader(extraheaderValue(READ_ONLY))
    expect((await git([...readHeader, 'clone', '-q', url, 'ro'])).exitCode).toBe(0)
    const dir = join(tmp, 'ro')
    expect((await git([...readHeader, 'fetch', 'origin'], dir)).exitCode).toBe(0)
    await commitFile(dir, 'b.txt', 'b\n', 'Add b')
    const before = remote.refused.length
    const push = await git([...readHeader, 'push', 'origin', 'HEAD:refs/heads/fleet/ro'], dir)
    expect(push.exitCode).toBe(128)
    expect(push.stderr).toContain(
      'remote: Permission to acme/read-only.git denied to github-actions[bot].'
    )
    expect(push.stderr).toMatch(
      /fatal: unable to access '[^']+': The requested URL returned error: 403/
    )
    expect(remote.refused.slice(before)).toEqual([
      expect.objectContaining({ service: 'git-receive-pack', permission: 'read' })
    ])
    expect(Object.keys(await remote.branches('acme/read-only'))).toEqual(['main'])
    // The same commit with the write token lands: the refusal was the token's, not the push's.
    const write = withHeader(extraheaderValue(TOKEN))
    expect(
      (await git([...write, 'push', '-q', 'origin', 'HEAD:refs/heads/fleet/ro'], dir)).exitCode
    ).toBe(0)
    expect(remote.refused.length).toBe(before + 1)
  })

  it('lets a pre-receive hook reject one branch while another lands', async () => {
    const url = await remote.createRepo('acme/hooked')
    await remote.setPreReceive(
      'acme/hooked',
      `while read old new ref; do
  if [ "$ref" = refs/heads/fleet/bad ]; then
    echo "GH006: Protected branch update failed for $ref." >&2
    exit 1
  fi
done`
    )
    const header = withHeader(extraheaderValue(TOKEN))
    expect((await git([...header, 'clone', '-q', url, 'h1'])).exitCode).toBe(0)
    const dir = join(tmp, 'h1')
    await commitFile(dir, 'x.txt', 'x\n', 'Change x')

    const bad = await git([...header, 'push', 'origin', 'HEAD:refs/heads/fleet/bad'], dir)
    expect(bad.exitCode).not.toBe(0)
    expect(bad.stderr).toContain(
      'remote: GH006: Protected branch update failed for refs/heads/fleet/bad.'
    )
    expect(bad.stderr).toContain('pre-receive hook declined')

    const good = await git([...header, 'push', 'origin', 'HEAD:refs/heads/fleet/good'], dir)
    expect(good.exitCode).toBe(0)
    expect(Object.keys(await remote.branches('acme/hooked')).sort()).toEqual(['fleet/good', 'main'])
  })

  it('answers 503 to everything while down, and recovers', async () => {
    const url = await remote.createRepo('acme/flaky')
    const header = withHeader(extraheaderValue(TOKEN))
    expect((await git([...header, 'clone', '-q', url, 'f1'])).exitCode).toBe(0)
    const dir = join(tmp, 'f1')
    remote.setDown(true)
    try {
      const fetch = await git([...header, 'fetch', 'origin'], dir)
      expect(fetch.exitCode).not.toBe(0)
      expect(fetch.stderr).toContain('503')
    } finally {
      remote.setDown(false)
    }
    expect((await git([...header, 'fetch', 'origin'], dir)).exitCode).toBe(0)
  })
})

describe('makeWorkspace', () => {
  it('leaves the workspace as actions/checkout does, and its persisted token can push', async () => {
    const url = await remote.createRepo('acme/ws', { files: { 'src/app.ts': 'export {}\n' } })
    const ws = await makeWorkspace(url, TOKEN, { dir: join(tmp, 'ws') })
    const config = await readFile(join(ws, '.git', 'config'), 'utf8')
    expect(config).toContain(`[http "${remote.url}"]`)
    expect(config).toContain(`extraheader = ${extraheaderValue(TOKEN)}`)
    expect((await git(['remote', 'get-url', 'origin'], ws)).stdout.trim()).toBe(url)
    expect((await git(['symbolic-ref', 'HEAD'], ws)).stdout.trim()).toBe('refs/heads/main')
    expect((await git(['rev-parse', '--abbrev-ref', 'main@{upstream}'], ws)).stdout.trim()).toBe(
      'origin/main'
    )
    expect((await git(['rev-parse', '--is-shallow-repository'], ws)).stdout.trim()).toBe('true')
    expect(await readFile(join(ws, 'src', 'app.ts'), 'utf8')).toBe('export {}\n')

    // No header on the command line: only what checkout persisted authenticates this push.
    await commitFile(ws, 'b.txt', 'b\n', 'Add b')
    const push = await git(['push', '-q', 'origin', 'HEAD:refs/heads/fleet/from-ws'], ws)
    expect(push.stderr).toBe('')
    expect(push.exitCode).toBe(0)
    expect(await remote.readFile('acme/ws', 'fleet/from-ws', 'b.txt')).toBe('b\n')
  })

  it('detaches on request, and with includeIf credentials a worktree can push too', async () => {
    const url = await remote.createRepo('acme/ws6')
    const credentialsDir = join(tmp, 'runner-temp')
    const ws = await makeWorkspace(url, TOKEN, {
      dir: join(tmp, 'ws6'),
      detach: true,
      credentials: 'includeIf',
      credentialsDir
    })
    const config = await readFile(join(ws, '.git', 'config'), 'utf8')
    expect(config).not.toContain('extraheader')
    expect(config).toContain(`[includeIf "gitdir:${ws}/.git/worktrees/*"]`)
    expect((await git(['symbolic-ref', '-q', 'HEAD'], ws)).exitCode).not.toBe(0)

    expect(
      (await git(['worktree', 'add', '-q', '-b', 'fleet/wt', join(tmp, 'wt')], ws)).exitCode
    ).toBe(0)
    await commitFile(join(tmp, 'wt'), 'w.txt', 'w\n', 'From a worktree')
    const push = await git(['push', '-q', 'origin', 'fleet/wt'], join(tmp, 'wt'))
    expect(push.stderr).toBe('')
    expect(push.exitCode).toBe(0)
    expect(await remote.readFile('acme/ws6', 'fleet/wt', 'w.txt')).toBe('w\n')
  })
})

describe('objects sent', () => {
  it("records the objects of each pack it sends, as the pack's header counts them", async () => {
    const url = await remote.createRepo('acme/counted', {
      files: { 'a.txt': 'a\n', 'b.txt': 'b\n', 'dir/c.txt': 'c\n' }
    })
    const from = remote.requests.length
    const dir = join(tmp, 'counted')
    const clone = await git([
      '-c',
      'protocol.version=2',
      ...withHeader(extraheaderValue(TOKEN)),
      'clone',
      '-q',
      url,
      dir
    ])
    expect(clone.exitCode, clone.stderr).toBe(0)
    // The ls-refs request (protocol v2) sends no pack; then a commit, two trees, three blobs.
    const posts = remote.requests.slice(from).filter(r => r.objects !== undefined)
    expect(posts.map(r => r.objects)).toEqual([0, 6])
    // A fetch with nothing new sends no pack.
    const again = await git([...withHeader(extraheaderValue(TOKEN)), 'fetch', '-q', 'origin'], dir)
    expect(again.exitCode, again.stderr).toBe(0)
    expect(remote.requests.slice(from).reduce((n, r) => n + (r.objects ?? 0), 0)).toBe(6)
  })
})
