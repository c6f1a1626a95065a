/** Spending caps from the inputs; each is optional. Costs need prices. */
/** What a task or the run has spent (or holds), in tokens and USD. */
export interface Spend {
  tokens: number
  cost: number
}

export const NO_SPEND: Spend = { tokens: 0, cost: 0 }

export const addSpend = (a: Spend, b: Spend): Spend => ({
  tokens: a.tokens + b.tokens,
  cost: a.cost + b.cost
})

export const subSpend = (a: Spend, b: Spend): Spend => ({
  tokens: Math.max(0, a.tokens - b.tokens),
  cost: Math.max(0, a.cost - b.cost)
})

export interface Budgets {
  taskTokens?: number
  runTokens?: number
  taskCostUsd?: number
  runCostUsd?: number
}

const tokens = (n: number) => n.toLocaleString('en-US')
const dollars = (n: number) => `$${n < 1 ? n.toFixed(4) : n.toFixed(2)}`

type Check = {
  input: string
  scope: 'task' | 'run'
  limit: number | undefined
  kind: 'token' | 'cost'
}

function checks(budgets: Budgets, priced: boolean): Check[] {
  return [
    { input: 'budgets: task-tokens', scope: 'task', limit: budgets.taskTokens, kind: 'token' },
    { input: 'budgets: run-tokens', scope: 'run', limit: budgets.runTokens, kind: 'token' },
    {
      input: 'budgets: task-cost-usd',
      scope: 'task',
      limit: priced ? budgets.taskCostUsd : undefined,
      kind: 'cost'
    },
    {
      input: 'budgets: run-cost-usd',
      scope: 'run',
      limit: priced ? budgets.runCostUsd : undefined,
      kind: 'cost'
    }
  ]
}

const amountOf = (c: Check, s: Spend) => (c.kind === 'token' ? s.tokens : s.cost)

export type Breach = { input: string; scope: 'task' | 'run'; message: string }

/**
 * Whether a new request may start: it may not once any budget is spent (spent >= limit). The
 * first spent budget is named, in the words the outcome and the worker both see. Costs are each
 * request's usage at its own model's prices, summed as the requests settled.
 */
export function breach(
  budgets: Budgets,
  priced: boolean,
  spent: { task: Spend; run: Spend }
): Breach | undefined {
  for (const c of checks(budgets, priced)) {
    if (c.limit === undefined) continue
    const amount = amountOf(c, spent[c.scope])
    if (amount < c.limit) continue
    const message =
      c.kind === 'token'
        ? `token budget spent: ${tokens(amount)} of ${tokens(c.limit)} tokens (${c.input})`
        : `cost budget spent: ${dollars(amount)} of ${dollars(c.limit)} (${c.input})`
    return { input: c.input, scope: c.scope, message }
  }
  return undefined
}

/** One line per budget given: what was spent against it (per task: the most any task spent). */
export function budgetLines(
  budgets: Budgets,
  priced: boolean,
  run: Spend,
  tasks: Spend[]
): string[] {
  const lines: string[] = []
  for (const c of checks(budgets, priced)) {
    if (c.limit === undefined) continue
    const amounts = c.scope === 'run' ? [amountOf(c, run)] : tasks.map(t => amountOf(c, t))
    const most = Math.max(0, ...amounts)
    const show = c.kind === 'token' ? tokens : dollars
    const of =
      c.kind === 'token'
        ? `${show(most)} of ${show(c.limit)} tokens`
        : `${show(most)} of ${show(c.limit)}`
    lines.push(`${c.input}: ${of}${c.scope === 'task' ? ' (the most any task spent)' : ''}`)
  }
  return lines
}
