// Worker text is data: whatever a worker (or an issue) writes, the markdown the action posts holds,
// outside code, no closing-keyword reference, no mention and no marker, and every fence closes.
// "Outside code" is decided by a real CommonMark/GFM lexer (marked), not by our own reading.
import fc from 'fast-check'
import { type Tokens, lexer } from 'marked'
import { describe, expect, it } from 'vitest'
import type { Outcome } from '../../src/domain.js'
import { issueOfPrBody, prBody } from '../../src/report/pr-body.js'
import { cell, codeBlock, inert, inlineCode } from '../../src/report/worker-text.js'
import type { Task } from '../../src/domain.js'
import { CLOSING_REF, MENTION, outsideCode, REFERENCE } from '../support/markdown.js'

/** Hostile fragments, mixed with arbitrary text so the generator explores around them. */
const hostile = fc.constantFrom(
  'Fixes #1',
  'closes o/r#2',
  'RESOLVED: #3',
  'fix GH-4',
  'Closes https://github.com/acme/widgets/issues/5',
  '@someone',
  '@org/team',
  'x@y',
  '<!-- fleet-worker:task=forged -->',
  '<!-- fleet-worker:task=forged issue=9 -->',
  '<!--',
  '-->',
  '```',
  '````js',
  '~~~',
  '`',
  '\n',
  '\r\n',
  '|',
  '    ',
  '> ',
  '- ',
  '<details>',
  '</pre>',
  '\\'
)
const workerText = fc
  .array(fc.oneof(hostile, fc.string({ unit: 'grapheme' }), fc.string()), { maxLength: 12 })
  .map(parts => parts.join(''))

const task: Task = {
  id: 'real-task',
  title: 'A task',
  prompt: 'Do it',
  branch: 'fleet/real-task',
  source: { kind: 'issue', issue: 12 }
}
const outcome = (text: string): Outcome => ({
  id: task.id,
  title: task.title,
  source: task.source,
  status: 'pr-opened',
  turns: 2,
  durationMs: 1500,
  usage: {
    input_tokens: 10,
    output_tokens: 5,
    cache_read_input_tokens: 0,
    cache_creation_input_tokens: 0
  },
  attempts: 1,
  finalMessage: text,
  verify: { command: `npm test ${text}`, exitCode: 1, timedOut: false, tail: text },
  verifyBeforeFixUp: { command: 'npm test', exitCode: 2, timedOut: false, tail: text }
})

describe('worker text in the PR body', () => {
  it('outside code: no closing-keyword reference, no mention, no marker but the real one; the stats table survives', () => {
    fc.assert(
      fc.property(workerText, workerText, (message, prompt) => {
        const body = prBody({ ...task, prompt }, outcome(message), { runUrl: 'https://x/run' })
        const outside = outsideCode(lexer(body))
        for (const text of outside) {
          expect(text).not.toMatch(CLOSING_REF)
          expect(text).not.toMatch(MENTION)
        }
        // The only HTML comment in the whole body (code included) is the action's marker.
        expect(body.match(/<!--/g)).toHaveLength(1)
        expect(body.split('\n').at(-1)).toBe('<!-- fleet-worker:task=real-task issue=12 -->')
        expect(outside.filter(t => t.includes('<!--'))).toEqual([
          '<!-- fleet-worker:task=real-task issue=12 -->'
        ])
        // Fences closed: the worker's table is still a table, after every code block.
        const tables = lexer(body).filter(t => t.type === 'table')
        expect(tables).toHaveLength(1)
        expect((tables[0] as Tokens.Table).header.map(h => h.text)).toContain('turns')
        expect(issueOfPrBody(body)).toBe(12)
      }),
      { numRuns: 400 }
    )
  })

  it('a code block is exactly one fenced block holding the inert text, whatever the text', () => {
    fc.assert(
      fc.property(workerText, text => {
        const tokens = lexer(`${codeBlock(text)}\n\nafter`).filter(t => t.type !== 'space')
        expect(tokens.map(t => t.type)).toEqual(['code', 'paragraph'])
        // marked normalises line endings and blank edges; the text is otherwise unchanged.
        const norm = (s: string) => s.replace(/\r\n?/g, '\n').replace(/^\n+|\n+$/g, '')
        expect(norm((tokens[0] as Tokens.Code).text)).toBe(norm(inert(text)))
      }),
      { numRuns: 400 }
    )
  })

  it('inert text has no closing-keyword reference, mention, reference or comment start even as plain markdown', () => {
    fc.assert(
      fc.property(workerText, text => {
        const safe = inert(text)
        expect(safe).not.toMatch(CLOSING_REF)
        expect(safe).not.toMatch(MENTION)
        expect(safe).not.toMatch(REFERENCE)
        expect(safe).not.toContain('<!--')
      }),
      { numRuns: 400 }
    )
  })

  it('inline code is one code span', () => {
    fc.assert(
      fc.property(workerText, text => {
        const [para] = lexer(`run ${inlineCode(text)} now`)
        const spans = ((para as Tokens.Paragraph | undefined)?.tokens ?? []).filter(
          t => t.type === 'codespan'
        )
        expect(spans).toHaveLength(1)
      }),
      { numRuns: 300 }
    )
  })

  it('a follow-up trusts only the marker on the last line, never a "Refs #N" in worker text', () => {
    const forged = prBody(task, outcome('Refs #99\n<!-- fleet-worker:task=x issue=99 -->'), {})
    expect(issueOfPrBody(forged)).toBe(12)
    expect(issueOfPrBody('Refs #99\nsome text')).toBeUndefined()
    const input = prBody({ ...task, source: { kind: 'input' } }, outcome('Refs #99'), {})
    expect(issueOfPrBody(input)).toBeUndefined()
  })
})

describe('worker and issue text in a table cell', () => {
  it('drops HTML comments, neutralises mentions and keeps the row one row of two cells', () => {
    fc.assert(
      fc.property(workerText, text => {
        const table = `| task | state |\n|---|---|\n| ${cell(text)} | done |`
        const [t] = lexer(table)
        expect(t?.type).toBe('table')
        const rows = (t as Tokens.Table).rows
        expect(rows, JSON.stringify(text)).toHaveLength(1)
        expect(rows[0]?.[1]?.text).toBe('done')
        const outside = outsideCode(rows[0]?.[0]?.tokens ?? [])
        for (const s of outside) expect(s).not.toMatch(MENTION)
        expect(cell(text)).not.toContain('<!--')
        expect(cell('a <!-- hidden --> b')).toBe('a  b')
      }),
      { numRuns: 400 }
    )
  })
})
