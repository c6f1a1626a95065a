/**
 * Text the action did not write, as the action posts it: in code (fenced blocks, inline code, as
 * PR bodies show a worker's words and a verify's output) or as table cells. What makes a text
 * inert (no mention, reference, closing keyword, marker, entity, tag or foreign image) lives in
 * inert-text.ts, beside the other shared words, so the pure task lists can use it too.
 */
import { inert, inertProse, OWN_HOST } from '../inert-text.js'

export { inert, inertProse, OWN_HOST }

/** A fenced block that no text can close early: its fence is longer than any backtick run in it. */
export function fence(text: string): string {
  const longest = Math.max(2, ...(text.match(/`+/g) ?? []).map(s => s.length))
  const ticks = '`'.repeat(longest + 1)
  return `${ticks}\n${text}\n${ticks}`
}

/** Worker text as a code block: fenced, and inert even if a renderer ignored the fence. */
export function codeBlock(text: string): string {
  return fence(inert(text))
}

/** Worker text as inline code (a command line): inert, in a backtick run longer than any in it. */
export function inlineCode(text: string): string {
  const oneLine = inert(text).replace(/\r\n?|[\n\u2028\u2029]/g, ' ')
  const longest = Math.max(0, ...(oneLine.match(/`+/g) ?? []).map(s => s.length))
  const ticks = '`'.repeat(longest + 1)
  return `${ticks} ${oneLine} ${ticks}`
}

/**
 * Text for one table cell: hidden HTML comments dropped, inert prose (inertProse), and nothing
 * that ends the cell or the row.
 */
export function cell(text: string, ownHost = OWN_HOST): string {
  // U+2028/2029 end a line for some renderers. Cut before the escapes and breaks: a cut through
  // an escape ("\\|") would leave a bare pipe that ends the cell, and one through a code span
  // would leave its URL outside it.
  const flat = text
    .replace(/<!--[\s\S]*?(?:-->|$)/g, '')
    .replace(/\r\n?|[\n\u2028\u2029]/g, ' ')
    .slice(0, 200)
  return inertProse(flat, ownHost).replace(/[\\|]/g, '\\$&')
}
