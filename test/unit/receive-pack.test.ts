// A push in one request (src/git/receive-pack.ts): the request this client writes, read by git's
// own `receive-pack --stateless-rpc` (what `git http-backend` runs for a POST), and the answer it
// writes back, read by this client: created, updated, refused under a lease, a hook's refusal, a
// pack that leaves out what the remote lacks. Then when the one request may be tried at all.
import { execFileSync } from 'node:child_process'
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { once } from 'node:events'
import {
  createServer as createHttpServer,
  type Server as HttpServer,
  type ServerResponse
} from 'node:http'
import { type AddressInfo, createServer } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  oneRequestAuth,
  pktLine,
  pktLines,
  postPush,
  pushRequest,
  readReport,
  type RefUpdate
} from '../../src/git/receive-pack.js'
import { git, GIT_ENV } from '../support/git.js'

let dir: string
let remote: string
let local: string
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'receive-pack-'))
  remote = path.join(dir, 'remote.git')
  local = path.join(dir, 'local')
  git(dir, 'init', '-q', '--bare', '-b', 'main', remote)
  git(dir, 'init', '-q', '-b', 'main', local)
  git(local, 'commit', '-q', '--allow-empty', '-m', 'base')
  git(local, 'push', '-q', remote, 'main')
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

/** A commit on top of `parent` in the local repository, with one file of its own. */
function commitOn(parent: string, name: string): string {
  writeFileSync(path.join(local, `${name}.txt`), `${name}\n`)
  git(local, 'add', `${name}.txt`)
  const tree = git(local, 'write-tree')
  return git(local, 'commit-tree', tree, '-p', parent, '-m', name)
}

/** `pack-objects` as the client runs it: thin, of `tips` less what `has` reaches. */
function packOf(tips: string[], has: string[]): Buffer {
  const input = [...tips, '--not', ...has, ''].join('\n')
  return execFileSync(
    'git',
    ['pack-objects', '--stdout', '--thin', '--revs', '--delta-base-offset', '-q'],
    { cwd: local, env: GIT_ENV, input }
  )
}

/** The request as git's receive-pack reads it from a POST, and its answer's report. */
function receive(updates: RefUpdate[], pack: Buffer) {
  const answer = execFileSync('git', ['receive-pack', '--stateless-rpc', remote], {
    env: GIT_ENV,
    input: pushRequest(updates, pack)
  })
  return readReport(answer)
}

describe("one push request, as git's receive-pack reads and answers it", () => {
  it('creates one branch and updates another, each from the value its lease names', () => {
    const base = git(local, 'rev-parse', 'HEAD')
    const a = commitOn(base, 'a')
    const b = commitOn(base, 'b')
    git(local, 'push', '-q', remote, `${base}:refs/heads/fleet/b`)
    const report = receive(
      [
        { ref: 'refs/heads/fleet/a', old: undefined, new: a },
        { ref: 'refs/heads/fleet/b', old: base, new: b }
      ],
      packOf([a, b], [base])
    )
    expect(report).toEqual(
      new Map([
        ['refs/heads/fleet/a', true],
        ['refs/heads/fleet/b', true]
      ])
    )
    expect(git(remote, 'rev-parse', 'refs/heads/fleet/a', 'refs/heads/fleet/b')).toBe(`${a}\n${b}`)
    // The remote holds every object of both: its own check finds nothing missing.
    expect(git(remote, 'fsck', '--connectivity-only', '--no-dangling')).toBe('')
  })

  it('a lease that no longer holds is refused for that ref alone, and the ref stays', () => {
    const base = git(local, 'rev-parse', 'HEAD')
    const a = commitOn(base, 'a')
    const theirs = commitOn(base, 'theirs')
    const mine = commitOn(base, 'mine')
    git(local, 'push', '-q', remote, `${theirs}:refs/heads/fleet/taken`)
    const report = receive(
      [
        { ref: 'refs/heads/fleet/a', old: undefined, new: a },
        // The clone never saw fleet/taken: it must not exist, and it does.
        { ref: 'refs/heads/fleet/taken', old: undefined, new: mine }
      ],
      packOf([a, mine], [base])
    )
    expect(report?.get('refs/heads/fleet/a')).toBe(true)
    expect(report?.get('refs/heads/fleet/taken')).toEqual(expect.any(String))
    expect(git(remote, 'rev-parse', 'refs/heads/fleet/taken')).toBe(theirs)
  })

  it("a hook's refusal is that ref's verdict, in the remote's words", () => {
    const base = git(local, 'rev-parse', 'HEAD')
    const a = commitOn(base, 'a')
    const hook = path.join(remote, 'hooks', 'update')
    writeFileSync(hook, '#!/bin/sh\nexit 1\n')
    chmodSync(hook, 0o755)
    const report = receive(
      [{ ref: 'refs/heads/fleet/a', old: undefined, new: a }],
      packOf([a], [base])
    )
    expect(report).toEqual(new Map([['refs/heads/fleet/a', 'hook declined']]))
  })

  it('a pack that leaves out what the remote lacks is refused for that ref, and nothing moves', () => {
    const base = git(local, 'rev-parse', 'HEAD')
    const unseen = commitOn(base, 'unseen')
    const a = commitOn(unseen, 'a')
    // The client believes the remote has `unseen`: the pack leaves it out. A refusal like any
    // other: FleetRepo asks git push, which reads the remote's refs first, for that branch.
    expect(
      receive([{ ref: 'refs/heads/fleet/a', old: undefined, new: a }], packOf([a], [unseen]))
    ).toEqual(new Map([['refs/heads/fleet/a', 'missing necessary objects']]))
    expect(() => git(remote, 'rev-parse', '--verify', '--quiet', 'refs/heads/fleet/a')).toThrow()
  })
})

