// Regenerates test/fixtures/gfm-tasks.json: for every example of the GFM spec (the one cmark-gfm
// ships, /usr/share/doc/cmark-gfm/spec.txt.gz) and of the CommonMark spec (the commonmark-spec
// package), as written and with `[ ] ` put after every list marker, the checkboxes GitHub's own
// parser renders, in order (true = checked). Needs Debian's cmark-gfm (`apt-get install
// cmark-gfm`); the test suite reads only the fixture. Run: node scripts/gfm-fixture.mjs
import { execFileSync } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { gunzipSync } from 'node:zlib'

const FENCE = '`'.repeat(32)
const SPEC = '/usr/share/doc/cmark-gfm/spec.txt.gz'
const EXTENSIONS = ['table', 'strikethrough', 'autolink', 'tagfilter', 'tasklist']

/** The spec's examples: the Markdown before the `.` line of each example block (→ is a tab). */
function gfmExamples() {
  const text = gunzipSync(readFileSync(SPEC)).toString('utf8')
  const blocks = text.split(`${FENCE} example`).slice(1)
  return blocks.map(block => block.slice(block.indexOf('\n') + 1).split('\n.\n')[0] + '\n')
}

const cmarkVersion = execFileSync('cmark-gfm', ['--version'], { encoding: 'utf8' }).split('\n')[0]

function checkboxes(markdown) {
  const args = EXTENSIONS.flatMap(e => ['-e', e])
  const html = execFileSync('cmark-gfm', args, { input: markdown, encoding: 'utf8' })
  return [...html.matchAll(/<input type="checkbox"( checked="")? disabled="" \/>/g)].map(
    m => !!m[1]
  )
}

/** The example with a checkbox after every list marker, so each shape is tried as a task item. */
const asTasks = markdown =>
  markdown.replace(/^((?:[ \t]*>)*[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]+)(?!\[)/gm, '$1[ ] ')

const require = createRequire(import.meta.url)
const sources = [
  ['gfm 0.29', gfmExamples()],
  ['commonmark 0.31.2', require('commonmark-spec').tests.map(t => t.markdown)]
]
const seen = new Set()
const examples = []
for (const [spec, list] of sources) {
  list.forEach((raw, i) => {
    const markdown = raw.replaceAll('→', '\t')
    for (const [variant, text] of [
      ['as written', markdown],
      ['with checkboxes', asTasks(markdown)]
    ]) {
      if (seen.has(text)) continue
      seen.add(text)
      examples.push({ spec, example: i + 1, variant, markdown: text, checkboxes: checkboxes(text) })
    }
  })
}
const out = {
  generator: `scripts/gfm-fixture.mjs with ${cmarkVersion} -e ${EXTENSIONS.join(' -e ')}`,
  examples
}
writeFileSync(
  new URL('../test/fixtures/gfm-tasks.json', import.meta.url),
  JSON.stringify(out, null, 1) + '\n'
)
console.log(
  `${examples.length} examples, ${examples.filter(e => e.checkboxes.length).length} with checkboxes`
)
