/**
 * The spend caps held over every run (max-daily-cost-usd, max-monthly-cost-usd,
 * max-user-daily-cost-usd): what the ledger says was spent, what a task may cost, and whether it
 * may start. Pure: the ledger's entries and the clock come in as data.
 */
import type { Entry } from './entry.js'

export interface Caps {
  daily?: number
  monthly?: number
  userDaily?: number
}

export const CAP_INPUTS = {
  daily: 'budgets: daily-cost-usd',
  monthly: 'budgets: monthly-cost-usd',
  userDaily: 'budgets: user-daily-cost-usd'
} as const

const CAP_WORDS = {
  daily: 'The daily cap',
  monthly: 'The monthly cap',
  userDaily: "The person's daily cap"
} as const

export const hasCaps = (caps: Caps) =>
  caps.daily !== undefined || caps.monthly !== undefined || caps.userDaily !== undefined

/** The UTC day (YYYY-MM-DD) and month (YYYY-MM) of a time. */
export const dayOf = (at: string | number) => new Date(at).toISOString().slice(0, 10)
export const monthOf = (at: string | number) => new Date(at).toISOString().slice(0, 7)

export const usd = (n: number) => `$${n.toFixed(n !== 0 && Math.abs(n) < 1 ? 4 : 2)}`

/** What was spent today, this month, and today by each person, in USD (UTC). */
export interface Spent {
  day: number
  month: number
  users: Map<string, number>
}

export function spentAt(entries: readonly Entry[], now: number): Spent {
  const [day, month] = [dayOf(now), monthOf(now)]
  const spent: Spent = { day: 0, month: 0, users: new Map() }
  for (const e of entries) {
    if (monthOf(e.at) !== month) continue
    spent.month += e.cost
    if (dayOf(e.at) !== day) continue
    spent.day += e.cost
    if (e.user) spent.users.set(e.user, (spent.users.get(e.user) ?? 0) + e.cost)
  }
  return spent
}

/** Recent tasks whose median stands in for a task's cost when it has no cap of its own. */
export const RECENT = 20

/** What a task may cost: its max-task-cost-usd, else the median of recent tasks that spent. */
export function estimate(
  taskCap: number | undefined,
  entries: readonly Entry[]
): { cost: number; basis: string } {
  if (taskCap !== undefined) return { cost: taskCap, basis: 'budgets: task-cost-usd' }
  const recent = entries
    .filter(e => e.tokens > 0)
    .slice(-RECENT)
    .map(e => e.cost)
    .sort((a, b) => a - b)
  if (recent.length === 0) return { cost: 0, basis: 'no recent task to go by' }
  const mid = Math.floor(recent.length / 2)
  const median =
    recent.length % 2 ? (recent[mid] ?? 0) : ((recent[mid - 1] ?? 0) + (recent[mid] ?? 0)) / 2
  return { cost: median, basis: `the median of the last ${recent.length} tasks` }
}

export type Decision = { kind: 'start' } | { kind: 'defer'; input: string; reason: string }

/** A cap crossed by spending `cost` on top of `spent`: reached already, or past it after. */
const crosses = (spent: number, cost: number, cap: number) => spent >= cap || spent + cost > cap

/**
 * Whether a task may start: each cap given is checked against what is spent plus what the task
 * may cost. The first cap it would cross is named, with the numbers, in the words the live
 * comment and the summary show.
 */
export function decide(
  caps: Caps,
  spent: { day: number; month: number; user?: number },
  cost: { cost: number; basis: string },
  user?: string
): Decision {
  const checks: Array<{ key: keyof Caps; amount: number | undefined; what: string }> = [
    { key: 'daily', amount: spent.day, what: 'spent today (UTC)' },
    { key: 'monthly', amount: spent.month, what: 'spent this month (UTC)' },
    {
      key: 'userDaily',
      amount: user === undefined ? undefined : (spent.user ?? 0),
      what: `spent today (UTC) on work ${user ?? ''} started`
    }
  ]
  for (const c of checks) {
    const cap = caps[c.key]
    if (cap === undefined || c.amount === undefined || !crosses(c.amount, cost.cost, cap)) continue
    const input = CAP_INPUTS[c.key]
    return {
      kind: 'defer',
      input,
      reason: `${CAP_WORDS[c.key]} (${input}) is ${usd(cap)} and ${usd(c.amount)} is ${c.what}; this task may cost ${usd(cost.cost)} (${cost.basis}), so it was deferred, not started, and stays queued for a later run`
    }
  }
  return { kind: 'start' }
}

export interface Candidate {
  id: string
  /** Who started it, when a person did (comment, label, review). */
  user?: string
}

/**
 * Which tasks start, in order: each is checked against the ledger's spend plus what the tasks
 * admitted before it may cost, so a run cannot cross a cap with its own later tasks either.
 */
export function admit(
  candidates: readonly Candidate[],
  caps: Caps,
  spent: Spent,
  cost: { cost: number; basis: string }
): Map<string, Decision> {
  const held = { day: spent.day, month: spent.month, users: new Map(spent.users) }
  const decisions = new Map<string, Decision>()
  for (const c of candidates) {
    const user = c.user === undefined ? undefined : (held.users.get(c.user) ?? 0)
    const decision = decide(caps, { day: held.day, month: held.month, user }, cost, c.user)
    decisions.set(c.id, decision)
    if (decision.kind === 'defer') continue
    held.day += cost.cost
    held.month += cost.cost
    if (c.user !== undefined) held.users.set(c.user, (user ?? 0) + cost.cost)
  }
  return decisions
}

/** The summary's lines: today's and the month's spend, against each cap given. */
export function spendLines(caps: Caps, spent: Spent, now: number, users: string[] = []): string[] {
  const against = (amount: number, cap: number | undefined, input: string) =>
    cap === undefined ? usd(amount) : `${usd(amount)} of ${usd(cap)} (${input})`
  const lines = [
    `today (${dayOf(now)} UTC): ${against(spent.day, caps.daily, CAP_INPUTS.daily)}`,
    `this month (${monthOf(now)}): ${against(spent.month, caps.monthly, CAP_INPUTS.monthly)}`
  ]
  if (caps.userDaily !== undefined)
    for (const user of [...new Set(users)].sort())
      lines.push(
        `${user} today: ${against(spent.users.get(user) ?? 0, caps.userDaily, CAP_INPUTS.userDaily)}`
      )
  return lines
}
