import { getOctokit } from '@actions/github'
import { retry } from '@octokit/plugin-retry'
import { throttling } from '@octokit/plugin-throttling'
import Bottleneck from 'bottleneck/light.js'
import { gitHubError } from './errors.js'

export type Octokit = ReturnType<typeof getOctokit>

export interface Repo {
  owner: string
  repo: string
}

/**
 * The client bound to one repository, as the files of src/github/ pass it between them. Nothing
 * outside src/github/ sees it: they hold the GitHub object (github.ts), which owns one.
 */
export interface Client {
  octokit: Octokit
  repo: Repo
}

/**
 * Octokit with the retry plugin (5xx and network errors, with backoff) and the throttling plugin
 * (primary and secondary rate limits: waits for `retry-after` / `x-ratelimit-reset`, twice). What
 * still fails is thrown as a GitHubError (errors.ts), whose `kind` callers read.
 */
export function createClient(token: string, apiUrl: string, log: (m: string) => void): Octokit {
  const octokit = getOctokit(
    token,
    {
      baseUrl: apiUrl,
      retry: { retries: 3 },
      throttle: {
        // The plugin spaces requests that notify people (new PRs, comments) 3 s apart, which alone
        // makes 24 PRs take 72 s. GitHub asks for at least one second between mutating requests
        // (docs: "Best practices for using the REST API"), so keep one at a time, 1 s apart.
        notifications: new Bottleneck.Group({
          id: 'fleet-notifications',
          maxConcurrent: 1,
          minTime: 1000
        }),
        onRateLimit: (
          after: number,
          options: { method: string; url: string },
          _o: unknown,
          count: number
        ) => {
          log(`GitHub rate limit on ${options.method} ${options.url}; retrying in ${after}s`)
          return count < 2
        },
        onSecondaryRateLimit: (
          after: number,
          options: { method: string; url: string },
          _o: unknown,
          count: number
        ) => {
          log(
            `GitHub secondary rate limit on ${options.method} ${options.url}; retrying in ${after}s`
          )
          return count < 2
        }
      }
    },
    retry,
    throttling
  )
  // Registered after the plugins' hooks, so it wraps them: it sees the error their tries ended in.
  octokit.hook.error('request', error => {
    throw gitHubError(error)
  })
  return octokit
}
