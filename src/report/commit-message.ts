import { inert } from './worker-text.js'

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
