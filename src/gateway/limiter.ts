/** How a request held by the limiter ended, for what the limiter learns from it. */
export type Ending = 'ok' | 'refused' | 'failed'

export interface Ticket {
  /** The limiter's epoch when the request was sent: refusals of older requests were foreseen. */
  readonly epoch: number
  /** Whose request it is: its worker's slot is freed when it is released. */
  readonly worker: unknown
}

export interface LimiterOptions {
  /** A fixed limit (model-concurrency: N); without it the limit starts open and is learnt. */
  fixed?: number
  /** Successes in a row, while the limit was reached, before it grows by one. */
  growAfter?: number
  /** Requests in flight per worker (max-requests-per-worker); more wait for that worker's own slot. */
  perWorker?: number
  /** The clock for `waitsSince` (epoch ms); Date.now by default. */
  now?: () => number
}

export interface Ask {
  /** Whose request: requests of one worker are served in order, workers in turn. */
  worker?: unknown
  /** Rejects the wait when it aborts (the worker went away). */
  signal?: AbortSignal
  /** At the head of its worker's queue: a retry keeps its place. */
  first?: boolean
}

interface Waiter {
  grant: (t: Ticket) => void
  signal?: AbortSignal
}

interface Lane {
  inFlight: number
  queue: Waiter[]
  /** When this worker began waiting on the endpoint (its lane lives while it has a request). */
  since: number
}

/**
 * Requests in flight to the endpoint, fleet-wide, and per worker. Waiting requests are served in
 * turn across workers (round-robin, the worker with the fewest in flight first) and in order
 * within one worker, and no worker has more than `perWorker` in flight: one worker's burst
 * cannot starve its siblings.
 *
 * In auto the limit starts open (Infinity) and is learnt from the endpoint's concurrency refusals
 * (429 without retry-after): a refusal brings it to the requests the endpoint still holds (with
 * six sent and a cap of two, the four refusals that come back together bring it to two) and at
 * least one below where it was; refusals of requests sent before the last cut only clamp. After
 * a run of successes while the limit was reached it grows by one, a probe; each probe refused at
 * the same level doubles the successes the next one needs, so a steady cap costs few refusals.
 * No timers: the caller decides when to ask again. The only clock read says when each worker
 * began waiting (`waitsSince`), for the scheduler.
 */
export class Limiter {
  private limitNow: number
  private inFlight = 0
  private epoch = 0
  private successes = 0
  private saturated = false
  private failedProbes = 0
  private readonly lanes = new Map<unknown, Lane>()
  /** Workers with requests waiting, in the order they are served next. */
  private turn: unknown[] = []

  constructor(private readonly opts: LimiterOptions = {}) {
    this.limitNow = opts.fixed ?? Infinity
  }

  /** The current limit (Infinity while open): what a scheduler may read to size the fleet. */
  get limit(): number {
    return this.limitNow
  }

  get active(): number {
    return this.inFlight
  }

  get queued(): number {
    let n = 0
    for (const lane of this.lanes.values()) n += lane.queue.length
    return n
  }

  /**
   * When each worker with a request in flight or queued began waiting on the endpoint (epoch ms),
   * one entry per worker: such a worker uses no CPU until its answer comes (scheduler.ts).
   */
  waitsSince(): number[] {
    return [...this.lanes.values()].map(lane => lane.since)
  }

  /** Requests of `worker` in flight now. */
  activeFor(worker: unknown): number {
    return this.lanes.get(worker)?.inFlight ?? 0
  }

  /** Resolves when the request may be sent; rejects if `signal` aborts first. */
  acquire(ask: Ask = {}): Promise<Ticket> {
    const { signal } = ask
    if (signal?.aborted) return Promise.reject(signal.reason as Error)
    return new Promise<Ticket>((resolve, reject) => {
      const waiter: Waiter = { grant: resolve, signal }
      const lane = this.lane(ask.worker)
      if (ask.first) lane.queue.unshift(waiter)
      else lane.queue.push(waiter)
      if (!this.turn.includes(ask.worker)) this.turn.push(ask.worker)
      this.dispatch()
      if (!lane.queue.includes(waiter)) return
      if (this.inFlight >= this.limitNow) this.saturated = true
      signal?.addEventListener('abort', () => this.leave(ask.worker, waiter, reject), {
        once: true
      })
    })
  }

