/** How a request held by the limiter ended, for what the limiter learns from it. */
export type Ending = 'ok' | 'refused' | 'failed'

export interface Ticket {
  /** The limiter's epoch when the request was sent: refusals of older requests were foreseen. */
  readonly epoch: number
}

export interface LimiterOptions {
  /** A fixed limit (model-concurrency: N); without it the limit starts open and is learnt. */
  fixed?: number
  /** Successes in a row, while the limit was reached, before it grows by one. */
  growAfter?: number
}

/**
 * Requests in flight to the endpoint, fleet-wide. In auto it starts open (Infinity) and learns the
 * endpoint's concurrency cap AIMD-style: a refusal (429) halves the limit, and never leaves it
 * above the requests still in flight (with six sent and a cap of two, the four refusals that come
 * back together bring it to two, not to one); refusals of requests sent before the last cut only
 * clamp. It grows by one after a run of successes while the limit was actually reached.
 * No clock, no timers: the caller decides when to ask again.
 */
export class Limiter {
  private limitNow: number
  private inFlight = 0
  private epoch = 0
  private successes = 0
  private saturated = false
  private readonly waiters: { grant: (t: Ticket) => void; signal?: AbortSignal }[] = []

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
    return this.waiters.length
  }

  /** Resolves when the request may be sent; rejects if `signal` aborts first. */
  acquire(signal?: AbortSignal): Promise<Ticket> {
    if (signal?.aborted) return Promise.reject(signal.reason as Error)
    if (this.inFlight < this.limitNow && this.waiters.length === 0)
      return Promise.resolve(this.take())
    this.saturated = true
    return new Promise<Ticket>((resolve, reject) => {
      const waiter = { grant: resolve, signal }
      this.waiters.push(waiter)
      signal?.addEventListener(
        'abort',
        () => {
          const at = this.waiters.indexOf(waiter)
          if (at >= 0) this.waiters.splice(at, 1)
          reject(signal.reason as Error)
        },
        { once: true }
      )
    })
  }

  release(ticket: Ticket, ending: Ending): void {
    this.inFlight--
    if (ending === 'refused') this.refused(ticket)
    else if (ending === 'ok') this.succeeded()
    this.dispatch()
  }

  private take(): Ticket {
    this.inFlight++
    if (this.inFlight >= this.limitNow) this.saturated = true
    return { epoch: this.epoch }
  }

  private refused(ticket: Ticket): void {
    this.successes = 0
    this.saturated = false
    if (this.opts.fixed !== undefined) return
    const others = Math.max(1, this.inFlight)
    if (ticket.epoch === this.epoch) {
      this.limitNow = Math.max(1, Math.min(Math.floor(this.limitNow / 2), others))
      this.epoch++
    } else {
      this.limitNow = Math.max(1, Math.min(this.limitNow, others))
    }
  }

  private succeeded(): void {
    if (this.opts.fixed !== undefined || this.limitNow === Infinity) return
    this.successes++
    if (this.saturated && this.successes >= (this.opts.growAfter ?? 20)) {
      this.limitNow++
      this.successes = 0
      this.saturated = false
    }
  }

  private dispatch(): void {
    while (this.waiters.length > 0 && this.inFlight < this.limitNow) {
      const next = this.waiters.shift()
      next?.grant(this.take())
    }
  }
}
