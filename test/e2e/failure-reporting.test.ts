// Issue 13, through dist/: when the fleet itself breaks after issue tracking started, every task
// is still reported — issue comment, labels, summary and outputs — and the error names the cause.
import { describe, expect, it } from 'vitest'
import { ISSUES, labeledIssue, useStack, useTemp, writeScript } from '../support/scenario.js'
import { byId, results } from '../../demo/stack.js'
import { fleetComments, labelsOf } from './triggers-support.js'

describe('the fleet breaking after tracking started', () => {
  const stack = useStack(ISSUES)

  it('a fetch that fails (no such base branch): the task fails naming git, the comment and labels say so, summary and outputs are written', async () => {
    const { issue, payload } = labeledIssue(stack, {
      title: 'Tidy the README',
      body: 'It rambles.'
    })
    const run = await stack.run({
      eventName: 'issues',
      payload,
      inputs: { 'base-branch': 'no-such-branch' }
    })
    expect(run.exitCode, run.stdout + run.stderr).not.toBe(0)
    const id = `issue-${issue.number}`
    expect(results(run).map(r => r.id)).toEqual([id])
    const r = byId(run).get(id)
    expect(r?.status).toBe('failed')
    expect(r?.error).toMatch(
      /^the fleet could not start: git remote: git fetch failed \(128\): .*no-such-branch/
    )
    expect(run.outputs.failed).toBe('1')
    expect(run.summary).toContain(id)
    expect(run.stdout).toMatch(/The fleet could not start: git remote: git fetch failed/)

    // Before, the comment said "queued" and the issue stayed fleet:in-progress for good.
    const [live, ...more] = fleetComments(stack, issue.number)
    expect(more).toEqual([])
    expect(live?.body).toMatch(new RegExp(`\\(\`${id}\`\\) \\| failed: the fleet could not start`))
    expect(labelsOf(stack, issue.number)).toEqual(['fleet:failed'])
    expect(stack.model.requests).toHaveLength(0)
  })
})

describe('report mode against the plan', () => {
  const stack = useStack()
  const outcomesDir = useTemp('fleet-e2e-i13-outcomes-')

  it("plan 3 shards, run shard 0 only, report: the other shards' tasks are not-started naming their shard, and the step fails", async () => {
    const writes = (id: string) =>
      `Write ${id}.txt\n${writeScript(id, `${id}.txt`, `${id}\n`, 'ok')}`
    const tasks = JSON.stringify(['a', 'b', 'c', 'd'].map(id => ({ id, prompt: writes(id) })))
    const planned = await stack.run({ inputs: { tasks, mode: 'plan', 'max-jobs': '3' } })
    expect(planned.exitCode, planned.stdout).toBe(0)
    const plan = planned.outputs.plan ?? ''
    const shard0 = await stack.run({
      inputs: { mode: 'run', shard: '0', plan, 'outcomes-dir': outcomesDir }
    })
    expect(shard0.exitCode, shard0.stdout).toBe(0)
    expect(results(shard0).map(r => r.id)).toEqual(['a', 'd'])

    const report = await stack.run({
      inputs: { mode: 'report', plan, 'outcomes-dir': outcomesDir }
    })
    expect(report.exitCode).not.toBe(0)
    const out = byId(report)
    expect([...out.keys()].sort()).toEqual(['a', 'b', 'c', 'd'])
    expect(out.get('a')?.status).toBe('pr-opened')
    expect(out.get('d')?.status).toBe('pr-opened')
    expect(out.get('b')).toMatchObject({ status: 'not-started', error: 'shard 1 left no outcome' })
    expect(out.get('c')).toMatchObject({ status: 'not-started', error: 'shard 2 left no outcome' })
    expect(report.stdout).toMatch(
      /::error::shard 1, shard 2 left no outcome: 2 planned tasks were not run/
    )
    expect(report.summary).toContain('shard 2 left no outcome')

    // Without the plan the report cannot know, and says only what it has (as before).
    const blind = await stack.run({ inputs: { mode: 'report', 'outcomes-dir': outcomesDir } })
    expect(blind.exitCode).toBe(0)
    expect(
      results(blind)
        .map(r => r.id)
        .sort()
    ).toEqual(['a', 'd'])
  })
})
