import { inert } from './worker-text.js'

/**
 * What would act once the commit is merged: a closing keyword naming an issue (`Fixes #1`,
 * `closes owner/repo#2`, `resolves https://github.com/o/r/issues/3`, `fix GH-4`) or an @mention.
 */
const LIVE =
  /\b(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?)\b:?\s+(?:[\w.-]+\/[\w.-]+#\d|#\d|GH-\d|https?:\/\/\S+\/(?:issues|pull)\/\d)|@[\p{L}\p{N}_-]/iu

/**
 * A commit message as the fleet pushes it: unchanged unless something in it would act on GitHub,
 * then made inert the way PR bodies are (a zero-width space in each such word: still readable).
 * A plain "Fix the parser" stays as it was written.
 */
export function inertCommitMessage(message: string): string {
  return LIVE.test(message) ? inert(message) : message
}
