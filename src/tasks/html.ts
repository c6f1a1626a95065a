/**
 * Raw HTML in Markdown as a reader sees it: tags stay (without their attributes: `title`, `alt`,
 * `aria-label`, `data-*`, `placeholder`... are never shown as text), comments, processing
 * instructions, CDATA and declarations go. The shapes are CommonMark's own definitions of raw
 * HTML (spec section 6.6), applied to what the Markdown parser already classified as HTML.
 */
const NAME = '[A-Za-z][A-Za-z0-9-]*'
const ATTRIBUTE = `\\s+[A-Za-z_:][A-Za-z0-9_.:-]*(?:\\s*=\\s*(?:[^\\s"'=<>\`]+|'[^']*'|"[^"]*"))?`
const HIDDEN = [
  '<!--(?:>|->|[\\s\\S]*?-->|[\\s\\S]*$)',
  '<\\?[\\s\\S]*?(?:\\?>|$)',
  '<!\\[CDATA\\[[\\s\\S]*?(?:\\]\\]>|$)',
  '<![A-Za-z][^>]*(?:>|$)'
].join('|')
const TAG = `<(${NAME})((?:${ATTRIBUTE})*)\\s*(/?)>`
/** An opening tag the block ends inside: a browser reads the rest as the tag, so none of it shows. */
const CUT_TAG = `<${NAME}(?:\\s[^>]*)?$`
const PATTERN = new RegExp(`(${HIDDEN})|${TAG}|(${CUT_TAG})`, 'g')

export function visibleHtml(html: string): string {
  return html.replace(
    PATTERN,
    (_all, hidden: string | undefined, name: string | undefined, _attrs, slash: string) => {
      if (hidden !== undefined || name === undefined) return ''
      return `<${name}${slash ? ' /' : ''}>`
    }
  )
}
