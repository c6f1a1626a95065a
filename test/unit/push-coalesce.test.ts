// Issue #40 item 5: tasks' branches that finish while another's push is in flight go together in
// the next push (Coalescer, FleetRepo.pushLanded), each with its own lease and its own verdict:
// a branch the remote refuses fails alone. The coalescer with a fake sender, then FleetRepo's
// pushes against a real bare remote (its pre-receive hook logs each push's refs), over file://
// (git push) and over the HTTP stand-in (one request each, receive-pack.ts; git push for the rest).
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { Coalescer } from '../../src/git/coalesce.js'
import { FleetRepo, listedRefs, type PushResult } from '../../src/git/repo.js'
import { git as gitIn, GIT_ENV, loggingGit, subcommandOf } from '../support/git.js'
import { type GitRemote, startGitRemote } from '../../demo/git-remote.js'

/** A refusal's reason; a push that landed has none, and fails the test's toContain. */
const reasonOf = (r: PushResult | undefined): string =>
  r === undefined ? 'no result' : r.ok ? 'landed' : r.reason

describe('Coalescer', () => {
  it('sends the first at once and everything queued meanwhile in one next batch', async () => {
    const batches: string[][] = []
    let release = () => undefined as void
    const c = new Coalescer<string>(async keys => {
      batches.push(keys)
      if (batches.length === 1) await new Promise<void>(r => (release = r))
      return new Map(keys.map(k => [k, `${k}@${batches.length}`]))
    })
    const a = c.submit('a')
    const b = c.submit('b')
    const cc = c.submit('c')
    // The same key twice: never twice in one batch; the second waits for the batch after.
    const b2 = c.submit('b')
    expect(batches).toEqual([['a']])
    release()
    expect(await Promise.all([a, b, cc, b2])).toEqual(['a@1', 'b@2', 'c@2', 'b@3'])
    expect(batches).toEqual([['a'], ['b', 'c'], ['b']])
  })

  it('a batch that throws fails its own callers alone; the next batch still goes', async () => {
    let n = 0
    const c = new Coalescer<string>(keys => {
      n++
      if (n === 1) return Promise.reject(new Error('boom'))
      return Promise.resolve(new Map(keys.map(k => [k, 'ok'])))
    })
    const first = c.submit('x')
    const second = c.submit('y')
    await expect(first).rejects.toThrow('boom')
    await expect(second).resolves.toBe('ok')
  })

  it('a key its batch gave no result for is an error for that caller', async () => {
    const c = new Coalescer<string>(() => Promise.resolve(new Map<string, string>()))
    await expect(c.submit('lost')).rejects.toThrow('no result for lost')
  })
})

describe('listedRefs', () => {
  it("reads each destination ref's verdict from git push --porcelain", () => {
    const out = [
      'To ../r.git',
      '*\trefs/heads/a:refs/heads/a\t[new branch]',
      ' \trefs/heads/b:refs/heads/b\t0c472b9..4d43265',
      '+\trefs/heads/c:refs/heads/c\t0c472b9...4d43265 (forced update)',
      '=\trefs/heads/d:refs/heads/d\t[up to date]',
      '!\trefs/heads/e:refs/heads/e\t[rejected] (stale info)',
      '!\trefs/heads/f:refs/heads/f\t[remote rejected] (hook declined)',
      'Done'
    ].join('\n')
    expect([...listedRefs(out)]).toEqual([
      ['refs/heads/a', true],
      ['refs/heads/b', true],
      ['refs/heads/c', true],
      ['refs/heads/d', true],
      ['refs/heads/e', false],
      ['refs/heads/f', false]
    ])
  })
})

/** git in `cwd` with the tests' environment (test/support/git.ts), its arguments as a list. */
const git = (cwd: string, args: string[]) => gitIn(cwd, ...args)

const TOKEN = 'push-coalesce-token'
const REMOTES = [
  { way: 'a file:// remote, by git push', http: false },
  { way: 'the HTTP stand-in, in one request', http: true }
]

