/** A cancel of the run: the runner's signals turned into the run's stop. */
import type { Io } from '../io.js'
import { CANCEL_SIGNALS } from '../worker/spawn.js'

/**
 * The runner cancels with SIGINT, then SIGTERM 7.5 s later, then kills the process tree: on the
 * first, no new worker starts (`onCancel`) and the running ones stop. Returns the unsubscribe.
 */
export function onCancelSignals(io: Io, stop: AbortController, onCancel: () => void): () => void {
  const handler = (signal: NodeJS.Signals) => {
    io.warning(
      `Cancelled (${signal}): no new worker starts; stopping the running ones and reporting every task.`
    )
    onCancel()
    stop.abort('the run was cancelled')
  }
  for (const signal of CANCEL_SIGNALS) process.once(signal, handler)
  return () => {
    for (const signal of CANCEL_SIGNALS) process.off(signal, handler)
  }
}