describe('pkt-lines and the report', () => {
  const band = (n: number, text: string) =>
    pktLine(Buffer.concat([Buffer.from([n]), Buffer.from(text)]))

  it('frames a payload with its length in four hex digits, and reads it back', () => {
    expect(pktLine('ok refs/heads/a\n').toString()).toBe('0014ok refs/heads/a\n')
    const lines = pktLines(Buffer.concat([pktLine('a'), Buffer.from('0000'), pktLine('bc')]))
    expect(lines?.map(l => l?.toString() ?? null)).toEqual(['a', null, 'bc'])
  })

  it('refuses broken framing: not hex, shorter than its header, past the end', () => {
    expect(pktLines(Buffer.from('zz01'))).toBeUndefined()
    expect(pktLines(Buffer.from('0002'))).toBeUndefined()
    expect(pktLines(Buffer.from('0009abc'))).toBeUndefined()
  })

  it('reads the status from band 1 across packets, skips band 2, and takes band 3 as no report', () => {
    const status = Buffer.concat([
      pktLine('unpack ok\n'),
      pktLine('ok refs/heads/a\n'),
      Buffer.from('0000')
    ])
    const split = status.length - 7
    const answer = (extra: Buffer[]) =>
      Buffer.concat([
        band(2, 'remote: hello\n'),
        pktLine(Buffer.concat([Buffer.from([1]), status.subarray(0, split)])),
        pktLine(Buffer.concat([Buffer.from([1]), status.subarray(split)])),
        ...extra,
        Buffer.from('0000')
      ])
    expect(readReport(answer([]))).toEqual(new Map([['refs/heads/a', true]]))
    expect(readReport(answer([band(3, 'fatal: out of space')]))).toBeUndefined()
    expect(readReport(band(1, '0016unpack index-pack abnormal exit\n'))).toBeUndefined()
  })
})

