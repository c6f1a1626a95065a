import { appendFile } from 'node:fs/promises'

/** One line of a worker's request log: metadata always, bodies only with record-bodies. */
export interface RequestRecord {
  at: string
  path: string
  model?: string
  status: number
  /** Upstream attempts this request took (0: answered by the gateway itself). */
  attempts: number
  /** Each earlier attempt's status (0: no answer) and the wait before the next. */
  retries: { status: number; waitMs: number }[]
  usage?: object
  /** The reply's passes by model, when some ran on another model (an advisor's). */
  passes?: object[]
  /** The model the endpoint says answered, when not the one asked for. */
  replyModel?: string
  ms: number
  /** Time the request waited in the fleet's queue for the endpoint (its own turn, its worker's slot). */
  queuedMs?: number
  /** This worker's requests in flight upstream when this one was sent, itself included. */
  workerInFlight?: number
  /** When it left the queue for the endpoint (epoch ms; the last attempt's). */
  sentAt?: number
  /** When it gave its slot back (epoch ms): [sentAt, releasedAt] is its time upstream. */
  releasedAt?: number
  error?: string
  /** Request headers the gateway did not pass upstream (names only), betas as `anthropic-beta: x`. */
  dropped?: string[]
  requestBody?: string
  responseBody?: string
}

/** Appends records in order to one JSONL file; a write error is reported once, never thrown. */
export class RequestLog {
  private chain: Promise<void> = Promise.resolve()
  private failed = false

  constructor(
    private readonly file: string,
    private readonly warn: (message: string) => void
  ) {}

  write(record: RequestRecord): void {
    const line = `${JSON.stringify(record)}\n`
    this.chain = this.chain.then(() =>
      appendFile(this.file, line).catch((error: unknown) => {
        if (this.failed) return
        this.failed = true
        this.warn(`request log ${this.file} could not be written: ${String(error)}`)
      })
    )
  }

  flushed(): Promise<void> {
    return this.chain
  }
}
