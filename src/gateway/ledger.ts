import { randomBytes } from 'node:crypto'
import { addUsage, type Usage, ZERO_USAGE } from '../domain.js'
import { costOf, type PriceBook, priceFor } from '../prices.js'
import {
  addSpend,
  type Breach,
  breach,
  type Budgets,
  NO_SPEND,
  type Spend,
  subSpend
} from './budgets.js'
import type { Forwarded } from './forward.js'
import { RequestLog } from './request-log.js'
import { type Ask, type Reservation, reserve } from './reserve.js'
import { totalTokens } from './usage.js'

/** What one worker process holds: its token, and what it has spent so far. */
export interface WorkerPass {
  token: string
  taskId: string
  usage: Usage
  /** The budget that refused this worker a request, if one did: the worker's outcome says so. */
  stoppedBy?: Breach
}

/** What a request's reply used, as the gateway read it (forward.ts). */
export type Reply = Pick<Forwarded, 'usage' | 'passes' | 'replyModel'>

/** A reservation held for one request in flight, released when it settles. */
export interface Hold {
  pass: WorkerPass
  spend: Spend
}

/**
 * The workers' passes and request logs, and what each task and the run have spent (settled) and
 * hold (reserved for requests in flight). Every cost is a request's usage at its own model's price.
 */
export class Ledger {
  readonly passes = new Map<string, WorkerPass>()
  readonly logs = new Map<WorkerPass, RequestLog>()
  private readonly tasks = new Map<string, { usage: Usage; spent: Spend; held: Spend }>()
  run = { usage: ZERO_USAGE, spent: NO_SPEND, held: NO_SPEND }
  /** A run budget that refused a request's worst case: no new worker may start after it. */
  runRefused?: string

  constructor(
    private readonly budgets: Budgets,
    readonly prices: PriceBook | undefined,
    private readonly warn: (message: string) => void
  ) {}

  register(taskId: string, logFile?: string): WorkerPass {
    const pass: WorkerPass = {
      token: `fleet-${randomBytes(24).toString('base64url')}`,
      taskId,
      usage: ZERO_USAGE
    }
    this.passes.set(pass.token, pass)
    if (logFile) this.logs.set(pass, new RequestLog(logFile, this.warn))
    return pass
  }

  /**
   * The pass's token stops working now. Its request log's last lines are not waited for: the log
   * stays listed until they are written, and the gateway's close awaits every listed log.
   */
  retire(pass: WorkerPass): Promise<void> {
    this.passes.delete(pass.token)
    const log = this.logs.get(pass)
    void log?.flushed().then(() => this.logs.delete(pass))
    return Promise.resolve()
  }

  private task(taskId: string) {
    let t = this.tasks.get(taskId)
    if (!t) this.tasks.set(taskId, (t = { usage: ZERO_USAGE, spent: NO_SPEND, held: NO_SPEND }))
    return t
  }

  /** Reserves a request's worst case for `pass`'s task and the run, or says which budget refuses. */
  hold(
    pass: WorkerPass,
    ask: Ask
  ): { hold: Hold; maxTokens: number } | (Reservation & { ok: false }) {
    const t = this.task(pass.taskId)
    const standing = {
      task: addSpend(t.spent, t.held),
      run: addSpend(this.run.spent, this.run.held)
    }
    const r = reserve(this.budgets, ask, standing)
    if (!r.ok && r.scope === 'run') this.runRefused ??= r.message
    if (!r.ok) return r
    t.held = addSpend(t.held, r.hold)
    this.run.held = addSpend(this.run.held, r.hold)
    return { hold: { pass, spend: r.hold }, maxTokens: r.maxTokens }
  }

  /**
   * A request ended: its hold is released and what it really used is spent, each pass at its own
   * model's price (usage.ts): an advisor pass at the advisor's, the reply's own passes at the
   * model the endpoint says answered when the prices know it, else at the model asked for.
   */
  settle(hold: Hold | undefined, pass: WorkerPass, asked: string | undefined, reply?: Reply): void {
    const t = this.task(pass.taskId)
    if (hold) {
      t.held = subSpend(t.held, hold.spend)
      this.run.held = subSpend(this.run.held, hold.spend)
    }
    if (!reply?.usage) return
    const { usage } = reply
    const spend = { tokens: totalTokens(usage), cost: this.costOf(reply, asked) }
    pass.usage = addUsage(pass.usage, usage)
    t.usage = addUsage(t.usage, usage)
    t.spent = addSpend(t.spent, spend)
    this.run = {
      ...this.run,
      usage: addUsage(this.run.usage, usage),
      spent: addSpend(this.run.spent, spend)
    }
  }

  /** A reply's cost: the sum of its passes, each at the price of the model it ran on. */
  private costOf(reply: Reply, asked: string | undefined): number {
    const passes = reply.passes ?? [{ usage: reply.usage ?? ZERO_USAGE }]
    const fallback = priceFor(this.prices, asked)
    const own = (reply.replyModel && this.prices?.models[reply.replyModel]) || fallback
    return passes.reduce((cost, p) => {
      const price = p.model !== undefined ? (priceFor(this.prices, p.model) ?? own) : own
      return cost + (price ? costOf(p.usage, price) : 0)
    }, 0)
  }

  taskUsage(taskId: string): Usage {
    return this.tasks.get(taskId)?.usage ?? ZERO_USAGE
  }

  taskSpend(taskId: string): Spend {
    return this.tasks.get(taskId)?.spent ?? NO_SPEND
  }

  /** The budget a next request of `taskId` would break (a run budget when taskId is undefined). */
  over(taskId: string | undefined): Breach | undefined {
    const task = taskId === undefined ? NO_SPEND : this.taskSpend(taskId)
    return breach(this.budgets, this.prices !== undefined, { task, run: this.run.spent })
  }
}
