// Text the action did not write, rendered by GitHub as prose (a table cell, the plan in an issue,
// a reason in a comment): whatever it says, GitHub's rendering of it (read here with a real GFM
// renderer, character references decoded as a browser would) holds no live mention, reference or
// closing keyword, no HTML of its own, no image and no link to a host other than github.com, and
// cleanText gives back what the planner wrote when nothing had to become code.
import fc from 'fast-check'
import { parse } from 'marked'
import { describe, expect, it } from 'vitest'
import { cleanText } from '../../src/tasks/invisible.js'
import { cell, inertProse } from '../../src/report/worker-text.js'
import { markerAt } from '../../src/github/identity.js'
import { CLOSING_REF, MENTION, REFERENCE } from '../support/markdown.js'

const hostile = fc.constantFrom(
  '@org/team',
  '&commat;org/team',
  '&#64;user',
  '&#x40;user',
  '&#0064;user',
  '&num;7',
  '&#35;7',
  'Fixes #1',
  'f&#105;xes #1',
  // Markdown's escapes: `@\-` renders `@-`, `GH\-7` renders `GH-7`.
  '@\\-',
  '@\\_x',
  'GH\\-7',
  'https://github.com/acme/widgets/issues/7',
  'https://github.com/acme/widgets/pull/8#issuecomment-1',
  '![x](https://evil.example/p.png)',
  '![x](<https://evil.example/p.png> "t")',
  '![a [b](c)](https://evil.example/n.png)',
  '[click](https://evil.example/)',
  '[ok](https://github.com/acme/widgets/blob/main/README.md)',
  '[rel](docs/a.md)',
  '[x](//evil.example/p.png)',
  '[x](/\\evil.example/p.png)',
  '![r][ref]\n\n[ref]: https://evil.example/r.png',
  'https://evil.example/x.png',
  'www.evil.example',
  '<img src="https://evil.example/t.gif">',
  '<picture><source srcset="https://evil.example/s.png"></picture>',
  '<a href="https://evil.example">x</a>',
  '<https://evil.example/auto>',
  '<!-- fleet-worker:answer review=1 -->',
  '`',
  '``',
  '\n',
  ' ',
  '[',
  ']',
  '(',
  ')',
  '!'
)
const text = fc
  .array(fc.oneof(hostile, fc.string({ maxLength: 6 })), { maxLength: 12 })
  .map(parts => parts.join(''))

const NAMED: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  commat: '@',
  num: '#'
}
const decode = (html: string) =>
  html.replace(
    /&(?:#x([0-9a-f]+)|#(\d+)|([a-z]+));/gi,
    (m, hex?: string, dec?: string, name?: string) =>
      hex
        ? String.fromCodePoint(parseInt(hex, 16))
        : dec
          ? String.fromCodePoint(Number(dec))
          : (NAMED[name ?? ''] ?? m)
  )

/** GitHub's view of the markdown: the HTML, and the text outside code a reader's browser shows. */
function render(markdown: string): { html: string; prose: string } {
  const html = parse(markdown, { async: false })
  const prose = decode(
    html.replace(/<code>[\s\S]*?<\/code>/g, ' ').replace(/<[^>]+>/g, ' ')
  ).replace(/\u200b/g, '\u200b')
  return { html, prose }
}

const FOREIGN =
  /(?:src|href|srcset)="(?!https:\/\/github\.com[/"?#])(?:[a-z][a-z0-9+.-]*:|\/\/|\/\\)/i

describe('inert prose', () => {
  it('as GitHub renders it: no mention, reference, closing keyword, HTML, image or foreign link', () => {
    fc.assert(
      fc.property(text, t => {
        const { html, prose } = render(inertProse(t))
        expect(html).not.toMatch(/<img|<picture|<source|<a href="https?:\/\/evil/i)
        expect(html).not.toMatch(FOREIGN)
        expect(html).not.toMatch(/href="[^"]*\/(?:issues|pull)\/\d/)
        expect(html).not.toContain('<!--')
        expect(prose).not.toMatch(MENTION)
        expect(prose).not.toMatch(REFERENCE)
        expect(prose).not.toMatch(/\bGH-\d/i)
        expect(prose).not.toMatch(CLOSING_REF)
      }),
      { numRuns: 4000 }
    )
  })

  it('in a table cell too: one row, two cells, nothing live', () => {
    fc.assert(
      fc.property(text, t => {
        const { html, prose } = render(`| a | b |\n|---|---|\n| ${cell(t)} | end |`)
        expect(html.match(/<tr>/g)).toHaveLength(2)
        expect(html).toMatch(/<td>end<\/td>/)
        expect(html).not.toMatch(/<img|<picture|<source/i)
        expect(html).not.toMatch(FOREIGN)
        expect(prose).not.toMatch(MENTION)
        expect(prose).not.toMatch(REFERENCE)
      }),
      { numRuns: 2000 }
    )
  })

  it('shows a foreign image as code; a bare URL to the own host stays a link, link syntax stays text', () => {
    const shown = inertProse('see ![x](https://evil.example/p.png) now')
    expect(shown.replace(/\u200b/g, '')).toBe('see  ` ![x](https://evil.example/p.png) `  now')
    expect(render(shown).html.replace(/\u200b/g, '')).toContain(
      '<code>![x](https://evil.example/p.png)</code>'
    )
    expect(render(inertProse('https://github.com/acme/widgets/blob/main/a.md')).html).toContain(
      'href="https://github.com/acme/widgets/blob/main/a.md"'
    )
    expect(render(inertProse('[rel](docs/a.md)')).html).not.toContain('href')
    // A GitHub Enterprise host is its own when told so.
    expect(render(inertProse('see https://ghe.example/p', 'ghe.example')).html).toContain(
      'href="https://ghe.example/p"'
    )
  })

  it('cleanText gives back the text whenever nothing had to become code', () => {
    const plain = fc
      .array(
        fc.oneof(
          fc.constantFrom('@org/team', '&commat;x', '&#64;y', '&num;7', 'Fixes #1', '<b>', 'GH-3'),
          fc.stringMatching(/^[A-Za-z0-9 .,:;'"()&#@-]{0,10}$/)
        ),
        { maxLength: 8 }
      )
      .map(parts => parts.join('').trim())
    fc.assert(
      fc.property(plain, t => {
        fc.pre(!/:\/\/|www\./i.test(t))
        expect(cleanText(inertProse(t))).toBe(cleanText(t))
      }),
      { numRuns: 800 }
    )
  })
})

describe('a marker where the action writes it', () => {
  const M = '<!-- fleet-worker:answer review=1 -->'
  it('counts on the first or last line only, as asked', () => {
    expect(markerAt(`Summary.\n\n${M}`, M, 'last')).toBe(true)
    expect(markerAt(`Summary.\n\n${M}\n`, M, 'last')).toBe(true)
    expect(markerAt(`${M}\nSummary.`, M, 'first')).toBe(true)
    expect(markerAt(`${M}\nSummary.`, M, 'last')).toBe(false)
    expect(markerAt(`Summary: ${M}`, M, 'last')).toBe(false)
    expect(markerAt(`Quoted:\n\n> ${M}\n\nThe end.`, M, 'last')).toBe(false)
    expect(markerAt(`x\n\`\`\`\n${M}\n\`\`\``, M, 'last')).toBe(false)
  })
})
