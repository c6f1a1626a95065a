// Issue 8, through dist/ and the real claude CLI: the model endpoint and the worker binary failing.
// Each task ends in a defined outcome with a sentence, and no process of the run is left behind.
import { chmod, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { useStack, useTemp } from '../support/scenario.js'
import { expectNoOrphans, task, write, writeThenDone } from './faults-support.js'
import { byId, OWNER, REPO, type Stack } from '../../demo/stack.js'

const FULL = `${OWNER}/${REPO}`
const REAL_CLAUDE = path.resolve(import.meta.dirname, '../../node_modules/.bin/claude')

const fleetBranches = async (stack: Stack) =>
  Object.keys(await stack.git.branches(FULL)).filter(b => b.startsWith('fleet/'))

describe('the model endpoint cutting streams and sending garbage', () => {
  const stack = useStack()

  it('failed with a sentence after the CLI and the action retried; no branch, no PR, nothing running', async () => {
    const tasks = [
      task('dropped', { steps: writeThenDone('dropped.txt'), drop: true }),
      task('garbled', { steps: writeThenDone('garbled.txt'), garbage: true })
    ]
    const run = await stack.run({ inputs: { tasks: JSON.stringify(tasks), 'max-attempts': '2' } })
    expect(run.exitCode, run.stdout).not.toBe(0)
    const out = byId(run)

    // A cut stream is retried by the CLI (stream, then once without), then the action runs the
    // worker again; every try is cut, so it fails with the CLI's own words. Usage still adds up.
    const dropped = out.get('dropped')
    expect(dropped?.status).toBe('failed')
    expect(dropped?.attempts).toBe(2)
    expect(dropped?.error).toMatch(
      /^the model endpoint did not answer: .*Connection to the API was lost/
    )
    expect(run.stdout).toMatch(
      /\[dropped\] attempt 1 failed \(the model endpoint did not answer: .*\); retrying in \d+\.\ds/
    )
    const drops = stack.model.requestsFor('dropped')
    expect(drops.length).toBeGreaterThanOrEqual(4)
    expect(drops.every(r => r.outcome === 'drop')).toBe(true)
    // Usage is what the endpoint reported, as the model gateway read it: every cut stream's
    // message_start counts, also the one the CLI asked for without streaming (the CLI itself could
    // not read that one's SSE and counted less).
    expect(dropped?.usage).toEqual(stack.model.usageFor('dropped'))

    // HTML where SSE belongs: the CLI asks once more without streaming, gets HTML again, gives up.
    const garbled = out.get('garbled')
    expect(garbled?.status).toBe('failed')
    expect(garbled?.attempts).toBe(2)
    expect(garbled?.error).toMatch(
      /^the model endpoint did not answer: .*malformed response \(HTTP 200\)/
    )
    const garbage = stack.model.requestsFor('garbled')
    expect(garbage.map(r => [r.outcome, r.stream])).toEqual([
      ['garbage', true],
      ['garbage', false],
      ['garbage', true],
      ['garbage', false]
    ])
    expect(run.stdout).toMatch(/2 of 2 tasks did not land: dropped \(failed\), garbled \(failed\)/)
    expect(stack.github.state.pulls).toEqual([])
    expect(await fleetBranches(stack)).toEqual([])
    await expectNoOrphans(run)
  })
})

/** The delays the action logged for a task's retries, in seconds, attempt by attempt. */
function retryDelays(stdout: string, id: string): number[] {
  const pattern = new RegExp(
    `^\\[${id}\\] attempt (\\d+) failed \\((.*)\\); retrying in (\\d+\\.\\d)s$`,
    'gm'
  )
  return [...stdout.matchAll(pattern)].map(m => {
    expect(m[2]).toBe('the model endpoint kept rate-limiting the worker (429)')
    return Number(m[3])
  })
}

describe('a 429 storm on every worker at once', () => {
  const stack = useStack()

  it('retries each worker after its own jittered delay: two land on the third attempt, one runs out of attempts', async () => {
    // The gateway tries each request max-attempts (3) times and the CLI sends it 3 times
    // (CLAUDE_CODE_MAX_RETRIES=2), so one worker run absorbs 9 refusals: 18 fail two worker runs
    // and 27 fail all three max-attempts.
    const storm = (times: number) => ({ faults: [{ status: 429, times, retryAfter: 0 }] })
    const tasks = [
      task('storm-a', { steps: writeThenDone('a.txt'), ...storm(18) }),
      task('storm-b', { steps: writeThenDone('b.txt'), ...storm(18) }),
      task('storm-c', { steps: writeThenDone('c.txt'), ...storm(27) })
    ]
    const run = await stack.run({
      inputs: {
        tasks: JSON.stringify(tasks),
        'max-parallel': '3',
        retries: '{max-attempts: 3, delay-seconds: 2}'
      }
    })
    expect(run.exitCode, run.stdout).not.toBe(0)
    const out = byId(run)
    for (const id of ['storm-a', 'storm-b']) {
      expect(out.get(id)?.status, out.get(id)?.error ?? '').toBe('pr-opened')
      expect(out.get(id)?.attempts).toBe(3)
    }
    const c = out.get('storm-c')
    expect(c?.status).toBe('failed')
    expect(c?.attempts).toBe(3)
    expect(c?.error).toBe('the model endpoint kept rate-limiting the worker (429)')
    expect(c?.branch).toBeNull()
    expect((await fleetBranches(stack)).sort()).toEqual(['fleet/storm-a', 'fleet/storm-b'])

    // All three were refused together: each worker's first 429 came before any worker's retry.
    const firstOf = (id: string) => stack.model.requestsFor(id)[0]?.at ?? Infinity
    const ids = ['storm-a', 'storm-b', 'storm-c']
    const firstRetry = Math.min(
      ...ids.map(
        id => stack.model.requestsFor(id).filter(r => r.outcome === 'fault')[9]?.at ?? Infinity
      )
    )
    for (const id of ids) expect(firstOf(id)).toBeLessThan(firstRetry)

    // Full jitter: after attempt n the wait is drawn from [base·2^(n-1)/2, base·2^(n-1)].
    const delays = ids.map(id => retryDelays(run.stdout, id))
    for (const d of delays) {
      expect(d).toHaveLength(2)
      expect(d[0]).toBeGreaterThanOrEqual(1)
      expect(d[0]).toBeLessThanOrEqual(2)
      expect(d[1]).toBeGreaterThanOrEqual(2)
      expect(d[1]).toBeLessThanOrEqual(4)
    }
    // Without jitter all three would wait alike and hit the endpoint together again.
    expect(new Set(delays.map(d => d.join(' '))).size).toBeGreaterThan(1)
    // And the server saw each wait: from a worker run's last 429 to the next run's first request.
    for (const [i, id] of ids.entries()) {
      const requests = stack.model.requestsFor(id)
      for (const [n, delay] of (delays[i] ?? []).entries()) {
        const gap = (requests[9 * (n + 1)]?.at ?? 0) - (requests[9 * n + 8]?.at ?? Infinity)
        expect(gap, `${id} wait after attempt ${n + 1}`).toBeGreaterThanOrEqual(delay * 1000 - 100)
      }
    }
    await expectNoOrphans(run)
  })
})

describe('the claude binary', () => {
  const stack = useStack()
  const bin = useTemp('fleet-e2e-claude-')

  it('missing, or not executable: refused by claude-path before any worker, nothing pushed', async () => {
    const plain = path.join(bin, 'not-executable')
    await writeFile(plain, '#!/bin/sh\nexit 0\n')
    await chmod(plain, 0o644)
    const tasks = JSON.stringify([task('never', { steps: writeThenDone('never.txt') })])
    for (const claude of [path.join(bin, 'missing'), plain]) {
      const run = await stack.run({ inputs: { tasks, 'claude-path': claude } })
      expect(run.exitCode).toBe(1)
      expect(run.stdout).toContain(
        `::error::Input 'claude-path': '${claude}' is not an executable file; give the path of the claude binary, or leave it empty`
      )
      await expectNoOrphans(run)
    }
    expect(stack.model.requests).toEqual([])
    expect(await fleetBranches(stack)).toEqual([])
    expect(stack.github.state.pulls).toEqual([])
  })

  it('killed by SIGKILL mid-task: failed naming the signal, its partial work pushed to its branch', async () => {
    // Execs the real CLI; a watcher in the same process kills it once the first file is written.
    const wrapper = path.join(bin, 'claude-killed')
    await writeFile(
      wrapper,
      [
        '#!/bin/sh',
        `[ "$1" = --version ] && exec '${REAL_CLAUDE}' "$@"`,
        'me=$$',
        '( while [ ! -f partial.txt ]; do sleep 0.1; done; kill -KILL "$me" ) &',
        `exec '${REAL_CLAUDE}' "$@"`,
        ''
      ].join('\n')
    )
    await chmod(wrapper, 0o755)
    // The second answer is slow, so the kill lands while the worker waits for it.
    const steps = [write('partial.txt', 'half done\n'), write('never.txt'), { text: 'never' }]
    const tasks = [task('killed', { steps, delayMs: 1500 })]
    // isolation: process: the wrapper execs a claude outside what a sandbox shows (it shows the
    // claude-path's own directory only).
    const run = await stack.run({
      inputs: { tasks: JSON.stringify(tasks), 'claude-path': wrapper, isolation: 'process' }
    })
    expect(run.exitCode, run.stdout).toBe(1)
    const r = byId(run).get('killed')
    expect(r?.status).toBe('failed')
    expect(r?.attempts).toBe(1)
    expect(r?.error).toMatch(/^the worker was killed by SIGKILL without a result/)
    expect(r?.error).toMatch(/its partial work is on branch fleet\/killed$/)
    expect(r?.branch).toBe('fleet/killed')
    expect(await stack.git.readFile(FULL, 'fleet/killed', 'partial.txt')).toBe('half done\n')
    expect(await stack.git.readFile(FULL, 'fleet/killed', 'never.txt')).toBeUndefined()
    const [commit] = await stack.git.log(FULL, 'fleet/killed', 1)
    // Sealed in the cage before the verdict is known: the action's usual subject (the outcome says how it ended).
    expect(commit?.subject).toBe('fleet(killed): Task killed.')
    expect(stack.github.state.pulls).toEqual([])
    await expectNoOrphans(run, wrapper)
  })
})
