/**
 * The CLI's live view of the fleet: on a terminal, one line per running worker (task, turn,
 * tokens, elapsed) redrawn in place below the log; elsewhere, a plain line per turn.
 */
export interface WorkerLine {
  id: string
  turn: number
  outputTokens: number
  startedAt: number
}

export function lineOf(w: WorkerLine, now: number): string {
  return `[${w.id}] turn ${w.turn} · ${w.outputTokens} output tokens · ${((now - w.startedAt) / 1000).toFixed(1)}s`
}

export class Board {
  private readonly workers = new Map<string, WorkerLine>()
  private drawn = 0

  constructor(
    private readonly write: (text: string) => void,
    private readonly tty: boolean,
    private readonly now: () => number = Date.now
  ) {}

  progress(id: string, turn: number, outputTokens: number): void {
    const w = this.workers.get(id) ?? { id, turn: 0, outputTokens: 0, startedAt: this.now() }
    this.workers.set(id, { ...w, turn, outputTokens })
    if (this.tty) this.redraw()
    else this.write(`${lineOf({ ...w, turn, outputTokens }, this.now())}\n`)
  }

  /** A log line: above the board on a terminal, so the board stays at the bottom. */
  log(message: string): void {
    this.clear()
    this.write(`${message}\n`)
    if (this.tty) this.redraw()
  }

  finish(id: string): void {
    this.workers.delete(id)
    if (this.tty) this.redraw()
  }

  private clear(): void {
    if (!this.tty || this.drawn === 0) return
    // Up to the board's first line, then clear to the end of the screen.
    this.write(`\x1b[${this.drawn}F\x1b[J`)
    this.drawn = 0
  }

  private redraw(): void {
    this.clear()
    const now = this.now()
    const lines = [...this.workers.values()].map(w => lineOf(w, now))
    if (lines.length) this.write(`${lines.join('\n')}\n`)
    this.drawn = lines.length
  }
}
