// POST /graphql of the GitHub mock: a request is executed against GitHub's published GraphQL schema
// (@octokit/graphql-schema), so a document or variables GitHub would reject are rejected here with
// graphql-js's messages; the three mutations the landing train uses act on the mock's state with
// GitHub's error messages. Anything else resolves to null.
import { schema as githubSchema } from '@octokit/graphql-schema'
import {
  buildClientSchema,
  graphqlSync,
  type GraphQLSchema,
  type IntrospectionQuery
} from 'graphql'
import type { MergeMethod } from './github-git.js'
import { doMerge, mergeBlocker } from './github-merge.js'
import type { Reply } from './github-routes.js'
import type { GitHubState, MockPull } from './github-state.js'

let built: GraphQLSchema | undefined
// From the introspection result: the package's SDL repeats a few fields, which buildSchema refuses.
const schema = (): GraphQLSchema =>
  (built ??= buildClientSchema(
    (githubSchema.json as { data?: IntrospectionQuery }).data ??
      (githubSchema.json as unknown as IntrospectionQuery)
  ))

/** GitHub's GraphQL errors carry a type beside the message. */
class GitHubGraphQLError extends Error {
  constructor(
    message: string,
    readonly type: string
  ) {
    super(message)
  }
}

const nodeIdOf = (pr: MockPull) => Buffer.from(`PR_${pr.id}`).toString('base64')

function pullByNode(s: GitHubState, id: unknown): MockPull {
  const pr = s.pulls.find(p => nodeIdOf(p) === id)
  if (!pr)
    throw new GitHubGraphQLError(
      `Could not resolve to a node with the global id of '${String(id)}'`,
      'NOT_FOUND'
    )
  return pr
}

function pullNode(s: GitHubState, pr: MockPull) {
  const auto = pr.pull.auto_merge
  return {
    id: nodeIdOf(pr),
    number: pr.number,
    isDraft: pr.pull.draft,
    state: pr.pull.merged_at ? 'MERGED' : pr.state.toUpperCase(),
    merged: pr.pull.merged_at !== null,
    headRefOid: s.headSha(pr),
    autoMergeRequest: auto
      ? { mergeMethod: auto.merge_method.toUpperCase(), enabledAt: pr.updated_at }
      : null
  }
}

type Input = Record<string, unknown>

function markReady(s: GitHubState, input: Input) {
  const pr = pullByNode(s, input.pullRequestId)
  pr.pull.draft = false
  return { clientMutationId: input.clientMutationId ?? null, pullRequest: pullNode(s, pr) }
}

function enableAutoMerge(s: GitHubState, input: Input, caller: string) {
  const pr = pullByNode(s, input.pullRequestId)
  if (!s.settings.allow_auto_merge)
    throw new GitHubGraphQLError(
      'Pull request Auto merge is not allowed for this repository',
      'UNPROCESSABLE'
    )
  if (pr.state !== 'open')
    throw new GitHubGraphQLError('Pull request Pull request is closed', 'UNPROCESSABLE')
  if (input.expectedHeadOid && input.expectedHeadOid !== s.headSha(pr))
    throw new GitHubGraphQLError(
      'Head branch was modified. Review and try the merge again.',
      'UNPROCESSABLE'
    )
  if (!mergeBlocker(s, pr))
    throw new GitHubGraphQLError('Pull request Pull request is in clean status', 'UNPROCESSABLE')
  const method = (
    typeof input.mergeMethod === 'string' ? input.mergeMethod : 'MERGE'
  ).toLowerCase() as MergeMethod
  pr.pull.auto_merge = { merge_method: method, enabled_by: caller }
  return { clientMutationId: input.clientMutationId ?? null, pullRequest: pullNode(s, pr) }
}

function enqueue(s: GitHubState, input: Input) {
  const pr = pullByNode(s, input.pullRequestId)
  if (!s.rules.some(r => r.type === 'merge_queue'))
    throw new GitHubGraphQLError(
      'Pull request is not in a state that can be added to the merge queue',
      'UNPROCESSABLE'
    )
  if (input.expectedHeadOid && input.expectedHeadOid !== s.headSha(pr))
    throw new GitHubGraphQLError(
      'Head branch was modified. Review and try the merge again.',
      'UNPROCESSABLE'
    )
  pr.pull.queued = true
  const position = s.pulls.filter(p => p.pull.queued && p.state === 'open').length
  return {
    clientMutationId: input.clientMutationId ?? null,
    mergeQueueEntry: {
      id: Buffer.from(`MQE_${pr.id}`).toString('base64'),
      position,
      state: 'QUEUED',
      pullRequest: pullNode(s, pr)
    }
  }
}

/** The merge queue lands its entries, in order (a test's stand-in for the queue's own CI). */
export function drainMergeQueue(s: GitHubState): number[] {
  const landed: number[] = []
  for (const pr of s.pulls.filter(p => p.pull.queued && p.state === 'open')) {
    const method = s.settings.allow_squash_merge ? 'squash' : 'merge'
    if (doMerge(s, pr, { method, by: 'github-merge-queue[bot]' })) landed.push(pr.number)
  }
  return landed
}

export function graphqlAnswer(s: GitHubState, body: unknown, caller: string): Reply {
  const request = (body ?? {}) as { query?: unknown; variables?: unknown }
  if (typeof request.query !== 'string')
    return {
      status: 400,
      body: {
        message: 'Problems parsing JSON',
        documentation_url: 'https://docs.github.com/graphql'
      }
    }
  const rootValue = {
    markPullRequestReadyForReview: ({ input }: { input: Input }) => markReady(s, input),
    enablePullRequestAutoMerge: ({ input }: { input: Input }) => enableAutoMerge(s, input, caller),
    enqueuePullRequest: ({ input }: { input: Input }) => enqueue(s, input)
  }
  const result = graphqlSync({
    schema: schema(),
    source: request.query,
    rootValue,
    variableValues: (request.variables ?? {}) as Record<string, unknown>
  })
  const errors = result.errors?.map(e => ({
    message: e.message,
    ...(e.originalError instanceof GitHubGraphQLError ? { type: e.originalError.type } : {}),
    ...(e.path ? { path: e.path } : {}),
    ...(e.locations ? { locations: e.locations } : {})
  }))
  return {
    status: 200,
    body: { ...(result.data ? { data: result.data } : {}), ...(errors ? { errors } : {}) }
  }
}
