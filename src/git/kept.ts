import { createInterface } from 'node:readline'
import { type Child, type ChildResult, exitCodeOf } from '../process.js'
import { type Git, GitError } from './git.js'

/** Every KeptGit with a process now. */
const live = new Set<KeptGit>()

/**
 * Every kept process let go (its stdin ended) and awaited, at most `waitMs`: called as the action
 * ends, before its last hunt for what the run left running, so they exit as at close() and are
 * not counted among what was left.
 */
export async function letGoAll(waitMs = 1000): Promise<void> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise(resolve => (timer = setTimeout(resolve, waitMs)))
  await Promise.race([Promise.all([...live].map(k => k.close())), late])
  clearTimeout(timer)
}

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
 * with git's words (a GitError); the next request starts a new process. Idle, the process stays
 * (a worker's minutes between two requests would otherwise cost two git starts on a task's way
 * out) and holds nothing: no lock, and not the action's process, which it keeps alive only while
 * a request is answered. As the action ends, letGoAll ends them all; a process whose action died
 * meets its stdin's end and exits.
 */
export class KeptGit {
  private kept?: Kept
  private queue: Promise<unknown> = Promise.resolve()

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

  /**
   * Lets the process go now (its stdin ended): the next request starts another. Its end, which
   * keeps the action's process alive until it comes.
   */
  close(): Promise<unknown> {
    const kept = this.kept
    this.kept = undefined
    live.delete(this)
    kept?.child.hold?.(true)
    kept?.child.stdin?.end()
    return kept?.child.result ?? Promise.resolve()
  }

  private async exchange(
    request: string,
    lines: number,
    check?: (answer: string[]) => void
  ): Promise<string[]> {
    if (this.kept?.ended) this.kept = undefined
    const kept = (this.kept ??= await this.start())
    try {
      kept.child.hold?.(true)
      kept.child.stdin?.write(request)
      const answer = await this.answer(kept, lines)
      check?.(answer)
      return answer
    } catch (error) {
      void this.close()
      throw error
    } finally {
      // Still kept (not closed on an error): idle from now, holding nothing.
      if (this.kept === kept) kept.child.hold?.(false)
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
    live.add(this)
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
      if (this.kept === kept) live.delete(this)
      woken()
    })
    return kept
  }
}
