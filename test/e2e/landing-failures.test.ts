// Issue 4, landing when something says no: a failing verify, a remote hook rejecting a push, a
// flaky API. Every task is still reported, nothing a worker made is lost, and the step fails.
import { mkdtemp, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { expectOk, useStack } from '../support/scenario.js'
import { expectContractResults, expectSummary, git, scripted, write } from './landing-support.js'
import { byId, OWNER, REPO } from '../../demo/stack.js'
import { script } from '../../demo/model-server.js'
import { waitFor } from './faults-support.js'

const NAME = `${OWNER}/${REPO}`
const pkg = (test: string) =>
  `${JSON.stringify({ name: 'widgets', private: true, scripts: { test } }, null, 2)}\n`
const PASSING = `node -e "console.log('tests-pass-marker')"`
const FAILING = `node -e "console.error('boom-marker'); process.exit(3)"`

describe('landing: verify, rejected pushes, API faults', () => {
  const stack = useStack()

  it('runs verify per worktree: a failing one gives a draft PR labelled fleet:verify-failed with the output tail', async () => {
    // The base has no test script, so the global `npm test` fails for `own`: its own verify must win.
    const ownVerify =
      "if env | grep -q -e FleetE2eToken -e fleet-e2e-model-key; then printf 'secret-%s\\n' seen; exit 9; fi; " +
      'test -f own.txt && echo own-verify-ran'
    const tasks = [
      { id: 'good', prompt: scripted('good', [write('package.json', pkg(PASSING))]) },
      { id: 'bad', prompt: scripted('bad', [write('package.json', pkg(FAILING))]) },
      { id: 'own', verify: ownVerify, prompt: scripted('own', [write('own.txt', 'own\n')]) }
    ]
    const run = await stack.run({ inputs: { tasks: JSON.stringify(tasks), verify: 'npm test' } })
    expect(run.exitCode, run.stdout + run.stderr).not.toBe(0)
    expectContractResults(run, 3)
    expectSummary(run, ['good', 'bad', 'own'])
    expect(run.stdout).toMatch(/1 of 3 tasks did not land: bad \(verify-failed\)/)
    const out = byId(run)
    const pull = (id: string) => stack.github.state.pulls.find(p => p.pull.head === `fleet/${id}`)

    const bad = out.get('bad')
    expect(bad?.status).toBe('verify-failed')
    expect(bad?.error).toMatch(/verify 'npm test' exited with 3/)
    expect(bad?.['pr-number']).toBe(pull('bad')?.number)
    expect(pull('bad')?.pull.draft).toBe(true)
    expect(pull('bad')?.labels).toContain('fleet:verify-failed')
    expect(pull('bad')?.body).toContain('### Verify: failed (exit 3)')
    expect(pull('bad')?.body).toContain('boom-marker')
    // The work is on the branch all the same.
    expect(await stack.git.readFile(NAME, 'fleet/bad', 'package.json')).toBe(pkg(FAILING))

    for (const id of ['good', 'own']) {
      expect(out.get(id)?.status).toBe('pr-opened')
      expect(out.get(id)?.error).toBeNull()
      expect(pull(id)?.pull.draft).toBe(false)
      expect(pull(id)?.labels).toEqual([])
      expect(pull(id)?.body).toContain('### Verify: passed')
    }
    expect(pull('good')?.body).toContain('tests-pass-marker')
    expect(pull('own')?.body).toContain('own-verify-ran')
    expect(pull('own')?.body).not.toContain('secret-seen')
    expect(run.outputs.succeeded).toBe('2')
    expect(run.outputs.failed).toBe('1')
  })

  it('clears the verify-failed label when the same task passes verify on a later run', async () => {
    const before = stack.github.state.pulls.find(p => p.pull.head === 'fleet/bad')
    expect(before?.labels).toContain('fleet:verify-failed')
    const tasks = [
      { id: 'bad', prompt: scripted('bad-fixed', [write('package.json', pkg(PASSING))]) }
    ]
    const run = await stack.run({ inputs: { tasks: JSON.stringify(tasks), verify: 'npm test' } })
    expectOk(run)
    const r = byId(run).get('bad')
    expect(r?.status).toBe('pr-updated')
    expect(r?.['pr-number']).toBe(before?.number)
    const after = stack.github.state.pullByNumber(before?.number ?? -1)
    expect(after?.labels).not.toContain('fleet:verify-failed')
    expect(after?.title).not.toMatch(/verify failed/)
    expect(after?.body).toContain('### Verify: passed')
    expect(after?.body).not.toContain('boom-marker')
    expect(stack.github.invalid).toEqual([])
  })

  it("keeps a push the remote's hook rejects: failed with the hook's words, bundled under RUNNER_TEMP", async () => {
    await stack.git.setPreReceive(
      NAME,
      [
        '#!/bin/sh',
        'while read old new ref; do',
        '  if [ "$ref" = "refs/heads/fleet/blocked" ]; then',
        '    echo "GH006: Protected branch update failed for refs/heads/fleet/blocked." >&2',
        '    exit 1',
        '  fi',
        '  if git diff-tree -r --name-only refs/heads/main "$new" | grep -q "^\\.github/workflows/"; then',
        "    echo 'refusing to allow a GitHub App to create or update workflow `.github/workflows/ci.yml` without `workflows` permission' >&2",
        '    exit 1',
        '  fi',
        'done',
        'exit 0',
        ''
      ].join('\n')
    )
    const tasks = ['blocked', 'free-one', 'free-two'].map(id => ({
      id,
      prompt: scripted(id, [write(`${id}.txt`, `work of ${id}\n`)])
    }))
    tasks.push({
      id: 'workflow',
      prompt: scripted('workflow', [write('.github/workflows/ci.yml', 'on: push\n')])
    })
    const run = await stack.run({ inputs: { tasks: JSON.stringify(tasks) } })
    await stack.git.setPreReceive(NAME, 'exit 0')
    expect(run.exitCode, run.stdout + run.stderr).not.toBe(0)
    expectContractResults(run, 4)
    expectSummary(run, ['blocked', 'free-one', 'free-two', 'workflow'])
    expect(run.stdout).toMatch(/2 of 4 tasks did not land: blocked \(failed\), workflow \(failed\)/)

    const out = byId(run)
    for (const id of ['free-one', 'free-two']) {
      expect(out.get(id)?.status).toBe('pr-opened')
      expect(await stack.git.readFile(NAME, `fleet/${id}`, `${id}.txt`)).toBe(`work of ${id}\n`)
    }
    const blocked = out.get('blocked') as unknown as Record<string, unknown> | undefined
    expect(blocked?.status).toBe('failed')
    expect(blocked?.error).toContain(
      'GH006: Protected branch update failed for refs/heads/fleet/blocked.'
    )
    expect(blocked?.error).toContain('[remote rejected] (pre-receive hook declined)')
    expect(blocked?.error).not.toMatch(/\t|failed to push some refs/)
    expect(blocked?.['pr-number']).toBeNull()
    expect(Object.keys(await stack.git.branches(NAME))).not.toContain('fleet/blocked')
    expect(stack.github.state.pulls.some(p => p.pull.head === 'fleet/blocked')).toBe(false)

    const workflow = out.get('workflow')
    expect(workflow?.status).toBe('failed')
    expect(workflow?.error).toContain(
      'the push touches .github/workflows/ and the token may not change workflows'
    )
    expect(Object.keys(await stack.git.branches(NAME))).not.toContain('fleet/workflow')

    // The outcome names the bundle, and the error says where it is.
    const bundle = blocked?.preserved
    expect(typeof bundle).toBe('string')
    if (typeof bundle !== 'string') return
    expect(path.relative(run.runnerTemp, bundle).startsWith('..')).toBe(false)
    expect(blocked?.error).toContain(bundle)
    expect((await stat(bundle)).isFile()).toBe(true)

    const heads = await git(['bundle', 'list-heads', bundle], tmpdir())
    const sha = /^([0-9a-f]{40}) refs\/heads\/fleet\/blocked$/m.exec(heads)?.[1]
    expect(sha, heads).toBeDefined()
    // A fresh clone of the remote has the bundle's prerequisites: it verifies and unbundles there.
    const clone = await mkdtemp(path.join(tmpdir(), 'fleet-bundle-check-'))
    try {
      await git(['clone', '--quiet', stack.git.repoPath(NAME), clone], clone)
      expect(await git(['bundle', 'verify', bundle], clone)).toContain(
        `${sha} refs/heads/fleet/blocked`
      )
      await git(['fetch', '--quiet', bundle, 'refs/heads/fleet/blocked:refs/heads/rescued'], clone)
      expect(await git(['rev-parse', 'rescued'], clone)).toBe(`${sha}\n`)
      expect(await git(['show', 'rescued:blocked.txt'], clone)).toBe('work of blocked\n')
      expect(await git(['log', '-1', '--format=%s', 'rescued'], clone)).toMatch(
        /^fleet\(blocked\): /
      )
    } finally {
      await rm(clone, { recursive: true, force: true })
    }
    // And the local ref the error names, in the fleet's own clone next to the bundle.
    expect(blocked?.error).toContain('refs/fleet-preserved/fleet/blocked')
    const fleetClone = path.join(path.dirname(bundle), '..', 'repo')
    expect(await git(['rev-parse', 'refs/fleet-preserved/fleet/blocked'], fleetClone)).toBe(
      `${sha}\n`
    )
  })

  it('never overwrites a push a person made while the worker ran: failed, their commit kept, ours bundled', async () => {
    const clone = await mkdtemp(path.join(tmpdir(), 'fleet-human-'))
    const human = ['-c', 'user.name=Human', '-c', 'user.email=human@example.com']
    const pushAs = async (file: string) => {
      await git(['checkout', '--quiet', '-B', 'work', 'origin/main'], clone)
      await git(['fetch', '--quiet', 'origin', '+refs/heads/*:refs/remotes/origin/*'], clone)
      await git(['reset', '--quiet', '--hard', 'origin/fleet/raced'], clone).catch(() => '')
      await git([...human, 'commit', '--quiet', '--allow-empty', '-m', `human ${file}`], clone)
      await git(['push', '--quiet', 'origin', 'HEAD:refs/heads/fleet/raced'], clone)
      return (await git(['rev-parse', 'HEAD'], clone)).trim()
    }
    try {
      await git(['clone', '--quiet', stack.git.repoPath(NAME), clone], clone)
      await pushAs('first')
      // The worker's answer after its write is held until a person has pushed to the same
      // branch: the push comes while the worker runs, however slow either is.
      const steps = [write('raced.txt', 'ours\n'), { text: 'Wrote it.' }]
      const tasks = [
        { id: 'raced', prompt: `Task raced\n${script({ key: 'raced', steps, holdAt: 1 })}` }
      ]
      const running = stack.run({ inputs: { tasks: JSON.stringify(tasks) } })
      await waitFor('the worker to write', () =>
        stack.model.requestsFor('raced').some(r => r.step >= 1)
      )
      const theirs = await pushAs('second')
      stack.model.release('raced')
      const run = await running

      expect(run.exitCode, run.stdout + run.stderr).not.toBe(0)
      const r = byId(run).get('raced') as unknown as Record<string, unknown> | undefined
      expect(r?.status).toBe('failed')
      expect(r?.error).toMatch(/the branch changed on the remote after it was fetched/)
      expect((await stack.git.branches(NAME))['fleet/raced']).toBe(theirs)
      const bundle = r?.preserved
      expect(typeof bundle).toBe('string')
      if (typeof bundle !== 'string') return
      const heads = await git(['bundle', 'list-heads', bundle], tmpdir())
      const ours = /^([0-9a-f]{40}) refs\/heads\/fleet\/raced$/m.exec(heads)?.[1] ?? ''
      await git(['fetch', '--quiet', bundle, 'refs/heads/fleet/raced:refs/heads/ours'], clone)
      expect(await git(['rev-parse', 'ours'], clone)).toBe(`${ours}\n`)
      expect(await git(['show', 'ours:raced.txt'], clone)).toBe('ours\n')
    } finally {
      await rm(clone, { recursive: true, force: true })
    }
  })

  it('retries a 502 on the first pulls.create and opens the PR', async () => {
    const postsBefore = stack.github.requests.filter(
      r => r.method === 'POST' && r.path.endsWith('/pulls')
    ).length
    stack.github.fail({ method: 'POST', path: /\/pulls$/, status: 502, times: 1 })
    const tasks = [
      { id: 'flaky-api', prompt: scripted('flaky-api', [write('flaky.txt', 'flaky\n')]) }
    ]
    const run = await stack.run({ inputs: { tasks: JSON.stringify(tasks) } })
    expectOk(run)
    expectContractResults(run, 1)
    const r = byId(run).get('flaky-api')
    expect(r?.status).toBe('pr-opened')
    const posts = stack.github.requests
      .filter(q => q.method === 'POST' && q.path.endsWith('/pulls'))
      .slice(postsBefore)
    expect(posts.map(q => q.status)).toEqual([502, 201])
    const pr = stack.github.state.pulls.filter(p => p.pull.head === 'fleet/flaky-api')
    expect(pr).toHaveLength(1)
    expect(pr[0]?.number).toBe(r?.['pr-number'])
  })

  it('preserves the work when pulls.create still fails after the retries', async () => {
    const postsBefore = stack.github.requests.filter(
      r => r.method === 'POST' && r.path.endsWith('/pulls')
    ).length
    // More failures than any retry budget; this is the file's last scenario, so leftovers harm none.
    stack.github.fail({ method: 'POST', path: /\/pulls$/, status: 502, times: 50 })
    const tasks = [{ id: 'no-api', prompt: scripted('no-api', [write('no-api.txt', 'no api\n')]) }]
    const run = await stack.run({ inputs: { tasks: JSON.stringify(tasks) } })
    expect(run.exitCode, run.stdout + run.stderr).not.toBe(0)
    expectContractResults(run, 1)
    const r = byId(run).get('no-api') as unknown as Record<string, unknown> | undefined
    expect(r?.status).toBe('failed')
    expect(r?.error).toMatch(/the branch was pushed but the pull request could not be opened/)
    const posts = stack.github.requests
      .filter(q => q.method === 'POST' && q.path.endsWith('/pulls'))
      .slice(postsBefore)
    expect(posts.length).toBeGreaterThan(1)
    expect(posts.every(q => q.status === 502)).toBe(true)
    expect(await stack.git.readFile(NAME, 'fleet/no-api', 'no-api.txt')).toBe('no api\n')
    const bundle = r?.preserved
    expect(typeof bundle).toBe('string')
    if (typeof bundle !== 'string') return
    expect(r?.error).toContain(bundle)
    expect(await git(['bundle', 'list-heads', bundle], tmpdir())).toMatch(
      /^[0-9a-f]{40} refs\/heads\/fleet\/no-api$/m
    )
  })
})
