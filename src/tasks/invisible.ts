/**
 * Characters a reader does not see but a model reads: zero-width and joiner characters, bidi
 * controls, Unicode tag characters, Hangul fillers, interlinear annotations, control characters,
 * and variation selectors beyond the one an emoji may carry (a run of them after an emoji is a
 * known way to smuggle bytes past a reader).
 */
const INVISIBLE = new RegExp(
  // eslint-disable-next-line no-misleading-character-class -- joiners and combining invisibles are exactly what this removes, one by one
  [
    '\\p{Bidi_Control}',
    '[\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F\\u007F-\\u009F]',
    '[\\u00AD\\u034F\\u115F\\u1160\\u17B4\\u17B5\\u180B-\\u180F\\u200B-\\u200F\\u2060-\\u206F]',
    '[\\u3164\\uFEFF\\uFFA0\\uFFF9-\\uFFFB\\u{1D173}-\\u{1D17A}\\u{E0000}-\\u{E007F}]'
  ].join('|'),
  'u'
)
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
