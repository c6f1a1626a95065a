/**
 * Raw HTML in Markdown as a reader of github.com sees it, read by parse5's HTML5 tokenizer (the
 * WHATWG algorithm, as a browser reads it): tags stay, without their attributes (`title`, `alt`,
 * `aria-label`, `data-*`, `placeholder`... are never shown as text); comments, processing
 * instructions, CDATA, doctypes and a tag the text ends inside go. `<script>` and `<style>` go
 * with their content, as GitHub's sanitizer removes them: an element's content is read as a
 * browser reads it (script data, raw text), so it ends only at its own end tag, which may come
 * in a later piece of the same document (`HtmlState`).
 */
import { type Token, Tokenizer, TokenizerMode } from 'parse5'

type TagToken = Token.TagToken

/** Elements github.com drops together with everything inside them. */
const DROPPED: Record<string, (typeof TokenizerMode)[keyof typeof TokenizerMode]> = {
  script: TokenizerMode.SCRIPT_DATA,
  style: TokenizerMode.RAWTEXT
}

/** What one document's earlier HTML left open: a dropped element whose end tag has not come. */
export interface HtmlState {
  dropping?: string
}

/** The HTML as shown, and the state it leaves for the document's next piece of HTML. */
export function visibleHtml(html: string, state: HtmlState = {}): string {
  let out = ''
  const tokenizer: Tokenizer = new Tokenizer(
    { sourceCodeLocationInfo: true },
    {
      onStartTag(token: TagToken) {
        if (state.dropping) return
        const mode = DROPPED[token.tagName]
        if (mode !== undefined) {
          state.dropping = token.tagName
          tokenizer.state = mode
          return
        }
        out += `<${token.tagName}${token.selfClosing ? ' /' : ''}>`
      },
      onEndTag(token: TagToken) {
        if (state.dropping) {
          if (token.tagName === state.dropping) state.dropping = undefined
          return
        }
        out += `</${token.tagName}>`
      },
      onCharacter: token => void (state.dropping ? undefined : (out += sourceOf(token))),
      onWhitespaceCharacter: token => void (state.dropping ? undefined : (out += sourceOf(token))),
      onNullCharacter: () => undefined,
      onComment: () => undefined,
      onDoctype: () => undefined,
      onEof: () => undefined
    }
  )
  // Characters as written (a reference stays spelled as it was: visible.ts decides on those).
  const sourceOf = (token: {
    chars: string
    location: { startOffset: number; endOffset: number } | null
  }) =>
    token.location ? html.slice(token.location.startOffset, token.location.endOffset) : token.chars
  if (state.dropping) {
    tokenizer.state = DROPPED[state.dropping] ?? TokenizerMode.DATA
    tokenizer.lastStartTagName = state.dropping
  }
  tokenizer.write(html, true)
  return out
}
