/**
 * The hand-over between a land: false job and the job that reads its outcomes (mode: land, mode:
 * report) is data from a job that may have been taken over: one schema, checked before anything
 * of it is used. Counts are counts, statuses are the action's own words, ids are task ids and
 * branches ref names; a file that does not fit is refused whole, named in one sentence.
 */
import { z } from 'zod'
import { type Outcome, STATUSES } from '../domain.js'
import type { QueueLabels } from '../github/queue.js'
import { idProblem } from '../tasks/ids.js'

/** One shard's outcomes, as the report job reads them back. */
export interface ShardFile {
  shard: number
  outcomes: Outcome[]
  queue?: QueueLabels
}

const count = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER)
const positive = z.number().int().positive().max(Number.MAX_SAFE_INTEGER)
const ms = z.number().finite().nonnegative()
// What validateBranchPrefix allows, and a task id after it.
const branch = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._/-]{0,254}$/, 'a branch name of letters, digits, . _ - /')

const usage = z.object({
  input_tokens: count,
  output_tokens: count,
  cache_read_input_tokens: count,
  cache_creation_input_tokens: count,
  cache_creation: z
    .object({ ephemeral_5m_input_tokens: count, ephemeral_1h_input_tokens: count })
    .optional(),
  server_tool_use: z.object({ web_search_requests: count }).optional()
})

const verify = z.object({
  command: z.string(),
  exitCode: z.number().int().nullable(),
  timedOut: z.boolean(),
  tail: z.string(),
  signal: z
    .string()
    .regex(/^[A-Z0-9]{1,16}$/)
    .optional(),
  cancelled: z.string().optional()
})

const answer = z.object({
  kind: z.enum(['review', 'review-comment', 'checks']),
  from: z.string(),
  threads: z.array(positive),
  key: z.string(),
  turn: z.object({ n: count, max: count }).optional()
})

const source = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('input') }),
  z.object({ kind: z.literal('issue'), issue: positive, item: positive.optional() }),
  z.object({
    kind: z.literal('follow-up'),
    pr: positive,
    issue: positive.optional(),
    fixUps: count.optional(),
    answer: answer.optional()
  })
])

const sealed = z.object({
  bundle: z.string(),
  start: z.string(),
  pr: z.boolean(),
  prompt: z.string()
})

const outcome = z.object({
  id: z.string().refine(id => !idProblem(id), 'a task id the fleet makes'),
  title: z.string(),
  status: z.enum(STATUSES),
  source,
  branch: branch.optional(),
  prNumber: positive.optional(),
  prUrl: z.string().optional(),
  turns: count,
  durationMs: ms,
  usage,
  model: z.string().optional(),
  attempts: count,
  error: z.string().optional(),
  verify: verify.optional(),
  verifyBeforeFixUp: verify.optional(),
  preserved: z.string().optional(),
  finalMessage: z.string().optional(),
  costUsd: z.number().finite().nonnegative().optional(),
  startedAt: ms.optional(),
  workerStartedAt: ms.optional(),
  endedAt: ms.optional(),
  sealed: sealed.optional()
})

const label = z.string().min(1).max(100)
const shardFile = z.object({
  shard: count,
  outcomes: z.array(outcome),
  queue: z.object({ queued: label, inProgress: label, done: label, failed: label }).optional()
})

/** Where in the file a problem is, as a person would look for it: `outcomes[1].turns`. */
function where(path: PropertyKey[]): string {
  return path.reduce<string>(
    (at, key) =>
      typeof key === 'number' ? `${at}[${key}]` : at ? `${at}.${String(key)}` : String(key),
    ''
  )
}

/**
 * One shard file's text, checked: the file as the action wrote it, or an Error whose message
 * names the file and what in it does not fit. Unknown keys are dropped, never carried on.
 */
export function parseShardFile(name: string, text: string): ShardFile {
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (error) {
    throw new Error(
      `the hand-over file '${name}' is not JSON (${error instanceof Error ? error.message : String(error)}): nothing of it is read`,
      { cause: error }
    )
  }
  const parsed = shardFile.safeParse(json)
  if (!parsed.success) {
    const problems = parsed.error.issues
      .slice(0, 3)
      .map(i => `${where(i.path) || 'the file'}: ${i.message}`)
    throw new Error(
      `the hand-over file '${name}' is not one a land: false job of this action writes (${problems.join('; ')}): nothing of it is read`
    )
  }
  return parsed.data
}
