import type { Octokit } from './client.js'
import { isGitHubError } from './errors.js'

/**
 * Who the token writes as. A user's token (a PAT) names its login at GET /user. An installation
 * token (the default GITHUB_TOKEN, or a GitHub App's) gets 403 there and cannot learn its bot's
 * login without the app's private key: what it writes is marked by GitHub instead, as a Bot's
 * comment with `performed_via_github_app`, which no person can forge.
 */
export type TokenIdentity = { kind: 'user'; login: string } | { kind: 'app' }

interface Author {
  user?: { login: string; type?: string } | null
  performed_via_github_app?: unknown
}

const known = new WeakMap<Octokit, Promise<TokenIdentity>>()

export function tokenIdentity(octokit: Octokit): Promise<TokenIdentity> {
  let identity = known.get(octokit)
  if (!identity) {
    identity = octokit.rest.users.getAuthenticated().then(
      ({ data }) => ({ kind: 'user', login: data.login }) as const,
      (error: unknown) => {
        if (isGitHubError(error, 'forbidden', 'unauthorized')) return { kind: 'app' } as const
        throw error
      }
    )
    known.set(octokit, identity)
  }
  return identity
}

/**
 * Whether `marker` is where the action writes its markers: the first line of a comment or the
 * last. Anywhere else it was pasted (a quote, a code block, text a worker or a setup produced);
 * worker text cannot even spell one (inert-text.ts breaks `<!--`), and a marker is trusted only
 * in a comment the token wrote (markedBy).
 */
export function markerAt(body: string, marker: string, at: 'first' | 'last'): boolean {
  const text = body.replace(/\r\n?/g, '\n').trim()
  return at === 'first' ? text.split('\n')[0] === marker : text.split('\n').at(-1) === marker
}

/** The token's own comment with the marker in its place (see markerAt and writtenBy). */
export function markedBy(
  identity: TokenIdentity,
  comment: Author & { body?: string | null },
  marker: string,
  at: 'first' | 'last'
): boolean {
  return writtenBy(identity, comment) && markerAt(comment.body ?? '', marker, at)
}

/** Whether the token's own identity wrote this comment (see TokenIdentity). */
export function writtenBy(identity: TokenIdentity, comment: Author): boolean {
  if (identity.kind === 'user') return comment.user?.login === identity.login
  return comment.user?.type === 'Bot' && Boolean(comment.performed_via_github_app)
}
