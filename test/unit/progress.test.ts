import { describe, expect, it } from 'vitest'
import { Board } from '../../src/progress.js'

/** Applies the escape sequences the board uses to a list of screen lines. */
function screen(writes: string[]): string[] {
  const lines: string[] = []
  for (const text of writes) {
    // eslint-disable-next-line no-control-regex -- the escape sequences are what is parsed
    const up = /^\x1b\[(\d+)F\x1b\[J/.exec(text)
    if (up) {
      lines.splice(lines.length - Number(up[1]))
      continue
    }
    lines.push(...text.replace(/\n$/, '').split('\n'))
  }
  return lines
}

describe('the CLI progress board', () => {
  it('on a terminal: one line per running worker, redrawn below the log', () => {
    const writes: string[] = []
    let now = 0
    const board = new Board(
      t => writes.push(t),
      true,
      () => now
    )
    board.progress('a', 1, 10)
    now = 1500
    board.progress('b', 1, 5)
    board.progress('a', 2, 30)
    board.log('[a] pr-opened https://example/pull/1')
    expect(screen(writes)).toEqual([
      '[a] pr-opened https://example/pull/1',
      '[a] turn 2 · 30 output tokens · 1.5s',
      '[b] turn 1 · 5 output tokens · 0.0s'
    ])
    board.finish('a')
    expect(screen(writes)).toEqual([
      '[a] pr-opened https://example/pull/1',
      '[b] turn 1 · 5 output tokens · 0.0s'
    ])
  })

  it('elsewhere: plain lines, one per turn, no escape sequences', () => {
    const writes: string[] = []
    const board = new Board(
      t => writes.push(t),
      false,
      () => 2000
    )
    board.progress('a', 1, 10)
    board.log('hello')
    board.finish('a')
    expect(writes).toEqual(['[a] turn 1 · 10 output tokens · 0.0s\n', 'hello\n'])
    expect(writes.join('')).not.toContain('\x1b')
  })
})
