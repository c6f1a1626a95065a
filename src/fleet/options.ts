import type { Budgets } from '../gateway/budgets.js'
import type { Price, PriceBook } from '../prices.js'
import type { WorkerOptions } from '../worker/options.js'

/**
 * What fleet/ reads of the run's options: the workers' slice, and the scheduler's, the gateway's,
 * setup's, verify's and landing's. Declared here so fleet/ needs nothing from config.ts
 * (docs/architecture.md); the parsed Config carries all of it, and the compiler checks it fits.
 */
export interface FleetConfig extends WorkerOptions {
  /** `auto`: the scheduler decides (fleet/scheduler.ts); a number: a fixed pool. */
  maxParallel: number | 'auto'
  /** Upstream requests in flight, fleet-wide (the model gateway's limiter). */
  modelConcurrency: number | 'auto'
  /** Requests in flight upstream per worker (max-requests-per-worker). */
  maxRequestsPerWorker?: number
  budgets: Budgets
  price?: Price
  /** Prices by model (the `prices` input), with price-input/price-output for the rest. */
  prices?: PriceBook
  recordBodies: boolean
  /** anthropic-beta values the gateway passes besides the pinned CLI's. */
  allowedBetas: string[]
  setup?: string
  setupTimeoutMs: number
  verify?: string
  verifyTimeoutMs: number
  verifyFixUp: boolean
  /** undefined: the repository's default branch. */
  baseBranch?: string
  draft: boolean
  labels: string[]
  reviewers: string[]
  assignees: string[]
}
