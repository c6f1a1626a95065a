/**
 * Markdown read by GitHub's rules: CommonMark plus the GFM extensions (task lists, tables,
 * autolinks, strikethrough, footnotes), through micromark and mdast, so a checklist item is what
 * github.com renders as a checkbox and nothing inside code, fences or HTML blocks ever is.
 */
import type { ListItem, Nodes, Paragraph, Root } from 'mdast'
import { fromMarkdown } from 'mdast-util-from-markdown'
import { gfmFromMarkdown } from 'mdast-util-gfm'
import { gfm } from 'micromark-extension-gfm'
import { type HtmlState, visibleHtml } from './html.js'

export function parseMarkdown(text: string): Root {
  return fromMarkdown(text, { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] })
}

/** A task-list item as github.com renders it: a checkbox, checked or not. */
export interface TaskItem {
  checked: boolean
  /** The item's first paragraph (its line after the checkbox and what continues it); none when empty. */
  paragraph?: Paragraph
  item: ListItem
}

/**
 * `- [ ]` followed by spaces and nothing else: github.com (cmark-gfm) renders an empty checkbox,
 * micromark a plain item holding the text `[ ]`. Counted as a checkbox, so `k` matches what a
 * reader counts.
 */
function emptyCheck(item: ListItem, source: string): boolean | undefined {
  const first = item.children[0]
  if (item.children.length !== 1 || first?.type !== 'paragraph') return undefined
  const at = first.position
  if (!at || at.start.offset === undefined || at.end.offset === undefined) return undefined
  const raw = source.slice(at.start.offset, at.end.offset)
  const m = /^\[([ xX])\][ \t]+$/.exec(raw)
  return m ? m[1] !== ' ' : undefined
}

/** The checkbox cmark-gfm takes off an item's first line: `[ ]`, `[x]` or `[X]`, then a space or tab. */
const CHECKBOX = /^\[([ xX])\][ \t]+/

/**
 * An item whose text is a setext heading (`- [ ] Bar` over `---`): cmark-gfm takes the checkbox
 * off the item's first line before it reads the block, so github.com draws a checkbox and the
 * heading `Bar`; micromark reads the heading `[ ] Bar`. And when nothing but spaces followed the
 * checkbox, the underline is no underline to cmark-gfm but the item's text (`- [ ]  ` over `===`).
 */
function headingTask(item: ListItem, source: string): TaskItem | undefined {
  const first = item.children[0]
  if (first?.type !== 'heading') return undefined
  const raw = sourceOf(first, source)
  const m = CHECKBOX.exec(raw)
  // An ATX heading starts with '#': only a setext heading can start with the checkbox.
  if (!m) return undefined
  const rest = raw.slice(m[0].length)
  const firstLine = rest.split('\n')[0] ?? ''
  const children: Paragraph['children'] =
    firstLine.trim() === ''
      ? [{ type: 'text', value: rest.trim() }]
      : first.children.map((child, i) =>
          i === 0 && child.type === 'text'
            ? { ...child, value: child.value.replace(CHECKBOX, '') }
            : child
        )
  const paragraph: Paragraph = { type: 'paragraph', children, position: first.position }
  return { checked: m[1] !== ' ', item, paragraph }
}

function taskOf(item: ListItem, source: string): TaskItem | undefined {
  if (typeof item.checked === 'boolean') {
    const first = item.children[0]
    return {
      checked: item.checked,
      item,
      ...(first?.type === 'paragraph' ? { paragraph: first } : {})
    }
  }
  const heading = headingTask(item, source)
  if (heading) return heading
  const empty = emptyCheck(item, source)
  return empty === undefined ? undefined : { checked: empty, item }
}

/** Every task-list item of a document, in document order (a parent before its nested items). */
export function taskItems(source: string, tree: Root = parseMarkdown(source)): TaskItem[] {
  const found: TaskItem[] = []
  const walk = (node: Nodes): void => {
    if (node.type === 'listItem') {
      const task = taskOf(node, source)
      if (task) found.push(task)
    }
    if ('children' in node) for (const child of node.children) walk(child)
  }
  walk(tree)
  return found
}

/**
 * What a reader sees of inline content, as plain text: text, code spans and link text kept;
 * images, raw HTML, footnote marks and the content of a `<script>` or `<style>` dropped.
 */
export function plainText(node: Nodes, html: HtmlState = {}): string {
  if (html.dropping && node.type !== 'html' && !('children' in node)) return ''
  switch (node.type) {
    case 'text':
    case 'inlineCode':
      return node.value
    case 'break':
      return '\n'
    case 'html':
      // Read for the elements it opens and closes; none of it is shown as plain text.
      visibleHtml(node.value, html)
      return ''
    case 'image':
    case 'imageReference':
    case 'footnoteReference':
      return ''
    default:
      return 'children' in node ? node.children.map(child => plainText(child, html)).join('') : ''
  }
}

/** The source text a node spans. */
export function sourceOf(node: Nodes, source: string): string {
  const at = node.position
  if (at?.start.offset === undefined || at.end.offset === undefined) return ''
  return source.slice(at.start.offset, at.end.offset)
}
