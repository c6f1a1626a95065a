import type { Actor } from '../domain.js'
import type { Client } from './client.js'

/**
 * Who last applied `label` to the issue, from its `labeled` events. Label access is triage, not
 * write: the schedule trigger must ask who queued an issue before a worker runs it.
 */
export async function labelledBy(
  { octokit, repo }: Client,
  issue: number,
  label: string
): Promise<Actor | undefined> {
  const events = await octokit.paginate(octokit.rest.issues.listEvents, {
    ...repo,
    issue_number: issue,
    per_page: 100
  })
  const wanted = label.toLowerCase()
  const last = events
    .filter(e => e.event === 'labeled' && 'label' in e && e.label.name.toLowerCase() === wanted)
    .at(-1)
  const actor = last?.actor
  return actor ? { login: actor.login, isBot: actor.type === 'Bot' } : undefined
}
