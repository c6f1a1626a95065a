// Issue 29 with the exits issue's hostile workers, through dist/ with the real claude CLI in the
// sandbox, run as a hosted runner runs it (a non-root user with passwordless sudo). The run job
// holds only the read-only token (land: false); the land job the write token and no model. Workers
// leave hooks, a .git/config whose fsmonitor, sshCommand and pager run a program, a gitlink over a
// nested repository, and a .gitmodules: no program runs outside the cage in either job, the
// submodules are refused at the run job's exit with their work kept, and what is left lands.
import { execFile, execFileSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { lexer, parse } from 'marked'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { issuesLabeled } from '../support/events.js'
import { CLOSING_REF, MENTION, outsideCode } from '../support/markdown.js'
import { script } from '../../demo/model-server.js'
import type { RunActionResult } from '../../demo/run-action.js'
import { chownTree, makeRunnerUser, openPathsFor, runnerUserSkip } from '../../demo/sandbox.js'
import { byId, OWNER, READ_TOKEN, REPO, type Stack, startStack } from '../../demo/stack.js'

const FULL = `${OWNER}/${REPO}`
const run = promisify(execFile)
const skipReason = await runnerUserSkip()
const WRITES = ['POST', 'PATCH', 'PUT', 'DELETE']

const bashTask = (id: string, commands: string[]) => ({
  id,
  prompt: `Do the task.\n${script({ key: id, steps: [...commands.map(command => ({ tool: 'Bash', input: { command } })), { text: 'Done.' }] })}`
})

const exists = (f: string) =>
  stat(f).then(
    () => true,
    () => false
  )

describe.skipIf(skipReason !== undefined)(
  `hostile workers in the split layout${skipReason ? ` (skipped: ${skipReason})` : ''}`,
  () => {
    let stack: Stack
    let home: string
    let user: Awaited<ReturnType<typeof makeRunnerUser>>
    let closePaths: (() => Promise<void>) | undefined
    let runJob: RunActionResult
    let landJob: RunActionResult
    let handOver: string
    const seen = { apiWrites: 0, pushes: 0, model: 0 }
    const marker = randomBytes(6).toString('hex')
    // Where the program writes when it runs: the runner's /tmp and the runner user's home. Inside
    // the sandbox /tmp is the cage's own and the home is not there at all.
    const ranMarkers = () => [`/tmp/split-ran-${marker}`, path.join(home, `split-ran-${marker}`)]
    const program = () =>
      `printf '#!/bin/sh\\necho ran >> /tmp/split-ran-${marker}\\necho ran >> ${home}/split-ran-${marker}\\ncat >/dev/null\\nexit 0\\n' > evil.sh && chmod +x evil.sh`
    const ident = '-c user.name=w -c user.email=w@example.com'

    beforeAll(async () => {
      stack = await startStack({ workspace: { credentials: 'none' } })
      home = await mkdtemp(path.join(tmpdir(), 'fleet-e2e-split-home-'))
      handOver = path.join(home, 'hand-over')
      await mkdir(path.join(handOver, 'fleet-hand-over'), { recursive: true })
      user = await makeRunnerUser(home)
      for (const dir of [home, stack.workspace, stack.home]) await chownTree(dir, user)
      closePaths = await openPathsFor([import.meta.filename, process.execPath])
      const hooks =
        'pre-commit post-commit pre-push post-checkout reference-transaction post-rewrite'
      const tasks = [
        // Hooks in the worker's clone, and core.hooksPath pointing at more.
        bashTask('hooks', [
          `${program()} && d=$(git rev-parse --git-path hooks) && mkdir -p "$d" && for h in ${hooks}; do cp evil.sh "$d/$h"; done && git config core.hooksPath "$d" && echo hooked > hooked.txt && echo STEP-OK`
        ]),
        // A .git/config whose fsmonitor, sshCommand and pager run the program.
        bashTask('config', [
          `${program()} && git config core.fsmonitor "$PWD/evil.sh" && git config core.sshCommand "$PWD/evil.sh" && git config core.pager "$PWD/evil.sh" && echo conf > conf.txt && echo STEP-OK`
        ]),
        // A nested repository committed as a gitlink, its own fsmonitor set to the program.
        bashTask('gitlink', [
          `${program()} && git init -q nested && (cd nested && echo a > a.txt && git add a.txt && git ${ident} commit -qm nested && git config core.fsmonitor "$PWD/../evil.sh") && git add evil.sh nested && git ${ident} commit -qm "add nested" && echo STEP-OK`
        ]),
        // A .gitmodules naming a submodule, left for the seal to add.
        bashTask('gitmodules', [
          `printf '[submodule "x"]\\n\\tpath = x\\n\\turl = ../elsewhere.git\\n' > .gitmodules && echo STEP-OK`
        ]),
        bashTask('honest', ['echo fine > honest.txt && echo STEP-OK'])
      ]
      runJob = await stack.run({
        inputs: {
          tasks: JSON.stringify(tasks),
          isolation: 'sandbox',
          'max-parallel': '3',
          land: 'false',
          'outcomes-dir': path.join(handOver, 'fleet-hand-over'),
          'github-token': READ_TOKEN
        },
        user,
        timeoutMs: 600_000
      })
      seen.apiWrites = stack.github.requests.filter(r => WRITES.includes(r.method)).length
      seen.pushes = stack.git.requests.filter(r => r.service === 'git-receive-pack').length
      seen.model = stack.model.requests.length
      landJob = await stack.run({
        inputs: {
          mode: 'land',
          'api-key': '',
          'base-url': 'http://127.0.0.1:9',
          'outcomes-dir': handOver
        },
        user,
        timeoutMs: 300_000
      })
    }, 900_000)
    afterAll(async () => {
      await closePaths?.()
      await user?.remove()
      await stack?.close()
      for (const f of ranMarkers()) await rm(f, { force: true })
      if (home) await rm(home, { recursive: true, force: true })
    })

    const ran = (job: RunActionResult, id: string) => byId(job).get(id)

    it('the run job, with the read-only token, attempts no write and seals every task', () => {
      expect(runJob.exitCode === 0 || runJob.exitCode === 1, runJob.stdout + runJob.stderr).toBe(
        true
      )
      expect(seen.apiWrites).toBe(0)
      expect(seen.pushes).toBe(0)
      expect(stack.git.refused).toEqual([])
      expect(stack.github.refused).toEqual([])
      for (const id of ['hooks', 'config', 'gitlink', 'gitmodules', 'honest']) {
        const said = stack.model
          .requestsFor(id)
          .map(r => r.toolResults.join('\n'))
          .join('\n')
        expect(said, id).toContain('STEP-OK')
      }
      for (const id of ['hooks', 'config', 'honest'])
        expect(ran(runJob, id)?.status, ran(runJob, id)?.error ?? '').toBe('ready')
    })

    it('refuses a gitlink and a .gitmodules at the run job’s exit, keeps the work, and the land job pushes nothing of it', async () => {
      const branches = await stack.git.branches(FULL)
      for (const id of ['gitlink', 'gitmodules']) {
        const o = ran(runJob, id) as {
          status?: string
          error?: string | null
          preserved?: string | null
        }
        expect(o.status, id).toBe('failed')
        expect(o.error, id).toMatch(/adds a submodule \(a gitlink or a \.gitmodules change: /)
        expect(o.preserved ?? '', id).toMatch(/\.bundle$/)
        expect(await exists(o.preserved ?? ''), id).toBe(true)
        expect(ran(landJob, id)?.status, id).toBe('failed')
        expect(branches[`fleet/${id}`], id).toBeUndefined()
      }
    })

    it('the land job, with no model, lands the rest with exactly their files', async () => {
      expect(stack.model.requests.length).toBe(seen.model)
      for (const [id, file, content] of [
        ['hooks', 'hooked.txt', 'hooked\n'],
        ['config', 'conf.txt', 'conf\n'],
        ['honest', 'honest.txt', 'fine\n']
      ] as const) {
        expect(ran(landJob, id)?.status, ran(landJob, id)?.error ?? '').toBe('pr-opened')
        expect(await stack.git.readFile(FULL, `fleet/${id}`, file), id).toBe(content)
      }
      expect(stack.github.invalid).toEqual([])
    })

    it('never runs a worker’s hook or configured program outside the cage, in either job', async () => {
      for (const f of ranMarkers()) expect(await exists(f), f).toBe(false)
    })
  }
)

// Issue 38, item 2: a run job that has been taken over writes the hand-over itself. Every field
// it hands over (title, model, counts, statuses, URLs, source numbers) is data to the land job:
// the file is read through a schema, PRs are read back from GitHub, an issue hears only what the
// job can vouch for (its own event names issue #1 only), and of an outcome that came without a
// bundle only its status word. Needs no sandbox: nothing runs a worker.
const HOSTILE = [
  'Fixes #2, closes acme/widgets#2, fixes:#2, resolves https://github.com/acme/widgets/issues/2,',
  '**fixes** #2, thanks @acme/core and @octocat &commat;acme/core',
  '![t](https://evil.example/t.png) <img src="https://evil.example/i.png">',
  '[x]: https://evil.example/r.png'
].join(' ')
const CLOSING_URL =
  /\b(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?)\b\W{0,4}\s*https?:\/\/\S+\/(?:issues|pull)\/\d/i

/** What GitHub would act on in markdown the land job wrote: mentions, closing references, images. */
function acting(markdown: string): string[] {
  const text = outsideCode(lexer(markdown)).filter(
    t => MENTION.test(t) || CLOSING_REF.test(t) || CLOSING_URL.test(t)
  )
  const html = parse(markdown, { async: false })
  const foreign = [...html.matchAll(/<(?:img|a)\b[^>]*(?:src|href)="([^"]*)"/g)]
    .map(m => m[1] ?? '')
    .filter(url => !/^https?:\/\/(?:github\.com|127\.0\.0\.1)(?:[:/]|$)/.test(url))
  return [...text, ...foreign]
}

describe('a hostile hand-over made of the fields the land job renders', () => {
  let stack: Stack
  let dir: string
  let landJob: RunActionResult
  let writesBefore: number
  let pull: number
  const event = () =>
    issuesLabeled({
      owner: OWNER,
      repo: REPO,
      issueNumber: 1,
      title: 'Tidy the docs',
      body: '- [ ] tidy',
      label: 'fleet',
      sender: OWNER
    })
  const outcome = (id: string, extra: object) => ({
    id,
    title: HOSTILE,
    status: 'failed',
    source: { kind: 'issue', issue: 1 },
    branch: `fleet/${id}`,
    prNumber: 2,
    prUrl: 'https://evil.example/x.png',
    turns: 3,
    durationMs: 4200,
    usage: {
      input_tokens: 10,
      output_tokens: 5,
      cache_read_input_tokens: 0,
      cache_creation_input_tokens: 0
    },
    model: HOSTILE,
    attempts: 1,
    error: HOSTILE,
    finalMessage: HOSTILE,
    ...extra
  })

  beforeAll(async () => {
    stack = await startStack({ workspace: { credentials: 'none' } })
    dir = await mkdtemp(path.join(tmpdir(), 'fleet-e2e-hostile-hand-over-'))
    stack.github.addIssue({ title: 'Tidy the docs' }) // #1: the one the land job's event names
    stack.github.addIssue({ title: 'Untouched' }) // #2: nothing of this run is about it
    pull = stack.github.addPull({ head: 'fleet/open', title: 'open fleet PR' }).number
    // h1's work, as a taken-over run job would bundle it: a commit whose message is hostile too.
    const clone = path.join(dir, 'clone')
    await run('git', ['clone', '--quiet', stack.git.repoPath(FULL), clone])
    const git = (...args: string[]) =>
      run('git', ['-c', 'user.name=m', '-c', 'user.email=m@example.com', ...args], { cwd: clone })
    const start = (await git('rev-parse', 'HEAD')).stdout.trim()
    await git('checkout', '--quiet', '-b', 'fleet/h1')
    await writeFile(path.join(clone, 'h1.txt'), 'h1\n')
    await git('add', 'h1.txt')
    await git('commit', '--quiet', '-m', HOSTILE)
    const store = path.join(dir, 'store')
    await mkdir(store)
    await git(
      'bundle',
      'create',
      '--quiet',
      path.join(store, 'b.bundle'),
      'refs/heads/fleet/h1',
      `^${start}`
    )
    // h5's work forged with git's plumbing, which checks no name: a tree that holds `.git`.
    const plumb = (input: string, ...args: string[]) =>
      execFileSync('git', args, { cwd: clone, input, encoding: 'utf8' }).trim()
    const blob = plumb('hook\n', 'hash-object', '-w', '--stdin')
    const tree = plumb(`100644 blob ${blob}\t.git\n`, 'mktree')
    const forged = (await git('commit-tree', tree, '-p', start, '-m', 'h5')).stdout.trim()
    await git('update-ref', 'refs/heads/fleet/h5', forged)
    await git(
      'bundle',
      'create',
      '--quiet',
      path.join(store, 'h5.bundle'),
      'refs/heads/fleet/h5',
      `^${start}`
    )
    const outcomes = [
      outcome('h1', {
        status: 'ready',
        error: undefined,
        verify: { command: HOSTILE, exitCode: 0, timedOut: false, tail: HOSTILE },
        sealed: { bundle: 'b.bundle', start, pr: true, prompt: HOSTILE }
      }),
      // No bundle, on the event's issue, its branch with an open PR: only "failed" is said there,
      // and the PR is the one GitHub has for the branch.
      outcome('open', {}),
      // No bundle, naming an issue the run never touched.
      outcome('h3', { source: { kind: 'issue', issue: 2 }, branch: 'fleet/h3' }),
      // A follow-up on the untouched issue, as if it were a PR.
      outcome('h4', { source: { kind: 'follow-up', pr: 2, issue: 2 }, branch: 'fleet/h4' }),
      outcome('h5', {
        status: 'ready',
        error: undefined,
        sealed: { bundle: 'h5.bundle', start, pr: true, prompt: HOSTILE }
      })
    ]
    await writeFile(
      path.join(store, 'fleet-outcomes-0.json'),
      JSON.stringify({ shard: 0, outcomes })
    )
    writesBefore = stack.github.requests.length
    landJob = await stack.run({
      inputs: {
        mode: 'land',
        'api-key': '',
        'base-url': 'http://127.0.0.1:9',
        'outcomes-dir': store
      },
      eventName: 'issues',
      payload: event()
    })
  }, 300_000)
  afterAll(async () => {
    await stack?.close()
    if (dir) await rm(dir, { recursive: true, force: true })
  })

  const writes = () =>
    stack.github.requests.slice(writesBefore).filter(r => WRITES.includes(r.method))

  it('lands the bundle, and takes PR numbers and URLs from GitHub, not the hand-over', () => {
    const got = byId(landJob)
    expect(got.get('h1')?.status, landJob.stdout).toBe('pr-opened')
    const h1 = stack.github.state.pulls.find(p => p.pull.head === 'fleet/h1')
    expect(got.get('h1')?.['pr-number']).toBe(h1?.number)
    expect(got.get('open')?.['pr-number']).toBe(pull)
    expect(got.get('open')?.['pr-url']).toMatch(new RegExp(`/pull/${pull}$`))
    for (const id of ['h3', 'h4']) {
      expect(got.get(id)?.['pr-number'] ?? null, id).toBeNull()
      expect(got.get(id)?.['pr-url'] ?? null, id).toBeNull()
    }
  })

  it("refuses a forged bundle whose tree names .git by git's fsck, and pushes nothing of it", async () => {
    const h5 = byId(landJob).get('h5')
    expect(h5?.status, landJob.stdout).toBe('failed')
    expect(h5?.error).toMatch(/failed git's object checks \(error: object [0-9a-f]+: hasDotgit/)
    const branches = await run('git', ['for-each-ref', '--format=%(refname)', 'refs/heads/'], {
      cwd: stack.git.repoPath(FULL)
    })
    expect(branches.stdout).not.toContain('fleet/h5')
  })

  it('writes no live mention, closing keyword or remote image anywhere: comments, PR, commits, summary', async () => {
    const bodies = writes().flatMap(r => {
      const b = r.body as { body?: unknown; title?: unknown } | undefined
      return [b?.body, b?.title].filter((x): x is string => typeof x === 'string')
    })
    expect(bodies.length).toBeGreaterThan(1)
    for (const text of bodies) expect(acting(text), text).toEqual([])
    expect(acting(landJob.summary), landJob.summary).toEqual([])
    const log = await run('git', ['log', '--format=%B', 'main..fleet/h1'], {
      cwd: stack.git.repoPath(FULL)
    })
    // A commit message is plain text on GitHub: only its mentions and references act.
    expect(log.stdout).toContain('thanks')
    const said = log.stdout.split('\n')
    expect(said.filter(t => MENTION.test(t) || CLOSING_REF.test(t) || CLOSING_URL.test(t))).toEqual(
      []
    )
  })

  it('comments only on the issue its event names, and of a bundle-less outcome only the status word', () => {
    const touched = writes().map(r => r.path)
    expect(touched.filter(u => /\/issues\/2(\/|$)|\/pulls\/2(\/|$)/.test(u))).toEqual([])
    expect(stack.github.state.comments.filter(c => c.issue_number === 2)).toEqual([])
    const [comment] = stack.github.state.comments.filter(c => c.issue_number === 1)
    const row = comment?.body.split('\n').find(l => l.includes('`open`')) ?? ''
    expect(row).toMatch(/^\| open \(`open`\) \| failed \|$/)
    expect(comment?.body, JSON.stringify(comment?.body)).not.toMatch(/`h3`|`h4`/)
  })

  it('refuses a malformed hand-over with a sentence naming the file, and writes nothing', async () => {
    const bad = path.join(dir, 'bad')
    await mkdir(bad)
    await writeFile(
      path.join(bad, 'fleet-outcomes-0.json'),
      JSON.stringify({
        shard: 0,
        outcomes: [outcome('h5', { turns: '@acme/core', source: { kind: 'issue', issue: '1' } })]
      })
    )
    const from = stack.github.requests.length
    const pushes = stack.git.requests.filter(r => r.service === 'git-receive-pack').length
    const job = await stack.run({
      inputs: {
        mode: 'land',
        'api-key': '',
        'base-url': 'http://127.0.0.1:9',
        'outcomes-dir': bad
      },
      eventName: 'issues',
      payload: event()
    })
    expect(job.exitCode).not.toBe(0)
    expect(job.stdout).toMatch(
      /the hand-over file 'fleet-outcomes-0\.json' is not one a land: false job of this action writes \(outcomes\[0\]\.source\.issue: [^;]*number[^)]*outcomes\[0\]\.turns/
    )
    expect(stack.github.requests.slice(from).filter(r => WRITES.includes(r.method))).toEqual([])
    expect(stack.git.requests.filter(r => r.service === 'git-receive-pack')).toHaveLength(pushes)
  })
})
