import { type FullPrice, fullPrice, type Price } from '../prices.js'
import type { Budgets, Spend } from './budgets.js'

/** What a task or the run has spent (settled) or holds for requests in flight (reserved). */
/** The worst a request can cost, read from its body before it is forwarded. */
export interface Ask {
  /** An upper bound of its input tokens: the body's size in bytes (a token is at least a byte). */
  inputBound: number
  /** The request's max_tokens. */
  maxTokens: number
  /** Web searches it may make (its web search tool's max_uses). */
  searches: number
  price?: Price
}

/** Where each budget stands for the request's task and for the run: settled plus reserved. */
export interface Standing {
  task: Spend
  run: Spend
}

export type Reservation =
  | { ok: true; maxTokens: number; hold: Spend }
  | { ok: false; input: string; scope: 'task' | 'run'; message: string }

const fmt = (n: number) => n.toLocaleString('en-US')
const dollars = (n: number) => `$${n < 1 ? n.toFixed(4) : n.toFixed(2)}`

/** USD per input token at its dearest (a 1-hour cache write), so any mix of input is covered. */
const inputRate = (p: FullPrice) =>
  Math.max(p.input, p.cacheWrite5m, p.cacheWrite1h, p.cacheRead) / 1_000_000

function holdOf(ask: Ask, maxTokens: number): Spend {
  const tokens = ask.inputBound + maxTokens
  if (!ask.price) return { tokens, cost: 0 }
  const p = fullPrice(ask.price)
  const cost =
    ask.inputBound * inputRate(p) + (maxTokens * p.output) / 1_000_000 + ask.searches * p.webSearch
  return { tokens, cost }
}

interface Room {
  input: string
  scope: 'task' | 'run'
  /** The most output tokens this budget leaves the request, after its input's worst case. */
  output: number
  left: string
}

/** How many output tokens each budget given leaves this request room for. */
function rooms(budgets: Budgets, ask: Ask, standing: Standing): Room[] {
  const out: Room[] = []
  const token = (input: string, scope: 'task' | 'run', limit: number | undefined) => {
    if (limit === undefined) return
    const left = limit - standing[scope].tokens
    out.push({
      input,
      scope,
      output: left - ask.inputBound,
      left: `${fmt(Math.max(0, left))} of ${fmt(limit)} tokens`
    })
  }
  token('budgets: task-tokens', 'task', budgets.taskTokens)
  token('budgets: run-tokens', 'run', budgets.runTokens)
  const cost = (input: string, scope: 'task' | 'run', limit: number | undefined) => {
    if (limit === undefined || !ask.price) return
    const p = fullPrice(ask.price)
    const left = limit - standing[scope].cost
    const fixed = ask.inputBound * inputRate(p) + ask.searches * p.webSearch
    const output = p.output > 0 ? Math.floor(((left - fixed) * 1_000_000) / p.output) : Infinity
    out.push({ input, scope, output, left: `${dollars(Math.max(0, left))} of ${dollars(limit)}` })
  }
  cost('budgets: task-cost-usd', 'task', budgets.taskCostUsd)
  cost('budgets: run-cost-usd', 'run', budgets.runCostUsd)
  return out
}

/**
 * Reserves a request's worst case against every budget before it is forwarded: refused when even
 * one output token cannot fit beside its input's upper bound, else its max_tokens lowered to what
 * the tightest budget leaves. The hold is settled to the real usage when the answer ends, so
 * requests in flight together can never take a task or the run past a budget.
 */
export function reserve(budgets: Budgets, ask: Ask, standing: Standing): Reservation {
  let maxTokens = ask.maxTokens
  for (const room of rooms(budgets, ask, standing)) {
    if (room.output < 1) {
      const worst = holdOf(ask, 1)
      const need = room.input.includes('cost') ? dollars(worst.cost) : `${fmt(worst.tokens)} tokens`
      return {
        ok: false,
        input: room.input,
        scope: room.scope,
        message: `${room.input.includes('cost') ? 'cost' : 'token'} budget too low for this request: it may use ${need} (its input at most ${fmt(ask.inputBound)} tokens), and ${room.left} are left (${room.input})`
      }
    }
    maxTokens = Math.min(maxTokens, Math.floor(room.output))
  }
  return { ok: true, maxTokens, hold: holdOf(ask, maxTokens) }
}
