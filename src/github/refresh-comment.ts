import { describeError } from '../errors.js'
import { withRefreshSection } from '../report/refresh.js'
import type { Client } from './client.js'
import { findLiveComment, MARKER } from './live-comment.js'

/**
 * The merge order written into an issue's live comment (the action's own, found by its marker):
 * the refresh's section replaced or added, the task table above it kept; a new live comment when
 * the issue has none. Never fails the run: a refresh's outcomes are reported anyway.
 */
export async function putRefreshSection(
  { octokit, repo }: Client,
  issue: number,
  section: string,
  log: (m: string) => void
): Promise<void> {
  try {
    const found = await findLiveComment({ octokit, repo }, issue)
    if (found) {
      const body = withRefreshSection(found.body, section)
      if (body !== found.body)
        await octokit.rest.issues.updateComment({ ...repo, comment_id: found.id, body })
      return
    }
    const body = [MARKER, '### Fleet Worker', '', section].join('\n')
    await octokit.rest.issues.createComment({ ...repo, issue_number: issue, body })
  } catch (error) {
    log(`could not write the merge order on #${issue}: ${describeError(error)}`)
  }
}
