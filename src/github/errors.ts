/**
 * GitHub's refusals as one error type. Every request the client makes (src/github/client.ts)
 * that ends in an HTTP error — after the retry and throttling plugins have had their tries —
 * throws a GitHubError, made here from Octokit's RequestError, so callers decide on its `kind`
 * instead of reading status codes by hand.
 */
import { RequestError } from '@octokit/request-error'

export type GitHubErrorKind =
  | 'unauthorized'
  | 'forbidden'
  | 'not-found'
  | 'conflict'
  | 'validation'
  | 'rate-limited'
  | 'server'
  | 'other'

/** What a status (and, for 403, the rate-limit headers and message) means. */
export function kindOf(
  status: number,
  headers: Record<string, string | number | undefined> = {},
  message = ''
): GitHubErrorKind {
  if (status === 429) return 'rate-limited'
  if (status === 403)
    return String(headers['x-ratelimit-remaining']) === '0' ||
      headers['retry-after'] !== undefined ||
      /rate limit/i.test(message)
      ? 'rate-limited'
      : 'forbidden'
  if (status === 401) return 'unauthorized'
  if (status === 404 || status === 410) return 'not-found'
  if (status === 409) return 'conflict'
  if (status === 422) return 'validation'
  if (status >= 500) return 'server'
  return 'other'
}

/** Octokit's RequestError (status, request, response kept) with what it means for the action. */
export class GitHubError extends RequestError {
  readonly kind: GitHubErrorKind

  constructor(error: RequestError) {
    super(error.message, error.status, {
      request: error.request,
      response: error.response,
      cause: error.cause
    })
    this.kind = kindOf(error.status, error.response?.headers, error.message)
  }
}

/** A GitHubError for an Octokit request's error; anything else as it was. */
export function gitHubError(error: unknown): unknown {
  if (error instanceof GitHubError || !(error instanceof RequestError)) return error
  return new GitHubError(error)
}

/** Whether an error is GitHub's, of the kind. */
export function isGitHubError(error: unknown, ...kinds: GitHubErrorKind[]): error is GitHubError {
  return error instanceof GitHubError && (kinds.length === 0 || kinds.includes(error.kind))
}
