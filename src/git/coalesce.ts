/**
 * Requests that arrive while one batch is in flight ride together in the next: one batch at a time,
 * the first sent at once, each later one carrying every key queued while the one before ran. Each
 * caller gets its own key's result. A key already in the next batch waits for the one after it
 * (never two entries for one key in a batch). A batch that throws fails its own callers alone.
 */
export class Coalescer<R> {
  private queued: { key: string; done: (r: Promise<R>) => void }[] = []
  private flying = false

  constructor(private readonly send: (keys: string[]) => Promise<Map<string, R>>) {}

  submit(key: string): Promise<R> {
    return new Promise<R>(resolve => {
      this.queued.push({ key, done: resolve })
      if (!this.flying) void this.flush()
    })
  }

  private async flush(): Promise<void> {
    this.flying = true
    while (this.queued.length > 0) {
      const batch: typeof this.queued = []
      const keys = new Set<string>()
      const later: typeof this.queued = []
      for (const entry of this.queued) {
        if (keys.has(entry.key)) later.push(entry)
        else {
          keys.add(entry.key)
          batch.push(entry)
        }
      }
      this.queued = later
      const sent = this.send([...keys])
      // Settled here: a batch that throws is its callers' rejection, never this loop's.
      await sent.then(
        () => undefined,
        () => undefined
      )
      for (const { key, done } of batch)
        done(
          sent.then(results => {
            const r = results.get(key)
            if (r === undefined) throw new Error(`no result for ${key} in its batch`)
            return r
          })
        )
    }
    this.flying = false
  }
}
