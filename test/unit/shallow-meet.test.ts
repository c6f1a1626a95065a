// FleetRepo behind a shallow checkout, with real git over file://: a PR branch and its base are
// deepened only until they share a commit (meet), and a depth-1 refetch of a base whose parent
// the clone holds is joined to its history again (rejoin), so the next meet fetches nothing.
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { FleetRepo } from '../../src/git/repo.js'
import { git, GIT_ENV, gitWithInput } from '../support/git.js'

/** `n` commits on `branch` of the bare `remote` from `from` (one file each, in turn): the new tip. */
function commits(remote: string, branch: string, from: string | undefined, n: number, tag: string) {
  const data = (text: string) => `data ${Buffer.byteLength(text)}\n${text}\n`
  let stream = ''
  for (let i = 1; i <= n; i++) {
    stream += `commit refs/heads/${branch}\nmark :${i}\ncommitter Someone <someone@example.com> ${1_700_000_000 + i} +0000\n`
    stream += data(`${tag} ${i}`)
    if (i > 1) stream += `from :${i - 1}\n`
    else if (from) stream += `from ${from}\n`
    stream += `M 100644 inline ${tag}/f${i % 5}.txt\n${data(`${tag} ${i}\n`)}`
  }
  gitWithInput(remote, stream, 'fast-import', '--quiet', '--force')
  return git(remote, 'rev-parse', `refs/heads/${branch}`)
}

describe('FleetRepo behind a shallow checkout', () => {
  let dir: string
  let remote: string
  let url: string
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'shallow-meet-'))
    remote = path.join(dir, 'remote.git')
    git(dir, 'init', '--quiet', '--bare', remote)
    url = `file://${remote}`
  })
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true })
  })

  /** The fleet's clone behind a depth-1 checkout of main, with fleet/x; its log lines. */
  async function shallowClone() {
    const checkout = path.join(dir, 'checkout')
    git(dir, 'clone', '--quiet', '--depth=1', '--branch=main', url, checkout)
    const { repo, borrowed } = await FleetRepo.clone({
      dir: path.join(dir, 'fleet', 'repo'),
      remoteUrl: url,
      base: 'main',
      branches: ['fleet/x'],
      checkout,
      env: GIT_ENV
    })
    expect(borrowed?.shallow?.length).toBe(1)
    const lines: string[] = []
    repo.log = line => lines.push(line)
    return { repo, lines }
  }

  const count = (repo: FleetRepo, ref: string) =>
    Number(git(repo.git.dir, 'rev-list', '--count', ref))

  it('deepens a PR and its base by 8 commits, not their 60, until they share the fork point', async () => {
    const fork = commits(remote, 'main', undefined, 60, 'history')
    commits(remote, 'fleet/x', fork, 1, 'x')
    commits(remote, 'main', fork, 3, 'moved')
    const { repo, lines } = await shallowClone()
    const refs = ['refs/remotes/origin/main', 'refs/remotes/origin/fleet/x']
    // At depth 1 the two tips share nothing.
    expect(() => git(repo.git.dir, 'merge-base', ...refs)).toThrow()

    expect(await repo.meet('main', 'fleet/x')).toBe(true)
    expect(git(repo.git.dir, 'merge-base', ...refs)).toBe(fork)
    expect(lines).toEqual([
      'shallow clone: fleet/x and main share no commit in the cut history: deepening main and fleet/x by 8 commits'
    ])
    // Of main's 64 commits, its 3 new ones and the fork with the 7 below it the PR's step brought.
    expect(count(repo, 'refs/remotes/origin/main')).toBe(11)
    // Met already: no second fetch.
    expect(await repo.meet('main', 'fleet/x')).toBe(true)
    expect(lines).toHaveLength(1)
  })

  it('a base moved on by one commit and refetched at depth 1 is joined to the history it has: no deepen', async () => {
    const fork = commits(remote, 'main', undefined, 60, 'history')
    commits(remote, 'fleet/x', fork, 1, 'x')
    const before = commits(remote, 'main', fork, 3, 'moved')
    const { repo, lines } = await shallowClone()
    expect(await repo.meet('main', 'fleet/x')).toBe(true)
    // The train's previous merge: one commit on main.
    const after = commits(remote, 'main', before, 1, 'merged')
    await repo.refetch(['main', 'fleet/x'])
    expect(await repo.remoteSha('main')).toBe(after)
    const shallow = await readFile(path.join(repo.git.dir, '.git', 'shallow'), 'utf8')
    expect(shallow).not.toContain(after)
    expect(await repo.meet('main', 'fleet/x')).toBe(true)
    expect(lines).toHaveLength(1)
  })

  it('a branch not on the remote meets nothing and fetches nothing', async () => {
    commits(remote, 'main', undefined, 20, 'history')
    const { repo, lines } = await shallowClone()
    expect(await repo.meet('main', 'fleet/x')).toBe(false)
    expect(lines).toEqual([])
  })
})
