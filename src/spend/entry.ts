/**
 * The spend ledger's words: one entry per task that ran, as one JSON line of the ledger file on
 * its own branch (docs/budgets.md). The file comes from the repository, where anyone with push
 * access can change it: every line is parsed with the schema, and a line that is not an entry
 * ends the run with a sentence naming the ledger (never a crash, never caps silently lifted).
 */
import { z } from 'zod'

/** How the work was started: the per-user cap counts comment, label and review. */
export const TRIGGERS = [
  'dispatch',
  'comment',
  'label',
  'review',
  'schedule',
  'push',
  'other'
] as const
export type Trigger = (typeof TRIGGERS)[number]

/** Triggers started by a person, each counted against that person's daily cap. */
export const PERSONAL: readonly Trigger[] = ['comment', 'label', 'review', 'schedule']

const login = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9-]{0,38}(\[bot\])?$/, 'not a GitHub login')

export const entrySchema = z.strictObject({
  /** The format's version. */
  v: z.literal(1),
  /** When the task's cost was recorded (UTC, ISO 8601): its day and month. */
  at: z.iso.datetime({ offset: false }),
  /** The workflow run (GITHUB_RUN_ID) and job shard that ran it. */
  run: z.string().max(64),
  task: z.string().regex(/^[a-z0-9][a-z0-9._-]{0,62}$/, 'not a task id'),
  status: z.string().regex(/^[a-z-]{1,32}$/, 'not a status'),
  /** USD at the run's prices. */
  cost: z.number().nonnegative().max(1_000_000),
  tokens: z.number().int().nonnegative(),
  model: z.string().max(200).optional(),
  trigger: z.enum(TRIGGERS),
  /** Who started it (comment, label, review), for max-user-daily-cost-usd. */
  user: login.optional(),
  /** The PR it opened or updated. */
  pr: z.number().int().positive().optional()
})

export type Entry = z.infer<typeof entrySchema>

export const LEDGER_FILE = 'ledger.jsonl'

/** A ledger that is not what the action writes: the run stops with this sentence. */
export class LedgerError extends Error {
  override name = 'LedgerError'
}

/** Where the ledger is, in the words of every sentence about it. */
export const ledgerName = (branch: string) =>
  `the spend ledger (${LEDGER_FILE} on branch ${branch})`

/**
 * The ledger's entries, or a LedgerError naming the ledger, the line and what is wrong with it.
 * Blank lines are allowed (an editor's trailing newline); nothing else is skipped.
 */
export function parseLedger(text: string, branch: string): Entry[] {
  const entries: Entry[] = []
  const lines = text.split('\n')
  for (const [i, line] of lines.entries()) {
    if (line.trim() === '') continue
    const where = `${ledgerName(branch)} line ${i + 1}`
    let json: unknown
    try {
      json = JSON.parse(line)
    } catch {
      throw new LedgerError(
        `${where} is not JSON: the ledger was garbled or edited by hand, so spend caps cannot be checked (see docs/budgets.md to repair or reset it)`
      )
    }
    const parsed = entrySchema.safeParse(json)
    if (!parsed.success) {
      const issue = parsed.error.issues[0]
      const field = issue?.path.join('.') || 'entry'
      throw new LedgerError(
        `${where} is not a ledger entry (${field}: ${issue?.message ?? 'invalid'}): the ledger was tampered with or edited by hand, so spend caps cannot be checked (see docs/budgets.md to repair or reset it)`
      )
    }
    entries.push(parsed.data)
  }
  return entries
}

/** Entries as the ledger's lines, each ending in a newline. */
export function ledgerLines(entries: readonly Entry[]): string {
  return entries.map(e => `${JSON.stringify(entrySchema.parse(e))}\n`).join('')
}
