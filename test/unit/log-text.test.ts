// What the action logs is read by the runner line by line for workflow commands: whatever text a
// cage or an issue hands it, the runner (as test/support/runner-commands.ts reads it) acts on no
// command from that text, and a person still sees the text, its control characters escaped.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { logText, MAX_LOG_TEXT, printable } from '../../src/report/log-text.js'
import { runnerCommands } from '../support/runner-commands.js'

const hostile = fc.constantFrom(
  '::error::PWNED',
  '::set-output name=x::PWNED',
  '::add-mask::PWNED',
  '::stop-commands::PWNED',
  '::PWNED::',
  '  ::warning file=a::PWNED',
  '##[error]PWNED',
  'x ##[set-output name=y;]PWNED',
  '::',
  '##[',
  '\r',
  '\n',
  '\r\n',
  '\u0085',
  '\u2028',
  '\u001b[31m',
  '\u202e',
  ' '
)
const text = fc
  .array(fc.oneof(hostile, fc.string({ maxLength: 8 })), { maxLength: 30 })
  .map(a => a.join(''))

/** The runner's view of what the action would print: core.info writes the text and a newline. */
const printed = (t: string) => `${logText(t)}\n`

describe('log text', () => {
  it('no command in any text reaches the runner, and a command the action writes next still does', () => {
    fc.assert(
      fc.property(text, t => {
        const seen = runnerCommands(`${printed(t)}::error::the action's own\n`)
        // At most the fence's own pair, then the action's own command after it.
        const fence = seen.filter(c => c.name === 'stop-commands')
        expect(fence.length).toBeLessThanOrEqual(1)
        expect(fence.every(c => /^[0-9a-f]{32}$/.test(c.data))).toBe(true)
        expect(seen.filter(c => /PWNED/.test(c.name + c.data))).toEqual([])
        expect(seen.at(-1)).toEqual({ name: 'error', data: "the action's own" })
        expect(seen.length).toBe(fence.length * 2 + 1)
      }),
      { numRuns: 2000 }
    )
  })

  it('leaves no character the runner or a terminal splits a line on or acts on', () => {
    fc.assert(
      fc.property(text, t => {
        expect(printable(t)).not.toMatch(
          // eslint-disable-next-line no-control-regex -- the check is for control characters
          /[\r\u0000-\u0008\u000B-\u001F\u007F-\u009F\u2028\u2029\u202A-\u202E\u2066-\u2069]/
        )
      })
    )
  })

  it('shows what was there: `\\r` and escapes spelled out, plain text as it is', () => {
    expect(printable('ok\r::warning::x\u001b[31m\u202e')).toBe('ok\\r::warning::x\\x1b[31m\\u202e')
    expect(logText('[t] setup: npm ci')).toBe('[t] setup: npm ci')
    const fenced = logText('out\n::error::PWNED')
    expect(fenced).toMatch(/^::stop-commands::([0-9a-f]{32})\nout\n::error::PWNED\n::\1::$/)
  })

  it('draws a fresh token for every text', () => {
    const token = (t: string) => /^::stop-commands::(\w+)/.exec(logText(t))?.[1]
    expect(token('::a')).not.toBe(token('::a'))
  })

  it('caps a long text, keeping its start and its end', () => {
    const long = `START${'x'.repeat(100_000)}END`
    const shown = printable(long)
    expect(shown.length).toBeLessThan(MAX_LOG_TEXT + 100)
    expect(shown.startsWith('START')).toBe(true)
    expect(shown.endsWith('END')).toBe(true)
    expect(shown).toContain('characters cut')
  })
})
