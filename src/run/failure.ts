/** How a run's failure is told in one line. */
import { GitError } from '../git/git.js'
import { isGitHubError } from '../github/errors.js'

/** An error as one line that names the service that failed: GitHub API, git remote, or the input. */
export function failureMessage(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error)
  if (isGitHubError(error))
    return `GitHub API (${error.request.method || 'GET'} ${error.request.url}): ${message}`
  if (error instanceof GitError && ['fetch', 'push', 'ls-remote'].includes(error.args[0] ?? ''))
    return `git remote: ${message}`
  return message
}
