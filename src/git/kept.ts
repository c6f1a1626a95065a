import { createInterface } from 'node:readline'
import { type Child, type ChildResult, exitCodeOf } from '../process.js'
import { type Git, GitError } from './git.js'

/** How long a kept process waits for its next request before it is let go (ms). */
const IDLE_MS = 2000

interface Kept {
  child: Child
  lines: string[]
  /** Called when a line comes or the process ends. */
  wake?: () => void
  ended?: ChildResult
}

/**
 * One git command that reads requests on its stdin and answers each with lines (`update-ref
 * --stdin`, `cat-file --batch-check`), kept open instead of a git start per request. Requests
 * queue and are answered in turn. A request that ends the process, or a process found dead, fails
 * with git's words (a GitError); the next request starts a new process. Idle for IDLE_MS, the
 * process is let go (its stdin ended, it exits); it also ends when the action does.
 */
export class KeptGit {
  private kept?: Kept
  private queue: Promise<unknown> = Promise.resolve()
  private idle?: NodeJS.Timeout

  constructor(
    private readonly git: Git,
    private readonly args: string[]
  ) {}

  /**
   * `request` written whole, then the `lines` lines it is answered with. An answer `check` throws
   * for ends the process too (it is in a state the next request must not meet).
   */
  ask(request: string, lines: number, check?: (answer: string[]) => void): Promise<string[]> {
    const answered = this.queue.then(() => this.exchange(request, lines, check))
    this.queue = answered.catch(() => undefined)
    return answered
  }

  /** Lets the process go now (its stdin ended): the next request starts another. */
  close(): void {
    clearTimeout(this.idle)
    this.kept?.child.stdin?.end()
    this.kept = undefined
  }

  private async exchange(
    request: string,
    lines: number,
    check?: (answer: string[]) => void
  ): Promise<string[]> {
    clearTimeout(this.idle)
    if (this.kept?.ended) this.kept = undefined
    const kept = (this.kept ??= await this.start())
    try {
      kept.child.stdin?.write(request)
      const answer = await this.answer(kept, lines)
      check?.(answer)
      return answer
    } catch (error) {
      this.close()
      throw error
    } finally {
      this.idle = setTimeout(() => this.close(), IDLE_MS).unref()
    }
  }

  /** The answer's lines, or the process's end as a GitError. */
  private async answer(kept: Kept, lines: number): Promise<string[]> {
    for (;;) {
      if (kept.lines.length >= lines) return kept.lines.splice(0, lines)
      if (kept.ended)
        throw new GitError(this.args, { ...kept.ended, exitCode: exitCodeOf(kept.ended) })
      await new Promise<void>(resolve => (kept.wake = resolve))
    }
  }

  private async start(): Promise<Kept> {
    const child = await this.git.keep(this.args)
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
