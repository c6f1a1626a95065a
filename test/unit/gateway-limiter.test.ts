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

  it('says when each worker with a request in flight or queued began to wait, one entry per worker', async () => {
    let now = 1000
    const limiter = new Limiter({ fixed: 1, now: () => now })
    expect(limiter.waitsSince()).toEqual([])
    const a1 = await limiter.acquire({ worker: 'a' })
    now = 1500
    // A second request of the same worker is the same wait; another worker's, queued, is its own.
    void limiter.acquire({ worker: 'a' })
    void limiter.acquire({ worker: 'b' })
    expect(limiter.waitsSince().sort()).toEqual([1000, 1500])
    now = 2000
    limiter.release(a1, 'ok')
    await Promise.resolve()
    // a's second request went out: a still waits, since its first began.
    expect(limiter.waitsSince().sort()).toEqual([1000, 1500])
  })

  it('forgets a worker once it has nothing in flight or queued: its next wait starts anew', async () => {
    let now = 1000
    const limiter = new Limiter({ now: () => now })
    const t = await limiter.acquire({ worker: 'a' })
    now = 4000
    limiter.release(t, 'ok')
    expect(limiter.waitsSince()).toEqual([])
    await limiter.acquire({ worker: 'a' })
    expect(limiter.waitsSince()).toEqual([4000])
  })

  it('a fixed limit never moves', async () => {
    const limiter = new Limiter({ fixed: 3 })
    const t = await limiter.acquire()
    limiter.release(t, 'refused')
    expect(limiter.limit).toBe(3)
  })

  it('holds at the concurrency the endpoint took, and a refused probe costs one step, not half', async () => {
    const limiter = new Limiter({ growAfter: 3 })
    const first = await limiter.acquire()
    const others = await Promise.all(Array.from({ length: 7 }, () => limiter.acquire()))
    limiter.release(first, 'refused') // 7 others in flight: the endpoint took 7
    expect(limiter.limit).toBe(7)
    for (const t of others) limiter.release(t, 'ok')
    // Seven in flight at the limit, three successes: a probe at 8.
    const wave = await Promise.all(Array.from({ length: 7 }, () => limiter.acquire()))
    for (const t of wave.slice(0, 3)) limiter.release(t, 'ok')
    expect(limiter.limit).toBe(8)
    for (const t of wave.slice(3)) limiter.release(t, 'ok')
    // The probe refused with seven others in flight: back to 7 (AIMD would have halved to 4).
    const probe = await Promise.all(Array.from({ length: 8 }, () => limiter.acquire()))
    limiter.release(probe[7] as Ticket, 'refused')
    expect(limiter.limit).toBe(7)
    // The next probe needs twice the successes (6) at the limit, not 3.
    for (const t of probe.slice(0, 5)) limiter.release(t, 'ok')
    expect(limiter.limit).toBe(7)
    limiter.release(probe[5] as Ticket, 'ok')
    expect(limiter.limit).toBe(8)
  })

  it('a refusal with nothing else in flight brings the limit to one, never below', async () => {
    const limiter = new Limiter()
    const t = await limiter.acquire()
    limiter.release(t, 'refused')
    expect(limiter.limit).toBe(1)
    const u = await limiter.acquire()
    limiter.release(u, 'refused')
    expect(limiter.limit).toBe(1)
  })

  it('a waiter whose worker goes away leaves the queue', async () => {
    const limiter = new Limiter({ fixed: 1 })
    const held = await limiter.acquire()
    const gone = new AbortController()
    const waiting = limiter.acquire({ signal: gone.signal })
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

describe('the limiter across workers', () => {
  /** Acquires for `worker`, recording the grant order in `log`. */
  const asker = (limiter: Limiter, log: string[]) => (worker: string) =>
    limiter.acquire({ worker }).then(t => {
      log.push(worker)
      return t
    })

  it('holds a worker to its own cap: its burst waits, its siblings do not', async () => {
    const limiter = new Limiter({ fixed: 10, perWorker: 2 })
    const log: string[] = []
    const ask = asker(limiter, log)
    const hog = Array.from({ length: 12 }, () => ask('hog'))
    const calm = ask('calm')
    await Promise.resolve()
    await Promise.resolve()
    expect(log).toEqual(['hog', 'hog', 'calm'])
    expect(limiter.activeFor('hog')).toBe(2)
    expect(limiter.queued).toBe(10)
    // A hog request ends: the next hog request goes, in its order; never a third at once.
    limiter.release(await hog[0]!, 'ok')
    await Promise.resolve()
    expect(limiter.activeFor('hog')).toBe(2)
    expect(log).toEqual(['hog', 'hog', 'calm', 'hog'])
    limiter.release(await calm, 'ok')
    expect(limiter.active).toBe(2)
  })

  it('serves waiting workers in turn: a sibling arriving behind a burst of 12 goes at the next free slot', async () => {
    const limiter = new Limiter({ fixed: 2 })
    const log: string[] = []
    const ask = asker(limiter, log)
    const hog = Array.from({ length: 12 }, () => ask('hog'))
    await Promise.resolve()
    const sib = [ask('sib'), ask('sib')]
    const third = ask('third')
    await Promise.resolve()
    expect(log).toEqual(['hog', 'hog'])
    // Each free slot goes to the waiting worker with the fewest in flight, in turn.
    const order: string[] = []
    const tickets = new Map<string, Ticket[]>()
    for (const [w, ps] of [
      ['hog', hog],
      ['sib', sib],
      ['third', [third]]
    ] as const)
      for (const p of ps) void p.then(t => tickets.set(w, [...(tickets.get(w) ?? []), t]))
    await Promise.resolve()
    for (let i = 0; i < 4; i++) {
      const w = i % 2 === 0 ? 'hog' : (log[log.length - 1] as string)
      const t = tickets.get(w)?.shift()
      if (!t) break
      limiter.release(t, 'ok')
      await Promise.resolve()
      await Promise.resolve()
      order.push(log[log.length - 1] as string)
    }
    expect(order.slice(0, 2)).toEqual(['sib', 'third'])
    expect(log.filter(w => w === 'hog').length).toBeLessThanOrEqual(4)
  })

  it('keeps each worker in its own order, and a retry at the head of its queue', async () => {
    const limiter = new Limiter({ fixed: 1 })
    const granted: string[] = []
    const held = await limiter.acquire({ worker: 'w' })
    const names = ['a', 'b', 'c']
    const waits = names.map(n => limiter.acquire({ worker: 'w' }).then(t => (granted.push(n), t)))
    const retry = limiter
      .acquire({ worker: 'w', first: true })
      .then(t => (granted.push('retry'), t))
    limiter.release(held, 'ok')
    for (const p of [retry, ...waits]) limiter.release(await p, 'ok')
    expect(granted).toEqual(['retry', 'a', 'b', 'c'])
  })
})

describe('the limiter, any sequence (fast-check)', () => {
  it('never passes the fleet limit nor a worker cap, and a waiter is never left behind a free slot it could take', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.oneof(
            fc.record({ acquire: fc.constantFrom('a', 'b', 'c') }),
            fc.record({ release: fc.constantFrom('ok', 'refused', 'failed' as const) })
          ),
          { maxLength: 80 }
        ),
        fc.option(fc.integer({ min: 1, max: 5 }), { nil: undefined }),
        fc.integer({ min: 1, max: 3 }),
        async (ops, fixed, perWorker) => {
          const limiter = new Limiter({
            ...(fixed === undefined ? { growAfter: 2 } : { fixed }),
            perWorker
          })
          const held: Ticket[] = []
          const waiting = new Map<string, number>()
          for (const op of ops) {
            if ('acquire' in op) {
              const w = op.acquire
              waiting.set(w, (waiting.get(w) ?? 0) + 1)
              void limiter.acquire({ worker: w }).then(t => {
                waiting.set(w, (waiting.get(w) ?? 0) - 1)
                held.push(t)
              })
            } else {
              const t = held.shift()
              if (t) limiter.release(t, op.release)
            }
            await Promise.resolve()
            await Promise.resolve()
            expect(limiter.limit).toBeGreaterThanOrEqual(1)
            for (const w of ['a', 'b', 'c']) {
              expect(limiter.activeFor(w)).toBeLessThanOrEqual(perWorker)
              // Work-conserving: a worker still waiting has its cap full or the fleet's.
              if ((waiting.get(w) ?? 0) > 0)
                expect(limiter.activeFor(w) >= perWorker || limiter.active >= limiter.limit).toBe(
                  true
                )
            }
          }
        }
      )
    )
  })
})