  release(ticket: Ticket, ending: Ending): void {
    this.inFlight--
    const lane = this.lanes.get(ticket.worker)
    if (lane) lane.inFlight--
    this.tidy(ticket.worker)
    if (ending === 'refused') this.refused(ticket)
    else if (ending === 'ok') this.succeeded()
    this.dispatch()
  }

  private lane(worker: unknown): Lane {
    let lane = this.lanes.get(worker)
    if (!lane)
      this.lanes.set(
        worker,
        (lane = { inFlight: 0, queue: [], since: (this.opts.now ?? Date.now)() })
      )
    return lane
  }

  private tidy(worker: unknown): void {
    const lane = this.lanes.get(worker)
    if (lane && lane.inFlight === 0 && lane.queue.length === 0) this.lanes.delete(worker)
  }

  private leave(worker: unknown, waiter: Waiter, reject: (e: Error) => void): void {
    const lane = this.lanes.get(worker)
    const at = lane?.queue.indexOf(waiter) ?? -1
    if (lane && at >= 0) {
      lane.queue.splice(at, 1)
      if (lane.queue.length === 0) this.turn = this.turn.filter(w => w !== worker)
      this.tidy(worker)
    }
    reject(waiter.signal?.reason as Error)
    this.dispatch()
  }

  private refused(ticket: Ticket): void {
    this.successes = 0
    this.saturated = false
    if (this.opts.fixed !== undefined) return
    const others = Math.max(1, this.inFlight)
    if (ticket.epoch === this.epoch) {
      const next = Math.max(1, Math.min(this.limitNow - 1, others))
      // A probe one above a level that held, refused: the next probe waits twice as long.
      this.failedProbes = next === this.limitNow - 1 ? this.failedProbes + 1 : 0
      this.limitNow = next
      this.epoch++
    } else {
      this.limitNow = Math.max(1, Math.min(this.limitNow, others))
    }
    // Still at the new limit: the successes that follow count towards the next probe.
    this.saturated = this.inFlight >= this.limitNow
  }

  private succeeded(): void {
    if (this.opts.fixed !== undefined || this.limitNow === Infinity) return
    this.successes++
    const needed = (this.opts.growAfter ?? 20) * 2 ** Math.min(this.failedProbes, 6)
    if (this.saturated && this.successes >= needed) {
      this.limitNow++
      this.successes = 0
      this.saturated = false
    }
  }

  /**
   * The next worker to serve: of those waiting whose own cap has room, the one with the fewest
   * requests in flight, the longest-waiting first among equals; it goes to the back of the turn.
   */
  private nextInTurn(): { worker: unknown } | undefined {
    const cap = this.opts.perWorker ?? Infinity
    let at = -1
    let fewest = cap
    this.turn.forEach((w, i) => {
      const n = this.lanes.get(w)?.inFlight ?? 0
      if (n < fewest) [at, fewest] = [i, n]
    })
    if (at < 0) return undefined
    return { worker: this.turn.splice(at, 1)[0] }
  }

  private dispatch(): void {
    while (this.inFlight < this.limitNow) {
      const pick = this.nextInTurn()
      if (!pick) return
      const { worker } = pick
      const lane = this.lanes.get(worker)
      const next = lane?.queue.shift()
      if (!lane || !next) return
      if (lane.queue.length > 0) this.turn.push(worker)
      this.inFlight++
      lane.inFlight++
      if (this.inFlight >= this.limitNow) this.saturated = true
      next.grant({ epoch: this.epoch, worker })
    }
  }
}
