// The checklist reader against GitHub's own parser on the spec examples: every example of the GFM
// spec and the CommonMark spec, as written and with a checkbox put after every list marker, and
// the checkboxes cmark-gfm (GitHub's parser, with its task-list extension) rendered for each,
// recorded once in test/fixtures/gfm-tasks.json by scripts/gfm-fixture.mjs.
//
// One known difference, on GitHub's side: github.com renders task items inside block quotes,
// while the cmark-gfm command line does not. So the items the reader finds outside block quotes
// must equal cmark-gfm's exactly, and the quoted ones are checked on their own below.
import { readFileSync } from 'node:fs'
import type { ListItem, Nodes } from 'mdast'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { parseMarkdown, plainText, taskItems } from '../../src/tasks/markdown.js'
import { checklist } from '../../src/tasks/from-issue.js'

interface Example {
  spec: string
  example: number
  variant: string
  markdown: string
  checkboxes: boolean[]
}

const fixture = JSON.parse(
  readFileSync(new URL('../fixtures/gfm-tasks.json', import.meta.url), 'utf8')
) as { examples: Example[] }

/**
 * Where the reader and cmark-gfm disagree, and why; the test fails once one agrees (so the list
 * only shrinks). micromark's task-list extension looks for the checkbox in a paragraph only.
 */
// Empty since issue 38: an item whose text is a setext heading (example 278, `- [ ] Bar` over
// `---`) is read as cmark-gfm reads it (src/tasks/markdown.ts, headingTask).
const KNOWN: Record<string, { ours: boolean[]; why: string }> = {}

function quotedItems(markdown: string): Set<ListItem> {
  const quoted = new Set<ListItem>()
  const walk = (node: Nodes, inQuote: boolean): void => {
    if (inQuote && node.type === 'listItem') quoted.add(node)
    if ('children' in node)
      for (const child of node.children) walk(child, inQuote || node.type === 'blockquote')
  }
  walk(parseMarkdown(markdown), false)
  return quoted
}

describe('task items on the spec examples, beside cmark-gfm', () => {
  it('the fixture holds every example and enough checkboxes to mean something', () => {
    expect(fixture.examples.length).toBeGreaterThan(700)
    expect(fixture.examples.filter(e => e.checkboxes.length > 0).length).toBeGreaterThan(60)
  })

  for (const e of fixture.examples) {
    it(`${e.spec} example ${e.example} (${e.variant})`, () => {
      const tree = parseMarkdown(e.markdown)
      const quoted = quotedItems(e.markdown)
      const ours = taskItems(e.markdown, tree)
      // the parse above is separate from quotedItems', so match quoted items by position
      const at = new Set([...quoted].map(q => q.position?.start.offset))
      const outside = ours.filter(t => !at.has(t.item.position?.start.offset))
      const known = KNOWN[`${e.spec} example ${e.example} (${e.variant})`]
      if (known) {
        expect(
          outside.map(t => t.checked),
          known.why
        ).toEqual(known.ours)
        expect(known.ours).not.toEqual(e.checkboxes)
      } else expect(outside.map(t => t.checked)).toEqual(e.checkboxes)
    })
  }
})

describe('task items inside block quotes (github.com renders them)', () => {
  it('count in order with the others, ordered lists too', () => {
    expect(checklist('- [ ] a\n\n> - [x] b\n> 1. [ ] c\n\n- [ ] d')).toEqual([
      { position: 1, checked: false, text: 'a' },
      { position: 2, checked: true, text: 'b' },
      { position: 3, checked: false, text: 'c' },
      { position: 4, checked: false, text: 'd' }
    ])
  })
})

describe('no text inside code or an HTML block ever becomes a task', () => {
  const line = fc.stringMatching(/^[ -~]{0,30}$/).filter(l => !/[`~<>]/.test(l))
  const item = fc.tuple(
    fc.constantFrom('- ', '* ', '1. ', '2) ', '> - '),
    fc.constantFrom('[ ] ', '[x] '),
    line
  )
  const lines = fc.array(
    fc.oneof(
      item.map(([m, c, t]) => `${m}${c}${t}`),
      line
    ),
    { minLength: 1, maxLength: 6 }
  )

  it('in a fence (``` or ~~~, any length, closed or not)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('```', '~~~', '````', '~~~~~'),
        lines,
        fc.boolean(),
        (fence, body, closed) => {
          const md = `${fence}\n${body.join('\n')}\n${closed ? fence : ''}`
          expect(taskItems(md)).toEqual([])
        }
      )
    )
  })

  it('in indented code', () => {
    fc.assert(
      fc.property(fc.constantFrom('    ', '\t', '     '), lines, (indent, body) => {
        const md = `Intro.\n\n${body.map(l => `${indent}${l}`).join('\n')}\n`
        expect(taskItems(md)).toEqual([])
      })
    )
  })

  it('in an HTML block (no blank line inside it)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('<details>', '<div>', '<table>', '<!--', '<pre>'),
        lines,
        (open, body) => {
          const md = `${open}\n${body.filter(l => l.trim() !== '').join('\n')}\n`
          expect(taskItems(md)).toEqual([])
        }
      )
    )
  })
})

// Rendered by cmark-gfm 0.29.0.gfm.6 with -e tasklist (GitHub's parser), each noted beside it.
describe('an item whose text is a setext heading, as cmark-gfm renders it', () => {
  const cases: Array<[string, Array<[boolean, string]>, string]> = [
    [
      '- [ ] Bar\n  ---\n',
      [[false, 'Bar']],
      '<li><input type="checkbox" disabled="" /><h2>Bar</h2></li>'
    ],
    [
      '1. [x] Foo\n   ===\n',
      [[true, 'Foo']],
      '<li><input type="checkbox" checked="" disabled="" /><h1>Foo</h1></li>'
    ],
    ['- [ ]  \n  ===\n', [[false, '===']], '<li><input type="checkbox" disabled="" /> ===</li>'],
    ['- [ ]\n  ---\n', [], '<li><h2>[ ]</h2></li>: no space after the box, no box'],
    ['- [ ]\n  <div>\n  x\n  </div>\n', [], '<li>[ ] <!-- raw HTML omitted --></li>'],
    ['- [x] <div>\n  hi\n  </div>\n', [[true, 'hi']], 'a checkbox, then the HTML block'],
    [
      '- [ ] Bar\n  ===\n  - [ ] sub\n',
      [
        [false, 'Bar'],
        [false, 'sub']
      ],
      'the heading, then a nested task'
    ]
  ]
  for (const [markdown, expected, cmark] of cases)
    it(`${JSON.stringify(markdown)}: ${cmark}`, () => {
      const items = taskItems(markdown)
      expect(items.map(t => t.checked)).toEqual(expected.map(([c]) => c))
      const texts = items.map(t => (t.paragraph ? plainText(t.paragraph).trim() : ''))
      for (const [i, [, text]] of expected.entries()) expect(texts[i]).toContain(text)
    })
})
