import { createInterface } from 'node:readline'
import { type Child, type ChildResult, exitCodeOf } from '../process.js'
import { type Git, GitError } from './git.js'

/** How long the kept process waits for its next transaction before it is let go (ms). */
const IDLE_MS = 2000

const ARGS = ['update-ref', '--stdin']
const ANSWER = ['start: ok', 'prepare: ok', 'commit: ok']

interface Kept {
  child: Child
  lines: string[]
  /** Called when a line comes or the process ends. */
  wake?: () => void
  ended?: ChildResult
}

/**
 * A repository's refs set through one `git update-ref --stdin` kept open, not one git start per
 * write: each set() is one transaction (start, its updates, prepare, commit), answered in turn.
 * Git still writes the refs (its locks, reflogs and ref storage). A transaction git refuses ends
 * that process: the set() fails with git's words, as `git update-ref` would, and the next one
 * starts a new process. Idle for IDLE_MS, the process is let go (its stdin ended, it exits); it
 * also ends when the action does, its stdin then closed.
 */
export class RefWriter {
  private kept?: Kept
  private queue: Promise<unknown> = Promise.resolve()
  private idle?: NodeJS.Timeout

  constructor(private readonly git: Git) {}

  /** Each ref set to its object, in one transaction. */
  async set(updates: ReadonlyArray<{ ref: string; sha: string }>): Promise<void> {
    for (const { ref, sha } of updates)
      if (!/^refs\/\S+$/.test(ref) || !/^[0-9a-f]{40}(?:[0-9a-f]{24})?$/.test(sha))
        throw new Error(`not a ref update the action makes: '${ref}' to '${sha}'`)
    const request = ['start', ...updates.map(u => `update ${u.ref} ${u.sha}`), 'prepare', 'commit']
    const done = this.queue.then(() => this.transact(`${request.join('\n')}\n`))
    this.queue = done.catch(() => undefined)
    await done
  }

  /** Lets the process go now (its stdin ended): the next set() starts another. */
  close(): void {
    clearTimeout(this.idle)
    this.kept?.child.stdin?.end()
    this.kept = undefined
  }

  private async transact(request: string): Promise<void> {
    clearTimeout(this.idle)
    if (this.kept?.ended) this.kept = undefined
    const kept = (this.kept ??= await this.start())
    try {
      kept.child.stdin?.write(request)
      const answer = await this.answer(kept)
      if (answer.join('\n') !== ANSWER.join('\n'))
        throw new Error(`git update-ref --stdin answered '${answer.join(' / ')}'`)
    } catch (error) {
      this.close()
      throw error
    } finally {
      this.idle = setTimeout(() => this.close(), IDLE_MS).unref()
    }
  }

  /** The transaction's three lines, or the process's end as a GitError. */
  private async answer(kept: Kept): Promise<string[]> {
    for (;;) {
      if (kept.lines.length >= ANSWER.length) return kept.lines.splice(0, ANSWER.length)
      if (kept.ended) throw new GitError(ARGS, { ...kept.ended, exitCode: exitCodeOf(kept.ended) })
      await new Promise<void>(resolve => (kept.wake = resolve))
    }
  }

  private async start(): Promise<Kept> {
    const child = await this.git.keep(ARGS)
    const kept: Kept = { child, lines: [] }
    const woken = () => {
      const wake = kept.wake
      kept.wake = undefined
      wake?.()
    }
    if (child.stdout)
      createInterface({ input: child.stdout }).on('line', line => {
        kept.lines.push(line)
        woken()
      })
    void child.result.then(ended => {
      kept.ended = ended
      woken()
    })
    return kept
  }
}
