// Issue 7, through dist/: plan -> a matrix of shard runs -> report, as the example workflow wires
// them, with a directory standing in for the artifacts the jobs would pass on.
import { readdir } from 'node:fs/promises'
import { describe, expect, it } from 'vitest'
import { expectOk, useStack, useTemp } from '../support/scenario.js'
import { script } from '../../demo/model-server.js'
import { byId, OWNER, REPO, results } from '../../demo/stack.js'

const FULL = `${OWNER}/${REPO}`
const IDS = ['t1', 't2', 't3', 't4', 't5', 't6', 't7']
const writes = (key: string) =>
  `Write ${key}.txt\n${script({ key, steps: [{ tool: 'Write', input: { file_path: `${key}.txt`, content: `from ${key}\n` } }, { text: `Wrote ${key}.txt.` }] })}`
const TASKS = JSON.stringify(IDS.map(id => ({ id, prompt: writes(id) })))

interface PlanJson {
  version: number
  shards: number
  tasks: Array<{ id: string; branch: string }>
}

describe('plan, a matrix of shard runs, report', () => {
  const stack = useStack()
  const outcomesDir = useTemp('fleet-e2e-outcomes-')

  let planText = ''

  it('plans 7 tasks into 3 balanced shards and runs nothing', async () => {
    const plan = await stack.run({ inputs: { tasks: TASKS, mode: 'plan', 'max-jobs': '3' } })
    expectOk(plan)
    expect(JSON.parse(plan.outputs.matrix ?? 'null')).toEqual({
      include: [{ shard: 0 }, { shard: 1 }, { shard: 2 }]
    })
    planText = plan.outputs.plan ?? ''
    const parsed = JSON.parse(planText) as PlanJson
    expect(parsed.version).toBe(1)
    expect(parsed.shards).toBe(3)
    expect(parsed.tasks.map(t => t.id)).toEqual(IDS)
    expect(parsed.tasks.every(t => t.branch === `fleet/${t.id}`)).toBe(true)
    expect(stack.model.requests).toHaveLength(0)
    expect(Object.keys(await stack.git.branches(FULL)).filter(b => b.startsWith('fleet/'))).toEqual(
      []
    )
    expect(stack.github.state.pulls).toHaveLength(0)
  })

  it('runs each shard from the plan: 3 + 2 + 2 tasks, 7 distinct PRs, no task twice', async () => {
    expect(planText).not.toBe('')
    const sizes: number[] = []
    for (const shard of [0, 1, 2]) {
      const run = await stack.run({
        inputs: { mode: 'run', shard: String(shard), plan: planText, 'outcomes-dir': outcomesDir }
      })
      expectOk(run)
      const mine = results(run)
      sizes.push(mine.length)
      // Balanced by index: task i runs in shard i mod 3.
      expect(mine.map(r => r.id)).toEqual(IDS.filter((_, i) => i % 3 === shard))
      expect(mine.every(r => r.status === 'pr-opened')).toBe(true)
    }
    expect(sizes).toEqual([3, 2, 2])
    expect((await readdir(outcomesDir)).sort()).toEqual([
      'fleet-outcomes-0.json',
      'fleet-outcomes-1.json',
      'fleet-outcomes-2.json'
    ])

    const open = stack.github.state.pulls.filter(p => p.state === 'open')
    expect(open.map(p => p.pull.head).sort()).toEqual(IDS.map(id => `fleet/${id}`))
    expect(new Set(open.map(p => p.number)).size).toBe(7)
    for (const id of IDS) {
      expect(await stack.git.readFile(FULL, `fleet/${id}`, `${id}.txt`)).toBe(`from ${id}\n`)
      // Two scripted turns per task, once: a task run by two shards would show four.
      expect(stack.model.requestsFor(id).filter(r => r.outcome === 'reply')).toHaveLength(2)
    }
    expect(stack.github.invalid).toEqual([])
  })

  it('reports the 7 outcomes of the 3 shards as one summary and one results output', async () => {
    const report = await stack.run({ inputs: { mode: 'report', 'outcomes-dir': outcomesDir } })
    expectOk(report)
    const all = results(report)
    expect(all.map(r => r.id).sort()).toEqual(IDS)
    const pulls = new Map(stack.github.state.pulls.map(p => [p.pull.head, p.number]))
    for (const [id, r] of byId(report)) {
      expect(r.status).toBe('pr-opened')
      expect(r['pr-number']).toBe(pulls.get(`fleet/${id}`))
      expect(r.usage).toEqual(stack.model.usageFor(id))
    }
    expect(report.outputs.succeeded).toBe('7')
    expect(report.outputs.failed).toBe('0')
    expect(JSON.parse(report.outputs['pull-requests'] ?? '[]')).toHaveLength(7)
    expect(report.summary).toContain('Merged from 3 shards.')
    // One summary: one table, a row per task.
    expect(report.summary.match(/\| task \| status \| PR \|/g)).toHaveLength(1)
    for (const id of IDS) expect(report.summary).toContain(id)
  })

  it('refuses a tampered plan before any worker runs, naming the plan input', async () => {
    const requests = stack.model.requests.length
    const branches = await stack.git.branches(FULL)
    const tamper = (edit: (task: Record<string, unknown>) => void) => {
      const plan = JSON.parse(planText) as { tasks: Array<Record<string, unknown>> }
      const first = plan.tasks[0]
      if (first) edit(first)
      return JSON.stringify(plan)
    }
    for (const plan of [
      tamper(t => (t.id = '../x')),
      tamper(t => (t.branch = 'main')),
      tamper(t => (t.branch = 'fleet/../main'))
    ]) {
      const run = await stack.run({
        inputs: { mode: 'run', shard: '0', plan, 'outcomes-dir': outcomesDir }
      })
      expect(run.exitCode).not.toBe(0)
      expect(run.stdout).toMatch(/::error::Input 'plan'/)
    }
    expect(stack.model.requests.length).toBe(requests)
    expect(await stack.git.branches(FULL)).toEqual(branches)
  })
})
