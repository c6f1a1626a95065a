import { describe, expect, it } from 'vitest'
import { useStack } from '../support/scenario.js'
import { OWNER, REPO, byId } from '../../demo/stack.js'
import { script } from '../../demo/model-server.js'

const FULL = `${OWNER}/${REPO}`

// The script replays from its first step in the fix-up turn (a new conversation), so its one Bash
// step keeps state in the worktree: the first run leaves a broken test and a marker, the second
// (seeing the marker) repairs the test and removes the marker.
const STEP = [
  'if [ -e .fleet-tried ]; then rm .fleet-tried;',
  `printf '{"private":true,"scripts":{"test":"echo repaired-ok"}}' > package.json;`,
  `else touch .fleet-tried; printf '{"private":true,"scripts":{"test":"echo broken-marker; exit 5"}}' > package.json; fi`
].join(' ')

describe('verify-fix-up: one more worker turn with the failed check', () => {
  const stack = useStack()

  it('a failed verify, then a fix-up turn that repairs it: pr-opened, the body tells both runs', async () => {
    const task = {
      id: 'fixable',
      prompt: `Add a test script.\n${script({ key: 'fixable', steps: [{ tool: 'Bash', input: { command: STEP } }, { text: 'Done.' }] })}`
    }
    const run = await stack.run({
      inputs: { tasks: JSON.stringify([task]), verify: 'npm test', 'verify-fix-up': 'true' }
    })
    expect(run.exitCode, run.stdout).toBe(0)
    const r = byId(run).get('fixable')
    expect(r?.status).toBe('pr-opened')
    expect(run.stdout).toMatch(/\[fixable\] verify failed \(exit 5\); one fix-up turn/)

    // The fix-up worker was told what the check printed.
    const prompts = stack.model.requestsFor('fixable').map(q => JSON.stringify(q.body))
    expect(prompts.some(p => p.includes('failed (exit 5)') && p.includes('broken-marker'))).toBe(
      true
    )
    // Both runs' tokens are counted.
    expect(r?.usage).toEqual(stack.model.usageFor('fixable'))
    expect(r?.turns).toBe(4)

    const pkg = await stack.git.readFile(FULL, 'fleet/fixable', 'package.json')
    expect(pkg).toContain('repaired-ok')
    expect(await stack.git.readFile(FULL, 'fleet/fixable', '.fleet-tried')).toBeUndefined()
    const pr = stack.github.state.pulls.find(p => p.pull.head === 'fleet/fixable')
    expect(pr?.pull.draft).toBe(false)
    expect(pr?.body).toContain('### Verify: passed')
    expect(pr?.body).toContain('It failed first (exit 5) and the worker had one fix-up turn')
    expect(pr?.body).toContain('broken-marker')
  })

  it('without verify-fix-up the same task stays verify-failed, with no second worker', async () => {
    const task = {
      id: 'unfixed',
      prompt: `Add a test script.\n${script({ key: 'unfixed', steps: [{ tool: 'Bash', input: { command: STEP } }, { text: 'Done.' }] })}`
    }
    const run = await stack.run({ inputs: { tasks: JSON.stringify([task]), verify: 'npm test' } })
    expect(run.exitCode).not.toBe(0)
    expect(byId(run).get('unfixed')?.status).toBe('verify-failed')
    expect(stack.model.requestsFor('unfixed')).toHaveLength(2)
  })
})
