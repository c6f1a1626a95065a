/**
 * What the model reads is what a person sees on github.com. Issue, comment and review text is
 * parsed as GitHub parses it (src/tasks/markdown.ts), and the parts a reader never sees go:
 * image alt text, link and reference-definition titles, definitions and footnotes nothing refers
 * to (the `[//]: # (...)` comment idiom is one), HTML attributes, comments, processing instructions, CDATA, doctype,
 * and invisible characters. Everything else keeps its source, so code, links and layout stay.
 */
import type { Definition, Nodes, Parents, Root } from 'mdast'
import { type HtmlState, visibleHtml } from './html.js'
import { dropInvisible } from './invisible.js'
import { parseMarkdown, sourceOf } from './markdown.js'

export interface Visible {
  text: string
  /** Characters a reader could not see that were dropped: markup (alt, titles, attributes, comments) and invisible ones. */
  hidden: number
}

interface Ctx {
  source: string
  definitions: Map<string, Definition>
  /** Definitions a link points at; the others show nothing and go. */
  linked: Set<string>
  /** Footnotes a reference points at; github.com renders no other footnote definition. */
  noted: Set<string>
  /** A `<script>` or `<style>` raw HTML opened and has not closed: what follows is its content. */
  html: HtmlState
  hidden: number
}

function collect(tree: Root, ctx: Ctx): void {
  const walk = (node: Nodes): void => {
    if (node.type === 'definition') ctx.definitions.set(node.identifier, node)
    if (node.type === 'linkReference') ctx.linked.add(node.identifier)
    if (node.type === 'footnoteReference') ctx.noted.add(node.identifier)
    if ('children' in node) for (const child of node.children) walk(child)
  }
  walk(tree)
}

/** The source from `from` to `to`, each child replaced by what it renders to. */
function splice(children: Nodes[], from: number, to: number, ctx: Ctx): string {
  let out = ''
  let at = from
  for (const child of children) {
    const start = child.position?.start.offset
    const stop = child.position?.end.offset
    if (start === undefined || stop === undefined || start < at) continue
    out += ctx.source.slice(at, start) + render(child, ctx)
    at = stop
  }
  return out + ctx.source.slice(at, to)
}

function spliced(node: Parents, ctx: Ctx): string {
  const { start, end } = node.position ?? {}
  if (start?.offset === undefined || end?.offset === undefined) return ''
  return splice(node.children, start.offset, end.offset, ctx)
}

/** The text between a link's brackets. */
function linkText(node: Parents, ctx: Ctx): string {
  const from = node.children[0]?.position?.start.offset
  const to = node.children.at(-1)?.position?.end.offset
  return from === undefined || to === undefined ? '' : splice(node.children, from, to, ctx)
}

function render(node: Nodes, ctx: Ctx): string {
  // Inside a script or style element github.com drops (its end tag may come in a later node).
  if (ctx.html.dropping && node.type !== 'html' && !('children' in node)) {
    ctx.hidden += sourceOf(node, ctx.source).length
    return ''
  }
  switch (node.type) {
    case 'text': {
      // Its source, unless a character reference (`&#8203;`) spells an invisible character.
      const decoded = dropInvisible(node.value)
      if (decoded.dropped === 0) return sourceOf(node, ctx.source)
      ctx.hidden += decoded.dropped
      return decoded.text
    }
    case 'image':
      ctx.hidden += (node.alt ?? '').length + (node.title ?? '').length
      return `![](${node.url})`
    case 'imageReference': {
      ctx.hidden += (node.alt ?? '').length
      const url = ctx.definitions.get(node.identifier)?.url
      return url ? `![](${url})` : ''
    }
    case 'link':
      if (node.title === null || node.title === undefined) break
      ctx.hidden += node.title.length
      return `[${linkText(node, ctx)}](${node.url})`
    case 'definition': {
      if (!ctx.linked.has(node.identifier)) {
        ctx.hidden += sourceOf(node, ctx.source).length
        return ''
      }
      ctx.hidden += (node.title ?? '').length
      return `[${node.label ?? node.identifier}]: ${node.url}`
    }
    case 'footnoteDefinition':
      if (ctx.noted.has(node.identifier)) break
      ctx.hidden += sourceOf(node, ctx.source).length
      return ''
    case 'html': {
      const shown = visibleHtml(node.value, ctx.html)
      ctx.hidden += node.value.length - shown.length
      return shown
    }
  }
  return 'children' in node ? spliced(node, ctx) : sourceOf(node, ctx.source)
}

export function visibleText(markdown: string): Visible {
  const source = markdown.replace(/\r\n?/g, '\n')
  const tree = parseMarkdown(source)
  const ctx: Ctx = {
    source,
    definitions: new Map(),
    linked: new Set(),
    noted: new Set(),
    html: {},
    hidden: 0
  }
  collect(tree, ctx)
  const shown = dropInvisible(splice(tree.children, 0, source.length, ctx))
  const text = shown.text.trim()
  return { text, hidden: ctx.hidden + shown.dropped }
}
