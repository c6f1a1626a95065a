/**
 * Text for the action's log. The runner reads a workflow command (`::error::`, `::add-mask::`,
 * `::stop-commands::`, the older `##[command]`) from any line the step prints, and it splits
 * lines on `\r` as well as `\n`. Much of what the action logs comes from a cage or from an issue:
 * a setup's or verify's output, a worker's words, an error that quotes them, an id or title taken
 * from issue text. So every line the action logs goes through here: control characters are shown
 * as escapes (`\r`, `\x1b`), the size is capped, and a text that holds anything the runner could
 * read as a command is fenced by `::stop-commands::<token>` and `::<token>::`, with a token
 * drawn afresh for each text: nothing inside the fence can end it, because nothing inside it was
 * written after the token was drawn.
 */
import { randomBytes } from 'node:crypto'

/** The most of one text the log shows: its start and its end, the middle cut. */
export const MAX_LOG_TEXT = 16_000

// C0 controls but tab and newline (so `\r` too), DEL, C1 (the runner's .NET reads U+0085 as a
// line end), the Unicode line and paragraph separators, bidi controls (they reorder what a
// reader sees) and the BOM.
const CONTROL =
  // eslint-disable-next-line no-control-regex -- control characters are exactly what this shows
  /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u2028\u2029\u202A-\u202E\u2066-\u2069\uFEFF]/g

function escaped(c: string): string {
  if (c === '\r') return '\\r'
  const code = c.charCodeAt(0)
  return code < 0x100
    ? `\\x${code.toString(16).padStart(2, '0')}`
    : `\\u${code.toString(16).padStart(4, '0')}`
}

/** The text with its control characters shown as escapes, cut to `max` characters. */
export function printable(text: string, max = MAX_LOG_TEXT): string {
  const shown = text.replace(/\r\n/g, '\n').replace(CONTROL, escaped)
  if (shown.length <= max) return shown
  const half = Math.floor(max / 2)
  return `${shown.slice(0, half)}\n[... ${shown.length - 2 * half} characters cut ...]\n${shown.slice(-half)}`
}

/**
 * Whether the runner could read a command anywhere in the text: a line whose first non-space
 * characters are `::`, or `##[` anywhere in a line. Broader on purpose: any `::` at all.
 */
export function mayHoldCommand(text: string): boolean {
  return text.includes('::') || text.includes('##[')
}

/** A text as the action logs it: printable, and fenced when the runner could read a command in it. */
export function logText(text: string): string {
  const shown = printable(text)
  if (!mayHoldCommand(shown)) return shown
  const token = randomBytes(16).toString('hex')
  return `::stop-commands::${token}\n${shown}\n::${token}::`
}
