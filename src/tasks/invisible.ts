/**
 * Characters a reader does not see but a model reads, by Unicode's own definition rather than a
 * list kept here: every Default_Ignorable_Code_Point (zero-width and joiner characters, soft
 * hyphen, Hangul fillers, invisible operators, tag characters, variation selectors, ...), the
 * bidi controls, and the control characters but tab and line ends. Variation selectors beyond the
 * one an emoji may carry go (a run of them after an emoji is a known way to smuggle bytes past a
 * reader); the joiner stays inside an emoji sequence.
 */
const INVISIBLE = /\p{Default_Ignorable_Code_Point}|\p{Bidi_Control}|(?![\t\n\r])\p{Cc}/u
const SELECTOR = /[\uFE00-\uFE0F\u{E0100}-\u{E01EF}]/u
const EMOJI = /\p{Emoji}/u
const PICTOGRAPH = /\p{Extended_Pictographic}/u
/** What a zero-width joiner may follow inside an emoji sequence (👩‍💻, ❤️‍🔥, 👍🏽‍...). */
const JOINS_AFTER = /[\p{Extended_Pictographic}\p{Emoji_Modifier}\uFE0F]/u

export interface Dropped {
  text: string
  /** How many hidden characters were taken out. */
  dropped: number
}

/** Whether the character at `i` is shown (or shapes what is shown), given what was kept before it. */
function keeps(chars: string[], i: number, prev: string, selected: boolean): boolean {
  const ch = chars[i] ?? ''
  if (SELECTOR.test(ch))
    return !selected && (ch === '\uFE0E' || ch === '\uFE0F') && EMOJI.test(prev)
  // The joiner stays only inside an emoji sequence, where it changes what is drawn.
  if (ch === '\u200D') return JOINS_AFTER.test(prev) && PICTOGRAPH.test(chars[i + 1] ?? '')
  return !INVISIBLE.test(ch)
}

export function dropInvisible(text: string): Dropped {
  const chars = [...text]
  let out = ''
  let dropped = 0
  let prev = ''
  let selected = false
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i] ?? ''
    if (!keeps(chars, i, prev, selected)) {
      dropped++
      continue
    }
    selected = SELECTOR.test(ch)
    out += ch
    if (!selected) prev = ch
  }
  return { text: out, dropped }
}

/**
 * Plain text (a title, a path, a log line) as data for the worker, never for a shell or a ref:
 * without what a reader of it cannot see but a model would read (HTML comments, invisible and
 * control characters; src/tasks/invisible.ts). Markdown goes through visibleText instead.
 */
export function cleanText(text: string): string {
  const bare = text.replace(/<!--[\s\S]*?(-->|$)/g, '').replace(/\r\n?/g, '\n')
  return dropInvisible(bare).text.trim()
}
