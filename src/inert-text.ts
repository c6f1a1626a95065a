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

/** The GitHub host links and images may point at: any other is shown as code. */
export const OWN_HOST = 'github.com'

// A character reference (`&commat;`, `&#64;`, `&#x40;`, `&num;`) renders as the character it
// names, after the checks above looked at the text: `&commat;org/team` would be a live mention.
const ENTITY = /&(?=#|[A-Za-z][A-Za-z0-9]{0,31};)/g
// A raw HTML tag or comment (`<img src=…>`, `<a href>`, `<picture>`, `<!--`): shown as text.
const TAG = /<(?=[A-Za-z/!?])/g
// An issue, PR or discussion URL makes a cross-reference in that issue, as `#7` would.
const ISSUE_URL = /\/(issues|pulls?|discussions)\/(?=\d)/gi
// A link reference definition (`[r]: https://…`) lends its URL to `![x][r]` elsewhere.
const DEFINITION = /^( {0,3})\[(?=[^\]\n]+\]:)/gm

const LINK_TEXT = String.raw`\[(?:[^\[\]\n]|\[[^\[\]\n]*\])*\]`
const TITLE = String.raw`(?:\s+(?:"[^"\n]*"|'[^'\n]*'|\([^)\n]*\)))?`
// An inline link or image, a bare URL or `www.` (GFM autolinks both): each matched once.
const LINKISH = new RegExp(
  [
    String.raw`!?${LINK_TEXT}\(\s*(?:<([^>\n]*)>|([^\s)]*))${TITLE}\s*\)`,
    String.raw`\b(?:https?|ftp):\/\/[^\s<>"'\x60]+`,
    String.raw`\bwww\.[^\s<>"'\x60]+`
  ].join('|'),
  'gi'
)

/** The host a destination or bare URL points at: undefined when relative, 'invalid' when odd. */
function hostOf(dest: string): string | undefined {
  if (/^www\./i.test(dest)) return hostOf(`http://${dest}`)
  // A browser reads `\\host` and `/\\host` as `//host`.
  if (/^\/?\\/.test(dest)) return 'invalid'
  if (!/^[a-z][a-z0-9+.-]*:/i.test(dest) && !dest.startsWith('//')) return undefined
  try {
    return new URL(dest, 'https://relative.invalid').hostname.toLowerCase()
  } catch {
    return 'invalid'
  }
}

/** A span of code that holds `text` as it is (a backtick run longer than any in it). */
function codeSpan(text: string): string {
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map(s => s.length))
  const ticks = '`'.repeat(longest + 1)
  return `${ticks} ${text} ${ticks}`
}

/**
 * Text the action did not write, for GitHub to render as prose (a table cell, the plan in an
 * issue, a reason in a comment): inert as above, and beyond it nothing GitHub would decode, link
 * or fetch. Character references are broken (so `&commat;team` stays text), raw HTML shows as
 * text, an issue or PR URL makes no cross-reference, a link definition lends no URL, and an image
 * or link to any host but `ownHost` (a bare URL too) is shown as code: GitHub's image proxy never
 * fetches it for a reader. The breaks are zero-width spaces, which cleanText removes again.
 */
export function inertProse(text: string, ownHost = OWN_HOST): string {
  const linked = text.replace(LINKISH, (m, angled?: string, plain?: string) => {
    const host = hostOf(angled ?? plain ?? m)
    return host === undefined || host === ownHost.toLowerCase() ? m : codeSpan(m)
  })
  return inert(linked)
    .replace(ENTITY, `&${ZWSP}`)
    .replace(TAG, `<${ZWSP}`)
    .replace(ISSUE_URL, `/$1/${ZWSP}`)
    .replace(DEFINITION, `$1[${ZWSP}`)
}