describe('postPush: why there is no report', () => {
  it('the remote unreachable: the error and its cause, for the run log', async () => {
    // A port that was just free: nothing listens there.
    const server = createServer().listen(0, '127.0.0.1')
    await once(server, 'listening')
    const { port } = server.address() as AddressInfo
    await new Promise(resolve => server.close(resolve))
    const url = `http://127.0.0.1:${port}/acme/widgets.git`
    const answer = await postPush(url, 'Basic x', Buffer.alloc(0))
    expect('why' in answer ? answer.why : 'a report').toContain('ECONNREFUSED')
  })

  /** A remote that answers every POST with `answer`, and the requests it saw. */
  async function remoteAnswering(answer: (res: ServerResponse) => void) {
    const seen: { url?: string; headers: Record<string, unknown>; body: string }[] = []
    const server = createHttpServer((req, res) => {
      const chunks: Buffer[] = []
      req.on('data', (c: Buffer) => chunks.push(c))
      req.on('end', () => {
        seen.push({ url: req.url, headers: req.headers, body: Buffer.concat(chunks).toString() })
        answer(res)
      })
    }).listen(0, '127.0.0.1')
    await once(server, 'listening')
    const { port } = server.address() as AddressInfo
    servers.push(server)
    return { url: `http://127.0.0.1:${port}/acme/widgets.git/`, seen }
  }
  const servers: HttpServer[] = []
  const flush = Buffer.from('0000')
  afterEach(() => {
    for (const server of servers.splice(0)) {
      server.closeAllConnections()
      server.close()
    }
  })

  it('a report: the request as receive-pack reads it, one POST with the token, the verdicts', async () => {
    const inner = Buffer.concat([pktLine('unpack ok\n'), pktLine('ok refs/heads/a\n'), flush])
    const remote = await remoteAnswering(res => {
      res.writeHead(200, { 'content-type': 'application/x-git-receive-pack-result' })
      res.end(Buffer.concat([pktLine(Buffer.concat([Buffer.from([1]), inner])), flush]))
    })
    const answer = await postPush(remote.url, 'Basic x', Buffer.from('the request'))
    expect(answer).toEqual({ verdicts: new Map([['refs/heads/a', true]]) })
    expect(remote.seen).toHaveLength(1)
    expect(remote.seen[0]).toMatchObject({
      url: '/acme/widgets.git/git-receive-pack',
      body: 'the request',
      headers: {
        authorization: 'Basic x',
        'content-type': 'application/x-git-receive-pack-request'
      }
    })
  })

  it('a redirect is not followed; another content type, an answer cut short and a silent remote are no report', async () => {
    const moved = await remoteAnswering(res => {
      res.writeHead(302, { location: 'http://127.0.0.1:1/elsewhere' })
      res.end()
    })
    expect(await postPush(moved.url, 'Basic x', Buffer.alloc(0))).toEqual({
      why: 'the remote answered 302'
    })
    expect(moved.seen).toHaveLength(1)
    const page = await remoteAnswering(res => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      res.end('<html>sign in</html>')
    })
    expect(await postPush(page.url, 'Basic x', Buffer.alloc(0))).toEqual({
      why: 'the remote answered 200 (text/html)'
    })
    const cut = await remoteAnswering(res => {
      res.writeHead(200, { 'content-type': 'application/x-git-receive-pack-result' })
      res.write('0030')
      setTimeout(() => res.socket?.destroy(), 20)
    })
    const short = await postPush(cut.url, 'Basic x', Buffer.alloc(0))
    expect('why' in short ? short.why : 'a report').toMatch(/closed the connection|aborted|reset/)
    const silent = await remoteAnswering(() => undefined)
    expect(await postPush(silent.url, 'Basic x', Buffer.alloc(0), 200)).toEqual({
      why: 'the remote sent nothing for 0.2 s'
    })
  })
})

describe('oneRequestAuth: when a push may go in one request', () => {
  const url = 'https://github.com/acme/widgets'
  const basic = `Basic ${Buffer.from('x-access-token:t0ken').toString('base64')}`

  it('an http(s) URL and a token, nothing routing git elsewhere: the header git would send', () => {
    expect(oneRequestAuth(url, 't0ken', { PATH: '/usr/bin', SSL_CERT_FILE: '/etc/ca.pem' })).toBe(
      basic
    )
    expect(oneRequestAuth('http://127.0.0.1:8080/acme/widgets.git', 't0ken', {})).toBe(basic)
  })

  it('no token, an ssh or file URL, credentials in the URL: git push', () => {
    expect(oneRequestAuth(url, undefined, {})).toBeUndefined()
    expect(oneRequestAuth('git@github.com:acme/widgets.git', 't0ken', {})).toBeUndefined()
    expect(oneRequestAuth('file:///srv/widgets.git', 't0ken', {})).toBeUndefined()
    expect(oneRequestAuth('https://x:y@github.com/acme/widgets', 't0ken', {})).toBeUndefined()
  })

  it.each([
    { HTTPS_PROXY: 'http://proxy:3128' },
    { http_proxy: 'http://proxy:3128' },
    { ALL_PROXY: 'socks5://proxy:1080' },
    { GIT_CONFIG_PARAMETERS: "'http.proxy'='http://proxy:3128'" },
    { GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'http.proxy', GIT_CONFIG_VALUE_0: 'http://p:1' }
  ])('a proxy or http config in the environment (%o): git push', env => {
    expect(oneRequestAuth(url, 't0ken', env)).toBeUndefined()
  })

  it('an empty proxy variable routes nothing', () => {
    expect(oneRequestAuth(url, 't0ken', { HTTPS_PROXY: '', NO_PROXY: '*' })).toBe(basic)
  })
})