describe.each(REMOTES)('FleetRepo.pushLanded: $way', ({ http }) => {
  let dir: string
  let remote: string
  let url: string
  let served: GitRemote | undefined
  let log: string
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'push-coalesce-'))
    if (http) {
      served = await startGitRemote({ token: TOKEN })
      url = await served.createRepo('acme/widgets')
      remote = served.repoPath('acme/widgets')
    } else {
      remote = path.join(dir, 'remote.git')
      url = `file://${remote}`
      git(dir, ['init', '--quiet', '--bare', '--initial-branch=main', remote])
    }
    log = path.join(dir, 'pushes.log')
    const seed = path.join(dir, 'seed')
    git(dir, ['init', '--quiet', '--initial-branch=main', seed])
    git(seed, ['commit', '--quiet', '--allow-empty', '-m', 'base'])
    git(seed, ['push', '--quiet', '--force', remote, 'HEAD:refs/heads/main'])
    // fleet/taken exists on the remote (a person's), unseen by the fleet's clone.
    git(seed, ['push', '--quiet', remote, 'HEAD:refs/heads/fleet/taken'])
    // Each push's refs, one line each, then a line "--"; fleet/bad is refused by the update hook
    // (that ref alone), fleet/sink by the pre-receive hook (the whole push).
    await hook('pre-receive', [
      'refs=$(cat)',
      `printf '%s\\n--\\n' "$refs" >> '${log}'`,
      'case "$refs" in *" refs/heads/fleet/sink"*) exit 1 ;; esac',
      'exit 0'
    ])
    await hook('update', ['[ "$1" = refs/heads/fleet/bad ] && exit 1', 'exit 0'])
  })
  afterEach(async () => {
    await served?.close()
    served = undefined
    await rm(dir, { recursive: true, force: true })
  })

  async function hook(name: string, lines: string[]) {
    const file = path.join(remote, 'hooks', name)
    await writeFile(file, `#!/bin/sh\n${lines.join('\n')}\n`)
    await chmod(file, 0o755)
  }

  /** Each push the remote saw: the refs it carried. */
  async function pushes(): Promise<string[][]> {
    const text = await readFile(log, 'utf8').catch(() => '')
    return text
      .split('--\n')
      .filter(Boolean)
      .map(block =>
        block
          .split('\n')
          .filter(Boolean)
          .map(l => l.split(' ')[2] ?? '')
      )
  }

  /** The receive-pack requests the HTTP stand-in saw: each `GET` (git push's first) or `POST`. */
  const receives = () =>
    (served?.requests ?? []).filter(r => r.service === 'git-receive-pack').map(r => r.method)

  /** The fleet's clone with a commit on each of `branches`. */
  async function clone(branches: string[], env: NodeJS.ProcessEnv = GIT_ENV) {
    const { repo } = await FleetRepo.clone({
      dir: path.join(dir, 'fleet', 'repo'),
      remoteUrl: url,
      token: http ? TOKEN : undefined,
      branches: [],
      env
    })
    for (const b of branches) {
      const tree = git(repo.git.dir, ['rev-parse', 'refs/remotes/origin/main^{tree}'])
      const sha = git(repo.git.dir, [
        'commit-tree',
        tree,
        '-p',
        'refs/remotes/origin/main',
        '-m',
        b
      ])
      git(repo.git.dir, ['update-ref', `refs/heads/${b}`, sha])
    }
    return repo
  }

  it('branches that finish during a push go together in the next; each lands', async () => {
    const branches = ['fleet/a', 'fleet/b', 'fleet/c', 'fleet/d']
    const repo = await clone(branches)
    const results = await Promise.all(branches.map(b => repo.pushLanded(b)))
    expect(results).toEqual(branches.map(() => ({ ok: true })))
    // The first went at once; the three queued while it ran went in one push.
    expect(await pushes()).toEqual([
      ['refs/heads/fleet/a'],
      ['refs/heads/fleet/b', 'refs/heads/fleet/c', 'refs/heads/fleet/d']
    ])
    for (const b of branches) {
      const sha = git(repo.git.dir, ['rev-parse', `refs/heads/${b}`])
      expect(git(remote, ['rev-parse', `refs/heads/${b}`])).toBe(sha)
      // The remote-tracking ref follows (the next push's lease), as git push moves it.
      expect(git(repo.git.dir, ['rev-parse', `refs/remotes/origin/${b}`])).toBe(sha)
    }
    // Over HTTP each push was one request: no ref advertisement asked for first.
    if (http) expect(receives()).toEqual(['POST', 'POST'])
  })

  it('a refused branch fails alone: its lease, its hook, a whole-push refusal for its sake', async () => {
    const branches = ['fleet/first', 'fleet/ok', 'fleet/bad', 'fleet/taken', 'fleet/fine']
    const repo = await clone(branches)
    const [first, ok, bad, taken, fine] = await Promise.all(branches.map(b => repo.pushLanded(b)))
    expect([first, ok, fine]).toEqual([{ ok: true }, { ok: true }, { ok: true }])
    expect(reasonOf(bad)).toContain('hook declined')
    // The person's branch is not overwritten: the clone never saw it, so it must not exist.
    expect(reasonOf(taken)).toContain('not overwritten')
    expect(git(remote, ['rev-parse', 'refs/heads/fleet/taken'])).toBe(
      git(remote, ['rev-parse', 'refs/heads/main'])
    )
    expect(() =>
      git(remote, ['rev-parse', '--verify', '--quiet', 'refs/heads/fleet/bad'])
    ).toThrow()
    const seen = await pushes()
    if (http) {
      // One request carried the queued branches, each with its lease (receive-pack refused
      // fleet/taken's itself); the two refused went again by git push, together (fleet/taken's
      // lease refused there before any was sent), then each alone for its own verdict.
      expect(seen).toEqual([
        ['refs/heads/fleet/first'],
        [
          'refs/heads/fleet/ok',
          'refs/heads/fleet/bad',
          'refs/heads/fleet/taken',
          'refs/heads/fleet/fine'
        ],
        ['refs/heads/fleet/bad'],
        ['refs/heads/fleet/bad']
      ])
      return
    }
    // One push carried the queued branches (fleet/taken's lease refused it before any was sent);
    // the two refused were each pushed again alone, and only fleet/bad reached the remote again.
    expect(seen.slice(0, 2)).toEqual([
      ['refs/heads/fleet/first'],
      ['refs/heads/fleet/ok', 'refs/heads/fleet/bad', 'refs/heads/fleet/fine']
    ])
    expect(seen.slice(2).sort()).toEqual([['refs/heads/fleet/bad']])
  })

  it('a push the remote refuses whole for one branch lands the others once alone', async () => {
    const branches = ['fleet/first', 'fleet/one', 'fleet/sink', 'fleet/two']
    const repo = await clone(branches)
    const [first, one, sink, two] = await Promise.all(branches.map(b => repo.pushLanded(b)))
    expect([first, one, two]).toEqual([{ ok: true }, { ok: true }, { ok: true }])
    expect(reasonOf(sink)).toContain('pre-receive hook declined')
    expect(Object.keys(branchesOn(remote)).sort()).toEqual(
      ['fleet/first', 'fleet/one', 'fleet/taken', 'fleet/two', 'main'].sort()
    )
  })

  /** A commit of the same tree on top of `branch` in the fleet's clone, the branch moved to it. */
  function advance(repoDir: string, branch: string, message: string): string {
    const ref = `refs/heads/${branch}`
    const sha = git(repoDir, ['commit-tree', `${ref}^{tree}`, '-p', ref, '-m', message])
    git(repoDir, ['update-ref', ref, sha])
    return sha
  }

  /** A person's push of the seed's main to `branch` on the remote. */
  const personPushes = (branch: string) =>
    git(dir, [
      '-C',
      path.join(dir, 'seed'),
      'push',
      '-q',
      '--force',
      remote,
      `HEAD:refs/heads/${branch}`
    ])

  it('a branch pushed again moves from where the last push left it, under that lease', async () => {
    const repo = await clone(['fleet/again'])
    expect(await repo.pushLanded('fleet/again')).toEqual({ ok: true })
    const next = advance(repo.git.dir, 'fleet/again', 'more')
    expect(await repo.pushLanded('fleet/again')).toEqual({ ok: true })
    expect(git(remote, ['rev-parse', 'refs/heads/fleet/again'])).toBe(next)
    // A person's push meanwhile: the lease no longer holds, and their commit stays.
    personPushes('fleet/again')
    advance(repo.git.dir, 'fleet/again', 'mine')
    expect(reasonOf(await repo.pushLanded('fleet/again'))).toContain('not overwritten')
    expect(git(remote, ['rev-parse', 'refs/heads/fleet/again'])).toBe(
      git(remote, ['rev-parse', 'refs/heads/main'])
    )
  })

  it('a push with the lease given (a PR head as GitHub read it): lands on it, refused off it', async () => {
    const repo = await clone(['fleet/pr'])
    const main = git(remote, ['rev-parse', 'refs/heads/main'])
    personPushes('fleet/pr')
    expect(await repo.push('fleet/pr', main)).toEqual({ ok: true })
    const mine = git(repo.git.dir, ['rev-parse', 'refs/heads/fleet/pr'])
    expect(git(remote, ['rev-parse', 'refs/heads/fleet/pr'])).toBe(mine)
    expect(git(repo.git.dir, ['rev-parse', 'refs/remotes/origin/fleet/pr'])).toBe(mine)
    if (http) expect(receives()).toEqual(['POST'])
    // The lease names a head the branch has left: refused, and the remote's head stays.
    advance(repo.git.dir, 'fleet/pr', 'next')
    expect(reasonOf(await repo.push('fleet/pr', main))).toContain('not overwritten')
    expect(git(remote, ['rev-parse', 'refs/heads/fleet/pr'])).toBe(mine)
  })

  // Over HTTP alone: what sends a push to git push before or after the one request.
  if (http) {
    it("no report to read (the remote down): git push for this push and the run's others, said once", async () => {
      const repo = await clone(['fleet/down', 'fleet/later', 'fleet/last'])
      const said: string[] = []
      repo.log = line => said.push(line)
      served?.setDown(true)
      expect(reasonOf(await repo.pushLanded('fleet/down'))).toContain('could not reach the remote')
      // One request of this client's (503), then git push's advertisement (503).
      expect(receives()).toEqual(['POST', 'GET'])
      served?.setDown(false)
      expect(await repo.pushLanded('fleet/later')).toEqual({ ok: true })
      expect(await repo.push('fleet/last', undefined)).toEqual({ ok: true })
      // git push alone from then on: its advertisement, then its pack.
      expect(receives()).toEqual(['POST', 'GET', 'GET', 'POST', 'GET', 'POST'])
      expect(said).toEqual([
        "push: a push in one request got no answer to read (the remote answered 503 (text/plain)); git push does this run's pushes"
      ])
    })

    it('its pack is thin on the base, whose files the remote has; no git process reads refs', async () => {
      const seed = path.join(dir, 'seed')
      for (let i = 0; i < 40; i++) await writeFile(path.join(seed, `f${i}.txt`), `file ${i}\n`)
      git(seed, ['add', '.'])
      git(seed, ['commit', '--quiet', '-m', 'forty files'])
      git(seed, ['push', '--quiet', remote, 'HEAD:refs/heads/main'])
      // Each pack the remote receives kept whole (no unpacking), its objects counted by the hook.
      git(remote, ['config', 'receive.unpackLimit', '1'])
      const counts = path.join(dir, 'counts.log')
      await hook('pre-receive', [
        `for i in "$GIT_QUARANTINE_PATH"/pack/*.idx; do git show-index < "$i" | wc -l >> '${counts}'; done`
      ])
      const { bin, calls } = loggingGit(dir)
      const repo = await clone(['fleet/thin'], { ...GIT_ENV, PATH: `${bin}:${process.env.PATH}` })
      calls() // the clone's, read and dropped
      expect(await repo.pushLanded('fleet/thin')).toEqual({ ok: true })
      // The branch's one commit on main's tree: one object, not main's 40 files and tree again.
      expect((await readFile(counts, 'utf8')).trim()).toBe('1')
      expect(calls().map(subcommandOf)).toEqual(['cat-file', 'pack-objects', 'update-ref'])
      // Pushed again: the one new commit, on the branch's tracking ref, through the same kept
      // processes: pack-objects is the one git start.
      advance(repo.git.dir, 'fleet/thin', 'more')
      expect(await repo.pushLanded('fleet/thin')).toEqual({ ok: true })
      expect((await readFile(counts, 'utf8')).trim().split('\n')).toEqual(['1', '1'])
      expect(calls().map(subcommandOf)).toEqual(['pack-objects'])
    })

    it('a proxy in the environment: git push alone, as git reaches the remote', async () => {
      const proxied = {
        ...GIT_ENV,
        HTTPS_PROXY: 'http://127.0.0.1:9',
        HTTP_PROXY: 'http://127.0.0.1:9',
        NO_PROXY: '127.0.0.1'
      }
      const repo = await clone(['fleet/proxied'], proxied)
      expect(await repo.pushLanded('fleet/proxied')).toEqual({ ok: true })
      expect(receives()).toEqual(['GET', 'POST'])
    })
  }
})

function branchesOn(remote: string): Record<string, string> {
  const out = git(remote, [
    'for-each-ref',
    '--format=%(refname:strip=2) %(objectname)',
    'refs/heads'
  ])
  return Object.fromEntries(out.split('\n').map(l => l.split(' ') as [string, string]))
}
