// What GitHub would act on in markdown the action posts, read with a real CommonMark/GFM lexer.
import type { Token, Tokens } from 'marked'

export const MENTION = /(?:^|[^\p{L}\p{N}_`])@[\p{L}\p{N}_-]/u
export const CLOSING_REF =
  /\b(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?)\b:?\s+(?:[\w.-]+\/[\w.-]+)?(?:#|GH-)\d+/i
export const REFERENCE = /(?:^|[^\w])(?:[\w.-]+\/[\w.-]+)?#\d/

/** The raw text of every token that is not code, however deep (lists, tables, blockquotes). */
export function outsideCode(tokens: Token[]): string[] {
  const found: string[] = []
  const walk = (list: Token[]) => {
    for (const t of list) {
      if (t.type === 'code' || t.type === 'codespan') continue
      if (t.type === 'table') {
        const table = t as Tokens.Table
        for (const c of [...table.header, ...table.rows.flat()]) walk(c.tokens)
        continue
      }
      if (t.type === 'list') {
        for (const item of (t as Tokens.List).items) walk(item.tokens)
        continue
      }
      const children = (t as { tokens?: Token[] }).tokens
      if (children?.length) walk(children)
      else found.push(t.raw)
    }
  }
  walk(tokens)
  return found
}
