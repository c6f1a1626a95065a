// A cage's teardown left to run beside what follows its command (cage/teardown.ts): begun without
// being awaited, its failure logged, and every one (those begun while the run's end waits too)
// ended by settleCages; a cage's release begins its teardown even when moving its clone aside failed,
// and the teardown's steps run in turn past a part that failed.
import { describe, expect, it } from 'vitest'
import {
  closeAtEnd,
  inTurn,
  leaveBehind,
  releaseCage,
  settleCages
} from '../../src/cage/teardown.js'

/** A teardown held until the test lets it end. */
function held() {
  let end!: (error?: Error) => void
  const done = new Promise<void>((resolve, reject) => {
    end = error => (error ? reject(error) : resolve())
  })
  return { run: () => done, end }
}

describe('leaveBehind and settleCages', () => {
  it('returns before the teardown ends, and settleCages waits for it', async () => {
    const t = held()
    let ended = false
    leaveBehind(
      () => t.run().then(() => void (ended = true)),
      () => undefined
    )
    let settled = false
    const settling = settleCages().then(() => void (settled = true))
    await new Promise(r => setTimeout(r, 20))
    expect(settled).toBe(false)
    t.end()
    await settling
    expect(ended).toBe(true)
  })

  it('waits for a teardown begun while it waits', async () => {
    const first = held()
    const second = held()
    leaveBehind(first.run, () => undefined)
    let settled = false
    const settling = settleCages().then(() => void (settled = true))
    leaveBehind(second.run, () => undefined)
    first.end()
    await new Promise(r => setTimeout(r, 20))
    expect(settled).toBe(false)
    second.end()
    await settling
    expect(settled).toBe(true)
  })

  it("logs a teardown's failure instead of throwing it at anyone", async () => {
    const t = held()
    const logged: string[] = []
    leaveBehind(t.run, m => logged.push(m))
    t.end(new Error('EBUSY: the cache view is busy'))
    await settleCages()
    expect(logged).toEqual(["a cage's teardown failed: EBUSY: the cache view is busy"])
  })
})

describe('closeAtEnd', () => {
  it('closes what the cages shared once every teardown has ended, once, its failure logged', async () => {
    const t = held()
    const order: string[] = []
    const logged: string[] = []
    leaveBehind(
      () => t.run().then(() => void order.push('teardown')),
      () => undefined
    )
    closeAtEnd(
      () => Promise.resolve(void order.push('network')),
      () => undefined
    )
    closeAtEnd(
      () => Promise.reject(new Error('network is in use')),
      m => logged.push(m)
    )
    const settling = settleCages()
    await new Promise(r => setTimeout(r, 20))
    expect(order).toEqual([])
    t.end()
    await settling
    expect(order).toEqual(['teardown', 'network'])
    expect(logged).toEqual(["closing the run's cages failed: network is in use"])
    await settleCages()
    expect(order).toEqual(['teardown', 'network'])
  })
})

describe('releaseCage', () => {
  it('awaits the move, then begins the teardown with what was moved, not awaited', async () => {
    const t = held()
    const given: unknown[] = []
    await releaseCage(
      () => Promise.resolve('moved-clone'),
      async moved => {
        given.push(moved)
        await t.run()
      },
      () => undefined
    )
    expect(given).toEqual(['moved-clone'])
    t.end()
    await settleCages()
  })

  it("begins the teardown when the move fails, and throws the move's error", async () => {
    const torn: unknown[] = []
    const released = releaseCage(
      () => Promise.reject(new Error('EACCES: permission denied, rename')),
      moved => Promise.resolve(void torn.push(moved)),
      () => undefined
    )
    await expect(released).rejects.toThrow('EACCES: permission denied, rename')
    await settleCages()
    expect(torn).toEqual([undefined])
  })
})

describe('inTurn', () => {
  it('runs every step after a part that failed, and throws the first failure at the end', async () => {
    const ran: string[] = []
    const part = (name: string, fail?: string) => () => {
      ran.push(name)
      return fail ? Promise.reject(new Error(fail)) : Promise.resolve()
    }
    const teardown = inTurn([
      [part('network'), part('clone', 'EBUSY: the clone')],
      [part('view', 'EBUSY: a view')],
      [part('host dir')]
    ])
    await expect(teardown).rejects.toThrow('EBUSY: the clone')
    expect(ran).toEqual(['network', 'clone', 'view', 'host dir'])
  })

  it('runs a step only once the step before has ended', async () => {
    const t = held()
    const ran: string[] = []
    const teardown = inTurn([
      [() => t.run().then(() => void ran.push('first'))],
      [() => Promise.resolve(void ran.push('second'))]
    ])
    await new Promise(r => setTimeout(r, 20))
    expect(ran).toEqual([])
    t.end()
    await teardown
    expect(ran).toEqual(['first', 'second'])
  })
})
