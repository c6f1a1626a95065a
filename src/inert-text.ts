/**
 * Text the action did not write — a worker's final message, a verify's output, an issue's words —
 * goes onto GitHub as data: nothing in it may close an issue, notify a person or a team, or pass
 * for one of the action's own `<!-- fleet-worker:… -->` markers. A zero-width space breaks each
 * such token where GitHub would read it, and leaves it readable to a person.
 */
const ZWSP = '\u200b'

/**
 * GitHub's closing keywords (close, closes, closed, fix, fixes, fixed, resolve, resolves,
 * resolved), wherever a letter or digit does not continue them: `_closes_` and `**fixes**` too.
 */
const CLOSING = /(?<![\p{L}\p{N}])(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?)(?![\p{L}\p{N}])/giu

export function inert(text: string): string {
  return (
    text
      // An HTML comment is where markers hide: none may start in worker text.
      .replace(/<!--/g, `<!-${ZWSP}-`)
      // @user and @org/team; and `@\-`, which Markdown's escape renders `@-`.
      .replace(/@(?=[\p{L}\p{N}_-]|\\)/gu, `@${ZWSP}`)
      // #123, owner/repo#123 and GH-123 (or `GH\-123`, rendered `GH-123`): no cross-reference,
      // so nothing to close either.
      .replace(/#(?=\d)/g, `#${ZWSP}`)
      .replace(/\b(GH)(?=\\?-\d)/gi, `$1${ZWSP}`)
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
// Link and image syntax: `![` starts every image, `](` every inline link, `][` a reference link
// and `]:` a definition (which lends its URL to `![x][r]`, and may sit in a list or a quote).
const LINK_SYNTAX = /(!|\])(?=[[(:])/g

const LINK_TEXT = String.raw`\[(?:[^\[\]\n]|\[[^\[\]\n]*\])*\]`
const TITLE = String.raw`(?:\s+(?:"[^"\n]*"|'[^'\n]*'|\([^)\n]*\)))?`
// An inline link or image (to show whole, as code, when it points elsewhere), or a bare URL or
// `www.` as far as GFM would autolink it (to whitespace or `<`; a cut-off `\b` would not stop it).
const LINKISH = new RegExp(
  [
    String.raw`!?${LINK_TEXT}\(\s*(?:<([^>\n]*)>|([^\s)]*))${TITLE}\s*\)`,
    String.raw`(?:https?|ftp):\/\/[^\s<]+`,
    String.raw`www\.[^\s<]+`
  ].join('|'),
  'gi'
)

/** Where a URL starts: each place a renderer could begin an autolink. */
const URL_START = /(:|www)(?=\/\/|\.)/gi
const URL_AT = /^(?:(?:https?|ftp):\/\/|www\.)[^\s<]+/i

/** Every URL in a bare one, overlapping ones included (`…/x(https://other…`). */
function urlsIn(text: string): string[] {
  const found: string[] = []
  for (const m of text.matchAll(/(?:https?|ftp):\/\/|www\./gi)) {
    const url = URL_AT.exec(text.slice(m.index))?.[0]
    if (url) found.push(url)
  }
  return found
}

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

/**
 * A span of code that holds a piece of `whole` as it is. Its backtick run is longer than any in
 * the whole text, so no backticks of the text's own close it, or open a span it would close; the
 * spaces around it keep backticks next to it from joining its run, and end a bare URL before it
 * (GFM extends an autolink to the next whitespace, through backticks and zero-width spaces).
 */
function codeSpanIn(whole: string): (piece: string) => string {
  const longest = Math.max(0, ...(whole.match(/`+/g) ?? []).map(s => s.length))
  const ticks = '`'.repeat(longest + 1)
  // The URL's scheme and `www.` are broken too: a renderer that read the span otherwise (marked
  // closes a span early on a longer run) still finds no URL in it to link.
  return piece => ` ${ticks} ${piece.replace(URL_START, `$1${ZWSP}`)} ${ticks} `
}

/**
 * Text the action did not write, for GitHub to render as prose (a table cell, the plan in an
 * issue, a reason in a comment): inert as above, and beyond it nothing GitHub would decode, link
 * or fetch. Character references are broken (so `&commat;team` stays text), raw HTML shows as
 * text, an issue or PR URL makes no cross-reference, no image, inline link, reference link or
 * definition forms at all, and a link, image or bare URL to any host but `ownHost` is shown as
 * code: GitHub's image proxy never fetches it for a reader. The breaks are zero-width spaces,
 * which cleanText removes again; a bare URL to `ownHost` stays a link.
 */
export function inertProse(text: string, ownHost = OWN_HOST): string {
  const code = codeSpanIn(text)
  const own = (dest: string) => [undefined, ownHost.toLowerCase()].includes(hostOf(dest))
  const linked = text.replace(LINKISH, (m, angled?: string, plain?: string) => {
    const dest = angled ?? plain
    // A match may hold another URL (`…/x(https://other…`, `[](a [b](https://…)`) that a
    // renderer links on its own: every one must be the own host's.
    const urls = dest === undefined ? urlsIn(m) : [dest, ...urlsIn(m)]
    return urls.every(own) ? m : code(m)
  })
  return inert(linked)
    .replace(ENTITY, `&${ZWSP}`)
    .replace(TAG, `<${ZWSP}`)
    .replace(ISSUE_URL, `/$1/${ZWSP}`)
    .replace(LINK_SYNTAX, `$1${ZWSP}`)
}

/** A closing keyword as GitHub finds it: not inside a word, though emphasis (`_fixes_`) may wrap it. */
const KEYWORD = String.raw`(?<![\p{L}\p{N}])(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?)(?![\p{L}\p{N}])`
/** Between keyword and issue: emphasis marks, a colon with or without a space, spaces. */
const BETWEEN = String.raw`[*_~:\s]{0,12}`
/** The issue: `#1`, `GH-1`, `owner/repo#1`, or its URL (with or without a scheme, maybe in `<>`). */
const ISSUE = String.raw`(?:#\d|GH-\d|[\w.-]+\/[\w.-]+#\d|<?(?:https?:\/\/)?[\w.-]+(?:\.[\w-]+)+\/[^\s/]+\/[^\s/]+\/(?:issues|pull)\/\d)`

/**
 * What would act once the commit is merged: a closing keyword naming an issue or an @mention.
 * Beyond GitHub's documented forms (`Fixes #1`, `closes owner/repo#2`, `resolves
 * https://github.com/o/r/issues/3`, `fix: GH-4`) the ones it may also honour: a colon with no
 * space (`fixes:#1`), a URL without its scheme, and emphasis around the keyword (`**fixes** #1`,
 * `_closes_ #2`).
 */
const LIVE = new RegExp(`${KEYWORD}${BETWEEN}${ISSUE}|@[\\p{L}\\p{N}_-]`, 'iu')

/**
 * A commit message as the fleet pushes it: unchanged unless something in it would act on GitHub,
 * then made inert the way PR bodies are (a zero-width space in each such word: still readable).
 * A plain "Fix the parser" stays as it was written.
 */
export function inertCommitMessage(message: string): string {
  return LIVE.test(message) ? inert(message) : message
}
