import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { Limiter, type Ticket } from '../../src/gateway/limiter.js'

describe('the upstream limiter', () => {
  it('starts open in auto and learns a cap of two from the refusals of six requests sent together', () => {
    const limiter = new Limiter()
    expect(limiter.limit).toBe(Infinity)
    const tickets: Ticket[] = []
    for (let i = 0; i < 6; i++) void limiter.acquire().then(t => tickets.push(t))
    return Promise.resolve().then(() => {
      expect(limiter.active).toBe(6)
      // The endpoint takes two and refuses four, which come back one after the other.
      for (const t of tickets.slice(2)) limiter.release(t, 'refused')
      expect(limiter.limit).toBe(2)
      expect(limiter.active).toBe(2)
    })
  })

  it('queues past the limit, and lets the next one in when a request ends', async () => {
    const limiter = new Limiter({ fixed: 2 })
    const a = await limiter.acquire()
    await limiter.acquire()
    let third: Ticket | undefined
    void limiter.acquire().then(t => (third = t))
    await Promise.resolve()
    expect(third).toBeUndefined()
    expect(limiter.queued).toBe(1)
    limiter.release(a, 'ok')
    await Promise.resolve()
    expect(third).toBeDefined()
    expect(limiter.active).toBe(2)
  })

  it('a fixed limit never moves', async () => {
    const limiter = new Limiter({ fixed: 3 })
    const t = await limiter.acquire()
    limiter.release(t, 'refused')
    expect(limiter.limit).toBe(3)
  })

  it('halves on a refusal of a request sent after the last cut, and grows by one after a run of successes at the limit', async () => {
    const limiter = new Limiter({ growAfter: 3 })
    const first = await limiter.acquire()
    const others = await Promise.all(Array.from({ length: 7 }, () => limiter.acquire()))
    limiter.release(first, 'refused') // 7 others in flight: min(Inf / 2, 7)
    expect(limiter.limit).toBe(7)
    for (const t of others) limiter.release(t, 'ok')
    // At the limit: seven in flight, then one refused -> halved to 3.
    const wave = await Promise.all(Array.from({ length: 7 }, () => limiter.acquire()))
    limiter.release(wave[0] as Ticket, 'refused')
    expect(limiter.limit).toBe(3)
    for (const t of wave.slice(1)) limiter.release(t, 'ok')
    // Growth needs the limit to have been reached: three at once, three successes.
    const full = await Promise.all(Array.from({ length: 3 }, () => limiter.acquire()))
    for (const t of full) limiter.release(t, 'ok')
    expect(limiter.limit).toBe(4)
  })

  it('a waiter whose worker goes away leaves the queue', async () => {
    const limiter = new Limiter({ fixed: 1 })
    const held = await limiter.acquire()
    const gone = new AbortController()
    const waiting = limiter.acquire(gone.signal)
    gone.abort(new Error('worker left'))
    await expect(waiting).rejects.toThrow('worker left')
    expect(limiter.queued).toBe(0)
    limiter.release(held, 'ok')
    expect(limiter.active).toBe(0)
  })

  it('never has more in flight than its limit, and never drops below one (fast-check)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.oneof(
            fc.constant('acquire' as const),
            fc.constantFrom('ok', 'refused', 'failed' as const)
          ),
          {
            maxLength: 60
          }
        ),
        fc.option(fc.integer({ min: 1, max: 5 }), { nil: undefined }),
        async (ops, fixed) => {
          const limiter = new Limiter(fixed === undefined ? { growAfter: 2 } : { fixed })
          const held: Ticket[] = []
          for (const op of ops) {
            if (op === 'acquire') void limiter.acquire().then(t => held.push(t))
            else {
              const t = held.shift()
              if (t) limiter.release(t, op)
            }
            await Promise.resolve()
            expect(limiter.limit).toBeGreaterThanOrEqual(1)
            // A cut never recalls requests already sent; none is granted past the limit after.
            expect(limiter.queued === 0 || limiter.active >= limiter.limit).toBe(true)
          }
        }
      )
    )
  })
})
