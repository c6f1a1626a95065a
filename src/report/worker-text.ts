/**
 * Text the action did not write — a worker's final message, a verify's output, an issue's words —
 * goes onto GitHub as data: nothing in it may close an issue, notify a person or a team, or pass
 * for one of the action's own `<!-- fleet-worker:… -->` markers. A zero-width space breaks each
 * such token where GitHub would read it, and leaves it readable to a person.
 */
const ZWSP = '\u200b'

/** GitHub's closing keywords (close, closes, closed, fix, fixes, fixed, resolve, resolves, resolved). */
const CLOSING = /\b(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?)\b/gi

export function inert(text: string): string {
  return (
    text
      // An HTML comment is where markers hide: none may start in worker text.
      .replace(/<!--/g, `<!-${ZWSP}-`)
      // @user and @org/team.
      .replace(/@(?=[\p{L}\p{N}_-])/gu, `@${ZWSP}`)
      // #123, owner/repo#123 and GH-123: no cross-reference, so nothing to close either.
      .replace(/#(?=\d)/g, `#${ZWSP}`)
      .replace(/\b(GH)-(?=\d)/gi, `$1${ZWSP}-`)
      .replace(CLOSING, word => `${word.slice(0, 1)}${ZWSP}${word.slice(1)}`)
  )
}

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
 * Text for one table cell: hidden HTML comments dropped, mentions and references made inert, and
 * nothing that ends the cell or the row.
 */
export function cell(text: string): string {
  // U+2028/2029 end a line for some renderers. Cut first: a cut through an escape ("\\|") would leave a bare pipe that ends the cell.
  return inert(text.replace(/<!--[\s\S]*?(?:-->|$)/g, ''))
    .replace(/\r\n?|[\n\u2028\u2029]/g, ' ')
    .slice(0, 200)
    .replace(/[\\|]/g, '\\$&')
}
