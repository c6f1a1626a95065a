import type { ContainerConfig } from '../cage/container.js'

/** Where a run's workers run (the `isolation` input). */
export type IsolationName = 'sandbox' | 'container' | 'process'

/**
 * What worker/ reads of the run's options: its own slice, declared here so worker/ needs nothing
 * from config.ts (docs/architecture.md). The parsed Config carries all of it, so callers pass it
 * as it is; the compiler checks that it still fits.
 */
export interface WorkerOptions {
  /** The model endpoint; undefined is Anthropic's. */
  baseUrl?: string
  authHeader: 'auto' | 'bearer' | 'x-api-key'
  model?: string
  smallModel?: string
  permissionMode: string
  maxTurns: number
  /** The built-in tools the worker gets; undefined is the CLI's default set. */
  tools?: string[]
  allowedTools: string[]
  disallowedTools: string[]
  appendSystemPrompt?: string
  claudeArgs: string[]
  effort: string
  timeoutMs: number
  maxAttempts: number
  retryDelayMs: number
  commitAuthor: { name: string; email: string }
  isolation: IsolationName
  container: ContainerConfig
}
