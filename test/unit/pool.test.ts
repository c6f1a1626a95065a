import { describe, expect, it } from 'vitest'
import type { Outcome } from '../../src/fleet/outcome.js'
import { emptyOutcome, runPool } from '../../src/fleet/pool.js'
import type { Task } from '../../src/tasks/task.js'

const task = (id: string): Task => ({
  id,
  title: id,
  prompt: id,
  branch: `fleet/${id}`,
  source: { kind: 'input' }
})
const tick = () => new Promise(resolve => setTimeout(resolve, 5))

describe('the pool', () => {
  it('holds a slot only for the worker part: the next worker starts while a task still lands', async () => {
    const events: string[] = []
    const outcomes = await runPool([task('a'), task('b')], {
      maxParallel: 1,
      deadline: () => Infinity,
      run: async (t, slot) => {
        await slot(async () => {
          events.push(`${t.id} works`)
          await tick()
        })
        events.push(`${t.id} lands`)
        await tick()
        await tick()
        events.push(`${t.id} landed`)
        return emptyOutcome(t, { status: 'pr-opened' })
      }
    })
    expect(outcomes.map(o => o.status)).toEqual(['pr-opened', 'pr-opened'])
    // b's worker started before a had finished landing.
    expect(events.indexOf('b works')).toBeLessThan(events.indexOf('a landed'))
    expect(events.indexOf('a works')).toBeLessThan(events.indexOf('b works'))
  })

  it('ends every task in one outcome: not-started past the deadline, failed when its life throws', async () => {
    let now = 0
    const seen: Outcome[] = []
    const outcomes = await runPool([task('a'), task('b'), task('c')], {
      maxParallel: 1,
      now: () => now,
      deadline: () => 10,
      onOutcome: o => seen.push(o),
      run: (t, slot) =>
        slot(() => {
          now += 10
          if (t.id === 'a') return Promise.reject(new Error('boom'))
          return Promise.resolve(emptyOutcome(t, { status: 'pr-opened' }))
        })
    })
    expect(outcomes.map(o => [o.id, o.status])).toEqual([
      ['a', 'failed'],
      ['b', 'not-started'],
      ['c', 'not-started']
    ])
    expect(outcomes[0]?.error).toContain('boom')
    expect(outcomes[1]?.error).toMatch(/deadline/)
    expect(seen).toHaveLength(3)
  })
})
