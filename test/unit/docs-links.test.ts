// The docs stand alone: every relative link in them resolves (file and heading), and every
// document named in the docs, the source, the tests or the benches exists in the repository.
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { marked, type Token, type Tokens } from 'marked'
import { describe, expect, it } from 'vitest'

const ROOT = path.resolve(import.meta.dirname, '../..')
const DOCS = [
  'README.md',
  'SECURITY.md',
  'CHANGELOG.md',
  'CONTRIBUTING.md',
  ...mdIn('docs'),
  ...mdIn('docs/decisions')
]
const CODE_DIRS = ['src', 'test', 'bench', 'scripts', 'examples', '.ci', '.github']
/** Names of files in a user's repository that the product reads, not documents of ours. */
const NOT_DOCUMENTS = new Set(['SKILL.md'])
const SELF = path.relative(ROOT, import.meta.filename)

function mdIn(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir))
    .filter(name => name.endsWith('.md'))
    .map(name => `${dir}/${name}`)
}

function filesIn(dir: string): string[] {
  const abs = path.join(ROOT, dir)
  if (!existsSync(abs)) return []
  return readdirSync(abs, { recursive: true, withFileTypes: true })
    .filter(e => e.isFile() && !/\.(json|txt|bundle)$/.test(e.name))
    .map(e => path.relative(ROOT, path.join(e.parentPath, e.name)))
}

/** GitHub's heading anchors (github-slugger's rule): lower case, punctuation dropped, spaces to '-'. */
function slug(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-')
}

function tokensOf(file: string): Token[] {
  return marked.lexer(readFileSync(path.join(ROOT, file), 'utf8'))
}

function anchorsOf(file: string): Set<string> {
  const seen = new Map<string, number>()
  const anchors = new Set<string>()
  void marked.walkTokens(tokensOf(file), t => {
    if (t.type !== 'heading') return
    const base = slug((t as Tokens.Heading).text.replace(/`/g, ''))
    const n = seen.get(base) ?? 0
    seen.set(base, n + 1)
    anchors.add(n ? `${base}-${n}` : base)
  })
  return anchors
}

function linksOf(file: string): string[] {
  const links: string[] = []
  void marked.walkTokens(tokensOf(file), t => {
    if (t.type === 'link' || t.type === 'image') links.push((t as Tokens.Link).href)
  })
  return links.filter(href => !/^[a-z][a-z0-9+.-]*:/i.test(href))
}

/** Where a link goes, or why it does not. */
function brokenLink(file: string, href: string): string | undefined {
  const [target = '', anchor] = href.split('#')
  const resolved = target ? path.join(path.dirname(file), decodeURI(target)) : file
  if (!existsSync(path.join(ROOT, resolved))) return `${file}: ${href} (no ${resolved})`
  if (anchor && resolved.endsWith('.md') && !anchorsOf(resolved).has(anchor))
    return `${file}: ${href} (no heading #${anchor} in ${resolved})`
  return undefined
}

/** A document named in text (`docs/x.md`, `SECURITY.md`) that is in the repository. */
function citedExists(from: string, name: string): boolean {
  const candidates = [name, path.join(path.dirname(from), name), path.join('docs', name)]
  return candidates.some(c => existsSync(path.join(ROOT, c)))
}

/** A document's text outside code: what it says to its reader, not an example it shows. */
function proseOf(file: string): string {
  const parts: string[] = []
  void marked.walkTokens(tokensOf(file), t => {
    if (t.type === 'text' || t.type === 'link') parts.push(t.raw)
  })
  return parts.join('\n')
}

/** The comments of a source file (`//`, a `*` line of a block comment, `#`): not its strings. */
function commentsOf(text: string): string {
  return text
    .split('\n')
    .map(line => /^\s*(?:\*|\/\*|#)(.*)$/.exec(line)?.[1] ?? /\s\/\/(.*)$/.exec(line)?.[1] ?? '')
    .join('\n')
}

describe('the docs stand alone', () => {
  it('has every relative link resolve, down to the heading', () => {
    const broken = DOCS.flatMap(file => linksOf(file).map(href => brokenLink(file, href)))
    expect(broken.filter(Boolean)).toEqual([])
  })

  it('cites only documents that are in the repository', () => {
    const missing: string[] = []
    const check = (file: string, text: string) => {
      // A name ending in .md that is not a URL's tail (https://.../README.md is someone else's).
      for (const m of text.matchAll(/(?<![\w/.:-])((?:[\w.-]+\/)*[\w.-]+\.md)\b/g))
        if (!NOT_DOCUMENTS.has(path.basename(m[1]!)) && !citedExists(file, m[1]!))
          missing.push(`${file}: ${m[1]}`)
    }
    for (const file of DOCS) check(file, proseOf(file))
    for (const file of [...CODE_DIRS.flatMap(filesIn), 'Dockerfile', 'action.yml'])
      if (file !== SELF) check(file, commentsOf(readFileSync(path.join(ROOT, file), 'utf8')))
    expect(missing).toEqual([])
  })

  it('finds a broken link and a missing document (the checks can fail)', () => {
    expect(brokenLink('docs/contract.md', 'nowhere.md')).toMatch(/no docs\/nowhere\.md/)
    expect(brokenLink('docs/contract.md', '../README.md#no-such-heading')).toMatch(/no heading/)
    expect(brokenLink('docs/contract.md', '../README.md#triggers')).toBeUndefined()
    expect(citedExists('src/x.ts', 'NOT-IN-THIS-REPO.md')).toBe(false)
    expect(commentsOf("const a = 'x.md' // see y.md\n * and z.md")).toBe(' see y.md\n and z.md')
  })
})
