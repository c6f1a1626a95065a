import type { Machine } from './machine.js'
import type { Parallelism, WaitReason } from '../domain.js'
import { decide, type Limits } from './scheduler.js'

export class NotStarted extends Error {
  override name = 'NotStarted'
}

export interface GateOptions {
  limits: Limits
  machine: Machine
  now: () => number
  /** Why no task may start any more (deadline, cancel), or undefined while they may. */
  stopped: () => string | undefined
  /** Aborted on cancel: waiting tasks learn at once that they will not start. */
  signal: AbortSignal
  upstreamLimit?: () => number | undefined
  /** When each worker now waiting on the model began to wait (the gateway's view). */
  modelWaits?: () => number[]
}

interface Waiter {
  start: () => void
  refuse: (error: NotStarted) => void
}

/** A worker started this recently may not show in the memory and CPU readings yet. */
const WARMUP_MS = 2000

/** Worker slots handed out by the scheduler's decisions (scheduler.ts), in the order asked for. */
export class Gate {
  private readonly queue: Waiter[] = []
  private running = 0
  private starts: number[] = []
  private timer?: NodeJS.Timeout
  private peak = 0
  private readonly atPeak = new Map<WaitReason, number>()

  constructor(private readonly opts: GateOptions) {
    opts.signal.addEventListener('abort', () => this.pump(), { once: true })
  }

  /** Runs `fn` once a slot is free; throws NotStarted when the run is over first. */
  run<T>(fn: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({
        start: () => {
          Promise.resolve()
            .then(fn)
            .then(resolve, reject)
            .finally(() => {
              this.running--
              this.pump()
            })
        },
        refuse: reject
      })
      this.pump()
    })
  }

  parallelism(): Parallelism {
    const { mode, cap, cores } = this.opts.limits
    const held = [...this.atPeak].sort((a, b) => b[1] - a[1]).map(([reason]) => reason)
    const limitedBy = held.find(r => r !== 'pacing') ?? held[0] ?? 'tasks'
    return { mode, cap, cores, peak: this.peak, limitedBy }
  }

  private pump(): void {
    clearTimeout(this.timer)
    while (this.queue.length > 0) {
      const stop = this.opts.stopped()
      if (stop) {
        for (const w of this.queue.splice(0)) w.refuse(new NotStarted(stop))
        return
      }
      const now = this.opts.now()
      this.starts = this.starts.filter(t => now - t < WARMUP_MS)
      const decision = decide(
        {
          now,
          running: this.running,
          warming: this.starts.length,
          lastStartAt: this.starts.at(-1),
          upstreamLimit: this.opts.upstreamLimit?.(),
          modelWaitsSince: this.opts.modelWaits?.(),
          ...this.opts.machine.read(now)
        },
        this.opts.limits
      )
      if (decision.kind === 'wait') {
        if (this.running === this.peak)
          this.atPeak.set(decision.reason, (this.atPeak.get(decision.reason) ?? 0) + 1)
        if (Number.isFinite(decision.ms)) this.timer = setTimeout(() => this.pump(), decision.ms)
        return
      }
      this.startNext(now)
    }
  }

  private startNext(now: number): void {
    const next = this.queue.shift()
    if (!next) return
    this.running++
    this.starts.push(now)
    if (this.running > this.peak) {
      this.peak = this.running
      this.atPeak.clear()
    }
    next.start()
  }
}
