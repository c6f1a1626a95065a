/**
 * The spawner: a small node process of the action's own that starts its short commands (git above
 * all) for it. Node starts a child by forking the whole process, and the action's loop waits out
 * the fork: at about 110 MB, with a batch's workers and git beside it on two cores, 3 ms a start,
 * and a batch of 24 tasks lost 870 ms of its loop to 270 starts (docs/performance.md). The spawner
 * holds a third of that memory and does nothing else, so a start costs the action a message each
 * way. Only process.ts run() comes here (a short command: its output collected whole, its group
 * killed as it exits); a worker, its verify and the seal, whose streams the action reads as they
 * come, are started by the action itself.
 *
 * What does not change for a command: its environment is the one its caller gave (the spawner's
 * own holds PATH and its stray marker alone), it leads a group of its own and carries its marker,
 * and its stop is the action's: the spawner says the pid as the command starts, and a timeout or
 * the run's cancel signals that group from the action, as for any child (process.ts stopper).
 *
 * It is started a second after the run's first short command (SPAWNER_DELAY_MS), and until it says
 * it is ready commands are started by the action as before, so the run's first steps neither wait
 * for a node to start nor share the CPU with one; if it never gets ready, for the rest of the run.
 * One that ended once ready (the action's final hunt, a kill) is started again by the next
 * command, as late; the commands it had not answered end as killed, their groups killed from here.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { signalGroup } from './hunt.js'
import { type Ask, type SpawnEnd, spawnerMain, type Told } from './spawner-main.js'

/** How a command asked of the spawner ended; `lost` when the spawner ended before it did. */
export type Spawned = SpawnEnd | { lost: string; pid?: number }

/**
 * How long after the run's first short command the spawner is started. A node's start takes
 * about 40 ms of CPU, and at the run's start it took that from the action on its way to the first
 * worker (cold start 172 ms without it, 198 ms with it; docs/performance.md); a batch's exits, where
 * starts pile up, come seconds later.
 */
export const SPAWNER_DELAY_MS = 1000

interface Waiting {
  pid?: number
  onPid: (pid: number) => void
  done: (end: Spawned) => void
}

export class Spawner {
  private child?: ChildProcess
  /** Its start is on the way (SPAWNER_DELAY_MS after a command found none). */
  private starting?: NodeJS.Timeout
  private ready = false
  /** It could not start, or ended before it was ready: the action starts its commands itself. */
  private broken = false
  private asked = 0
  private readonly waiting = new Map<number, Waiting>()

  /** `env`: the spawner's own environment (its stray marker), asked for at each start. */
  constructor(private readonly env: () => Record<string, string>) {}

  /**
   * Runs one command through the spawner: `onPid` as it starts, then its end. undefined when the
   * spawner is not ready (one is started for the next command): the caller starts it itself.
   */
  run(ask: Omit<Ask, 'id'>, onPid: (pid: number) => void): Promise<Spawned> | undefined {
    const child = this.child
    if (!child || !this.ready) {
      if (!child && !this.broken && !this.starting)
        this.starting = setTimeout(() => this.start(), SPAWNER_DELAY_MS).unref()
      return undefined
    }
    const id = ++this.asked
    const ended = new Promise<Spawned>(done => this.waiting.set(id, { onPid, done }))
    this.hold(true)
    child.send({ ...ask, id } satisfies Ask)
    return ended
  }

  /** Ends the spawner (the action's last step, before its final hunt) and waits for its exit. */
  async close(): Promise<void> {
    clearTimeout(this.starting)
    this.starting = undefined
    const child = this.child
    if (!child) return
    const exited = new Promise(resolve => child.once('exit', resolve))
    // Held while its exit is awaited: an idle spawner keeps nothing alive (hold).
    child.ref()
    child.kill('SIGKILL')
    await exited
  }

  private start(): void {
    this.starting = undefined
    const child = spawn(process.execPath, ['-e', `(${String(spawnerMain)})()`], {
      env: { PATH: process.env.PATH ?? '', ...this.env() },
      stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
      serialization: 'advanced'
    })
    this.child = child
    this.hold(false)
    child.on('message', (told: Told) => this.heard(told))
    child.once('error', () => this.ended(child))
    child.once('exit', () => this.ended(child))
  }

  private heard(told: Told): void {
    if ('ready' in told) {
      this.ready = true
      this.hold(false)
      return
    }
    const waiting = this.waiting.get(told.id)
    if (!waiting) return
    if ('pid' in told) {
      waiting.pid = told.pid
      waiting.onPid(told.pid)
      return
    }
    this.waiting.delete(told.id)
    this.hold(false)
    waiting.done(told.end)
  }

  /** It is gone: what it had not answered ends as lost, its groups killed from here. */
  private ended(child: ChildProcess): void {
    if (this.child !== child) return
    this.child = undefined
    if (!this.ready) this.broken = true
    this.ready = false
    const why = `the action's spawner ended (${child.signalCode ?? `exit ${child.exitCode}`}) before the command did`
    for (const waiting of this.waiting.values()) {
      if (waiting.pid !== undefined) signalGroup(waiting.pid, 'SIGKILL')
      waiting.done({ lost: why, ...(waiting.pid !== undefined ? { pid: waiting.pid } : {}) })
    }
    this.waiting.clear()
  }

  /** The spawner keeps the action alive while a command is asked of it, and not when idle. */
  private hold(busy: boolean): void {
    const child = this.child
    if (!child) return
    if (busy || this.waiting.size > 0) {
      child.ref()
      child.channel?.ref()
    } else {
      child.unref()
      child.channel?.unref()
    }
  }
}
