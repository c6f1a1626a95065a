/**
 * A cage's teardown, left to run beside what follows its command instead of before it: a task's
 * last cage ends on its way out, and the check and push that follow need nothing the teardown
 * removes (docs/performance.md). What a next cage could meet is moved out of the way first, by
 * the caller, before its command returns; the rest is begun here, even when that move failed
 * (releaseCage), and its steps run in turn past any one that fails (inTurn). The run's end awaits
 * every one (settleCages) before it looks for processes left running.
 */
import { describeError } from '../errors.js'

const pending = new Set<Promise<void>>()

/** Begins a teardown no one awaits now: its failure is logged, never thrown at the caller. */
export function leaveBehind(teardown: () => Promise<void>, log: (message: string) => void): void {
  const done: Promise<void> = teardown()
    .catch((error: unknown) => log(`a cage's teardown failed: ${describeError(error)}`))
    .finally(() => pending.delete(done))
  pending.add(done)
}

/**
 * A cage released: `moveAside` awaited (what its next cage could meet), then `teardown` begun
 * beside what follows, given what was moved. Begun even when the move failed, whose error is then
 * thrown: a cage's network left open would keep the action running past its end.
 */
export async function releaseCage<T>(
  moveAside: () => Promise<T>,
  teardown: (moved: T | undefined) => Promise<void>,
  log: (message: string) => void
): Promise<void> {
  let moved: T | undefined
  try {
    moved = await moveAside()
  } finally {
    leaveBehind(() => teardown(moved), log)
  }
}

/**
 * A teardown's steps in order, each step's parts side by side; a part that fails stops neither the
 * rest of its step nor the steps after it (a clone that would not go still lets the host dir
 * go), and the first failure is thrown once all have run.
 */
export async function inTurn(steps: (() => Promise<unknown>)[][]): Promise<void> {
  const failed: unknown[] = []
  for (const step of steps)
    for (const part of await Promise.allSettled(step.map(run => run())))
      if (part.status === 'rejected') failed.push(part.reason)
  if (failed.length > 0) throw failed[0]
}

const atEnd: (() => Promise<void>)[] = []

/**
 * Something the run's cages share (a container network and its proxy), closed by settleCages once
 * every cage's teardown has ended; its failure is logged, never thrown.
 */
export function closeAtEnd(close: () => Promise<void>, log: (message: string) => void): void {
  atEnd.push(() =>
    close().catch((error: unknown) =>
      log(`closing the run's cages failed: ${describeError(error)}`)
    )
  )
}

/** Every teardown begun, ended: those begun while it waits too; then what the cages shared. */
export async function settleCages(): Promise<void> {
  while (pending.size > 0) await Promise.all(pending)
  await Promise.all(atEnd.splice(0).map(close => close()))
}
