// A cage's teardown left to run beside what follows its command (cage/teardown.ts): begun without
// being awaited, its failure logged, and every one (those begun while the run's end waits too)
// ended by settleCages.
import { describe, expect, it } from 'vitest'
import { leaveBehind, settleCages } from '../../src/cage/teardown.js'

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
