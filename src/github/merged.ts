import { describeError } from '../errors.js'
import type { Client } from './client.js'

/**
 * Whether each PR is merged, as the API says now (the spend report's cost per merged PR). A PR
 * the API cannot give is left out (counted as not merged) and said in the log.
 */
export async function mergedStates(
  { octokit, repo }: Client,
  numbers: readonly number[],
  log: (m: string) => void
): Promise<Map<number, { merged: boolean }>> {
  const states = new Map<number, { merged: boolean }>()
  for (const pull_number of new Set(numbers)) {
    try {
      const { data } = await octokit.rest.pulls.get({ ...repo, pull_number })
      states.set(pull_number, { merged: data.merged_at !== null })
    } catch (error) {
      log(`PR #${pull_number}: not read (${describeError(error)}); counted as not merged`)
    }
  }
  return states
}
