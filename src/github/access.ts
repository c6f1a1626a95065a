import type { Actor } from '../domain.js'
import type { Client } from './client.js'
import { isGitHubError } from './errors.js'

const WRITERS = ['admin', 'maintain', 'write']

export type Access = { allowed: true } | { allowed: false; reason: string }

/** Only people with write access (admin, maintain, write) delegate; bots only when named. */
export async function checkAccess(
  { octokit, repo }: Client,
  actor: Actor,
  allowedBots: string[]
): Promise<Access> {
  if (actor.isBot) {
    const name = actor.login.replace(/\[bot\]$/, '')
    return allowedBots.includes(actor.login) || allowedBots.includes(name)
      ? { allowed: true }
      : { allowed: false, reason: `@${actor.login} is a bot not listed in allowed-bots` }
  }
  try {
    const { data } = await octokit.rest.repos.getCollaboratorPermissionLevel({
      ...repo,
      username: actor.login
    })
    const role = data.role_name || data.permission
    return WRITERS.includes(role) || WRITERS.includes(data.permission)
      ? { allowed: true }
      : {
          allowed: false,
          reason: `@${actor.login} has ${role} access; delegating needs write, maintain or admin`
        }
  } catch (error) {
    if (isGitHubError(error, 'not-found')) {
      return { allowed: false, reason: `@${actor.login} is not a collaborator of this repository` }
    }
    throw error
  }
}
