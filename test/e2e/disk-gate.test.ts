// Disk is watched, through dist/ with the real claude CLI: before each worker the scheduler reads
// the free disk of the fleet's directory (here fixed at none through the test-only
// FLEET_WORKER_TEST_DISK_FREE, as the CPU gate's e2e fixes the CPU demand), starts one task (a
// batch must move), holds the next until a slot frees, and the summary says the disk held it.
import { describe, expect, it } from 'vitest'
import { expectOk, useStack, writeScript } from '../support/scenario.js'
import { TEST_DISK_FREE_ENV } from '../../src/fleet/machine.js'
import { results } from '../../demo/stack.js'

const task = (id: string) => ({
  id,
  prompt: `Write ${id}.txt\n${writeScript(id, `${id}.txt`, `${id}\n`, 'Done.')}`
})

describe("the scheduler watches the fleet's disk", () => {
  const stack = useStack()

  it('with no free disk, runs one task at a time, lands them all, and says the disk held it', async () => {
    const ids = ['disk-a', 'disk-b', 'disk-c']
    const run = await stack.run({
      inputs: { tasks: JSON.stringify(ids.map(task)), 'max-parallel': '3' },
      env: { [TEST_DISK_FREE_ENV]: '0' }
    })
    expectOk(run)
    expect(results(run).map(r => r.status)).toEqual(['pr-opened', 'pr-opened', 'pr-opened'])
    expect(run.summary).toMatch(
      /Peak parallelism: 1 worker at once \(max-parallel: 3, \d+ cores\); it stopped there because the disk of the fleet's directory had no room for one more task's reserve\./
    )
    // One after another: no task's first model request came before another's last.
    const spans = ids
      .map(id => stack.model.requestsFor(id).map(r => r.at))
      .map(ats => [Math.min(...ats), Math.max(...ats)] as const)
      .sort((a, b) => a[0] - b[0])
    for (let i = 1; i < spans.length; i++)
      expect(spans[i]![0]).toBeGreaterThanOrEqual(spans[i - 1]![1])
  })

  it('with room on disk, the same three run side by side', async () => {
    const ids = ['room-a', 'room-b', 'room-c']
    const run = await stack.run({
      inputs: { tasks: JSON.stringify(ids.map(task)), 'max-parallel': '3' },
      env: { [TEST_DISK_FREE_ENV]: String(1024 ** 4) }
    })
    expectOk(run)
    expect(run.summary).not.toContain('the disk of the fleet')
  })
})
