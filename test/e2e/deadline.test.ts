// The run's deadline (timeouts: deadline) once a task has started, through dist/ and the real CLI:
// no worker starts after it (not after a setup that ran past it, not as a fix-up turn, not as a
// retry); what is already running (setup, a worker, verify) runs on to its own bound, and the work
// is kept. How each test knows the deadline has passed: the run started before its task did, so a
// wait of more than deadline-minutes inside the task (a model answer held that long, a setup that
// sleeps that long) ends after the deadline however slow the machine is. Only the task's start
// must come within the deadline (30 s), as in worker-bounds.test.ts.
import { describe, expect, it } from 'vitest'
import { useStack } from '../support/scenario.js'
import { byId, OWNER, REPO } from '../../demo/stack.js'
import { expectNoOrphans, task } from './faults-support.js'

const FULL = `${OWNER}/${REPO}`
const DEADLINE = { 'deadline-minutes': '0.5' }
/** Longer than the deadline, counted from inside a task that started after the run did. */
const PAST_DEADLINE_MS = 31_000

// Leaves a failing test script: verify fails, so a fix-up turn would follow.
const BREAK = `printf '{"private":true,"scripts":{"test":"echo broken-marker; exit 5"}}' > package.json`

describe('the run deadline, once a task has started', () => {
  const stack = useStack()

  it('starts no fix-up turn and no retry after it: the work is kept, each task says why', async () => {
    const tasks = [
      // Its answers are held past the deadline, so its verify fails after it.
      task(
        'late-fix',
        {
          steps: [{ tool: 'Bash', input: { command: BREAK } }, { text: 'Done.' }],
          delayMs: PAST_DEADLINE_MS
        },
        { verify: 'npm test' }
      ),
      // Overloaded past the deadline (three refusals, each held 11 s): its first worker gives up
      // after it, and no second one starts.
      task('late-retry', {
        steps: [{ text: 'never' }],
        faults: [{ status: 529, times: 50 }],
        delayMs: 11_000
      })
    ]
    const run = await stack.run({
      inputs: {
        tasks: JSON.stringify(tasks),
        ...DEADLINE,
        'max-parallel': '2',
        'verify-fix-up': 'true',
        // One gateway attempt per request and the small model as the next attempt: the worker
        // would be run again, were it not past the deadline.
        'max-attempts': '1',
        'small-model': 'claude-haiku-4-5'
      }
    })
    expect(run.exitCode, run.stdout).not.toBe(0)
    const out = byId(run)

    const fix = out.get('late-fix')
    expect(fix?.status, run.stdout).toBe('verify-failed')
    expect(fix?.error).toBe(
      "verify 'npm test' exited with 5; no fix-up turn: the run reached its deadline (timeouts: deadline)"
    )
    expect(run.stdout).toContain(
      '[late-fix] verify failed; no fix-up turn: the run reached its deadline (timeouts: deadline)'
    )
    // One worker's two answers, no fix-up worker's; its work is on its branch, in a PR.
    expect(stack.model.requestsFor('late-fix')).toHaveLength(2)
    expect(fix?.turns).toBe(2)
    expect(await stack.git.readFile(FULL, 'fleet/late-fix', 'package.json')).toContain(
      'broken-marker'
    )
    expect(fix?.['pr-number']).toBeGreaterThan(0)

    const retry = out.get('late-retry')
    expect(retry?.status, run.stdout).toBe('failed')
    expect(retry?.attempts).toBe(1)
    expect(retry?.error).toMatch(
      /overloaded \(529\); the run reached its deadline \(timeouts: deadline\) before the next attempt$/
    )
    expect(run.stdout).toMatch(
      /\[late-retry\] attempt 1 failed; no retry: the run reached its deadline \(timeouts: deadline\) first/
    )
    // Every request came from the first worker's cage (its config dir is in the system prompt):
    // no second attempt's cage (late-retry.2) reached the model.
    const cages = stack.model
      .requestsFor('late-retry')
      .map(r => /\/workers\/late-retry\.(\d+)\//.exec(JSON.stringify(r.body))?.[1])
      .filter(Boolean)
    expect(cages.length).toBeGreaterThan(0)
    expect(new Set(cages)).toEqual(new Set(['1']))
    await expectNoOrphans(run)
  })

  it('a setup that runs past it runs to its end, and then no worker starts: not-started', async () => {
    const tasks = [task('late-setup', { steps: [{ text: 'never' }] })]
    const run = await stack.run({
      inputs: {
        tasks: JSON.stringify(tasks),
        ...DEADLINE,
        setup: `sleep ${PAST_DEADLINE_MS / 1000}; echo setup-finished`
      }
    })
    const r = byId(run).get('late-setup')
    expect(r?.status, run.stdout).toBe('not-started')
    expect(r?.error).toBe(
      `the run reached its deadline (timeouts: deadline) during setup 'sleep ${PAST_DEADLINE_MS / 1000}; echo setup-finished'; no worker ran`
    )
    expect(r?.attempts).toBe(0)
    expect(stack.model.requestsFor('late-setup')).toEqual([])
    expect(Object.keys(await stack.git.branches(FULL))).not.toContain('fleet/late-setup')
    // not-started does not fail the step.
    expect(run.exitCode, run.stdout).toBe(0)
    await expectNoOrphans(run, 'sleep 31')
  })
})
