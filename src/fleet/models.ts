import type { Task } from '../domain.js'
import { InputError } from '../errors.js'
import { priceFor } from '../prices.js'
import type { FleetConfig } from './options.js'

/**
 * The model the pinned CLI (2.1.332) asks for when the run names none (measured against the
 * scripted model server: `claude-opus-5-5`, max_tokens 128,000), and the names of its haiku slot
 * (not seen in a measured run with non-essential traffic off; the names the CLI carries).
 */
export const CLI_MAIN_MODEL = 'claude-opus-5-5'
export const CLI_HAIKU_MODELS = [
  'claude-haiku-4-5',
  'claude-haiku-4-5-20251001',
  'claude-haiku-5-5'
]

/** The models the run names: `model` (the planner's too), `small-model`, each task's `model`. */
export function namedModels(
  config: Pick<FleetConfig, 'model' | 'smallModel'>,
  tasks: readonly Pick<Task, 'model'>[]
): string[] {
  const named = [config.model, config.smallModel, ...tasks.map(t => t.model)]
  return [...new Set(named.filter((m): m is string => Boolean(m)))].sort()
}

/**
 * The models this run may use, and so the only ones the gateway forwards: the ones it names,
 * and the CLI's own defaults for a slot it leaves unnamed.
 */
export function runModels(
  config: Pick<FleetConfig, 'model' | 'smallModel'>,
  tasks: readonly Pick<Task, 'model'>[]
): string[] {
  const models = new Set(namedModels(config, tasks))
  if (!config.model && tasks.some(t => !t.model)) models.add(CLI_MAIN_MODEL)
  if (!config.model && tasks.length === 0) models.add(CLI_MAIN_MODEL)
  if (!config.smallModel) for (const m of CLI_HAIKU_MODELS) models.add(m)
  return [...models].sort()
}

/**
 * Cost budgets price every request at its model: each model the run names needs a price. (A CLI
 * default it does not name is refused at its first request if it has none.)
 */
export function checkPrices(
  config: Pick<FleetConfig, 'prices' | 'budgets'>,
  models: readonly string[]
): void {
  const { budgets, prices } = config
  if (!prices || (budgets.taskCostUsd === undefined && budgets.runCostUsd === undefined)) return
  const unpriced = models.filter(m => !priceFor(prices, m))
  if (unpriced.length > 0)
    throw new InputError(
      'prices',
      `a cost budget prices every request at its model, and ${unpriced.map(m => `'${m}'`).join(', ')} has no price: add it to prices (e.g. '${unpriced[0] ?? ''}: {input: 3, output: 15}'), or give prices a default entry for every model (default: {input: 3, output: 15})`
    )
}
