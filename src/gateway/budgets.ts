import { costOf, type Price } from '../report/cost.js'
import type { Usage } from '../domain.js'
import { totalTokens } from './usage.js'

/** Spending caps from the inputs; each is optional. Costs need prices. */
export interface Budgets {
  taskTokens?: number
  runTokens?: number
  taskCostUsd?: number
  runCostUsd?: number
}

export interface Spent {
  task: Usage
  run: Usage
}

const tokens = (n: number) => n.toLocaleString('en-US')
const dollars = (n: number) => `$${n < 1 ? n.toFixed(4) : n.toFixed(2)}`

type Check = {
  input: string
  scope: 'task' | 'run'
  limit: number | undefined
  spent: (u: Usage) => number
  kind: 'token' | 'cost'
}

function checks(budgets: Budgets, price: Price | undefined): Check[] {
  const cost = (u: Usage) => (price ? costOf(u, price) : 0)
  return [
    {
      input: 'max-task-tokens',
      scope: 'task',
      limit: budgets.taskTokens,
      spent: totalTokens,
      kind: 'token'
    },
    {
      input: 'max-run-tokens',
      scope: 'run',
      limit: budgets.runTokens,
      spent: totalTokens,
      kind: 'token'
    },
    {
      input: 'max-task-cost-usd',
      scope: 'task',
      limit: price && budgets.taskCostUsd,
      spent: cost,
      kind: 'cost'
    },
    {
      input: 'max-run-cost-usd',
      scope: 'run',
      limit: price && budgets.runCostUsd,
      spent: cost,
      kind: 'cost'
    }
  ]
}

export type Breach = { input: string; scope: 'task' | 'run'; message: string }

/**
 * Whether a new request may start: it may not once any budget is spent (spent >= limit). The
 * first spent budget is named, in the words the outcome and the worker both see.
 */
export function breach(
  budgets: Budgets,
  price: Price | undefined,
  spent: Spent
): Breach | undefined {
  for (const c of checks(budgets, price)) {
    if (c.limit === undefined) continue
    const amount = c.spent(spent[c.scope])
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
  price: Price | undefined,
  run: Usage,
  tasks: Usage[]
): string[] {
  const lines: string[] = []
  for (const c of checks(budgets, price)) {
    if (c.limit === undefined) continue
    const amounts = c.scope === 'run' ? [c.spent(run)] : tasks.map(c.spent)
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
