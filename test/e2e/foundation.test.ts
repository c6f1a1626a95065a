import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { expectOk, useStack } from '../support/scenario.js'
import { script } from '../../demo/model-server.js'
import { byId, OWNER, REPO, results } from '../../demo/stack.js'
import { clonesLeft, fleetDir } from './faults-support.js'

const writes = (key: string, file: string, content: string) =>
  `Write ${file}\n${script({ key, steps: [{ tool: 'Write', input: { file_path: file, content } }, { text: `Wrote ${file}.` }] })}`

describe('a fleet from the tasks input to pull requests', () => {
  const stack = useStack()

  it('runs three tasks two at a time: three branches, three PRs, usage as the model reported', async () => {
    const tasks = [
      { id: 'alpha', prompt: writes('alpha', 'alpha.txt', 'from alpha\n') },
      { id: 'beta', prompt: writes('beta', 'beta.txt', 'from beta\n') },
      { id: 'gamma', prompt: writes('gamma', 'docs/gamma.md', '# gamma\n') }
    ]
    const run = await stack.run({ inputs: { tasks: JSON.stringify(tasks), 'max-parallel': '2' } })
    expectOk(run)

    const branches = await stack.git.branches(`${OWNER}/${REPO}`)
    expect(
      Object.keys(branches)
        .filter(b => b.startsWith('fleet/'))
        .sort()
    ).toEqual(['fleet/alpha', 'fleet/beta', 'fleet/gamma'])
    expect(await stack.git.readFile(`${OWNER}/${REPO}`, 'fleet/alpha', 'alpha.txt')).toBe(
      'from alpha\n'
    )
    expect(await stack.git.readFile(`${OWNER}/${REPO}`, 'fleet/beta', 'beta.txt')).toBe(
      'from beta\n'
    )
    expect(await stack.git.readFile(`${OWNER}/${REPO}`, 'fleet/gamma', 'docs/gamma.md')).toBe(
      '# gamma\n'
    )

    const open = stack.github.state.pulls.filter(p => p.state === 'open')
    expect(open.map(p => p.pull.head).sort()).toEqual(['fleet/alpha', 'fleet/beta', 'fleet/gamma'])
    expect(open.every(p => p.pull.base === 'main')).toBe(true)
    expect(stack.github.invalid).toEqual([])

    const out = byId(run)
    expect(results(run)).toHaveLength(3)
    for (const id of ['alpha', 'beta', 'gamma']) {
      const r = out.get(id)
      expect(r?.status).toBe('pr-opened')
      expect(r?.branch).toBe(`fleet/${id}`)
      expect(r?.['pr-url']).toMatch(/\/pull\/\d+$/)
      expect(r?.turns).toBe(2)
      expect(r?.usage).toEqual(stack.model.usageFor(id))
      expect(r?.usage.input_tokens).toBeGreaterThan(0)
    }
    expect(JSON.parse(run.outputs['pull-requests'] ?? '[]')).toHaveLength(3)
    expect(run.outputs.succeeded).toBe('3')
    expect(run.outputs.failed).toBe('0')
    expect(run.summary).toContain('| task | status | PR |')
    // Its own git processes kept open between requests end as it does, not as ones it left running.
    expect(run.stdout).not.toContain('this run had left running')
    // Its cages' teardowns, left to run beside each task's push, all ended before the action did.
    const { cages, left } = await clonesLeft(path.join(await fleetDir(run), 'workers'))
    expect(cages).toBeGreaterThanOrEqual(3)
    expect(left).toEqual([])
    expect(run.stdout).not.toContain("a cage's teardown failed")
  })

  it('refuses a malformed task list before any worker runs, naming the input and the item', async () => {
    const before = stack.model.requests.length
    const missingPrompt = await stack.run({
      inputs: { tasks: '- prompt: fine\n- title: no prompt here\n' }
    })
    expect(missingPrompt.exitCode).not.toBe(0)
    expect(missingPrompt.stdout).toMatch(/Input 'tasks'.*item 2.*prompt/)

    const badId = await stack.run({
      inputs: { tasks: JSON.stringify([{ id: '../x', prompt: 'escape' }]) }
    })
    expect(badId.exitCode).not.toBe(0)
    expect(badId.stdout).toMatch(/Input 'tasks'.*item 1.*'\.\.\/x' is not a valid id/)
    expect(stack.model.requests.length).toBe(before)
  })
})
