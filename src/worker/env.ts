import type { WorkerOptions } from './options.js'

export interface WorkerPaths {
  configDir: string
  home: string
  tmp: string
}

/** Variables a worker may inherit from the host, by name; everything else is left behind. */
export const PASS_THROUGH = ['PATH', 'LANG', 'LC_ALL', 'LC_CTYPE', 'TZ', 'TERM'] as const

/** Anthropic's own endpoint: where `auth-header: auto` means x-api-key. */
function isAnthropic(baseUrl: string | undefined): boolean {
  return !baseUrl || new URL(baseUrl).hostname === 'api.anthropic.com'
}

export function keyVariable(
  config: Pick<WorkerOptions, 'authHeader' | 'baseUrl'>
): 'ANTHROPIC_API_KEY' | 'ANTHROPIC_AUTH_TOKEN' {
  const header =
    config.authHeader === 'auto'
      ? isAnthropic(config.baseUrl)
        ? 'x-api-key'
        : 'bearer'
      : config.authHeader
  return header === 'bearer' ? 'ANTHROPIC_AUTH_TOKEN' : 'ANTHROPIC_API_KEY'
}

export interface WorkerEnvInput {
  config: WorkerOptions
  /** The worker's own key: a model gateway token, never the endpoint's real key. */
  apiKey: string
  /** Where the worker sends requests (the model gateway), instead of config.baseUrl. */
  baseUrl?: string
  model?: string
  paths: WorkerPaths
  host: NodeJS.ProcessEnv
  isRoot: boolean
}

/**
 * The worker's whole environment, built from an allowlist: the model's endpoint, key and model
 * mapping, PATH and locale, its own HOME/TMPDIR/config dir. Never the GitHub token, runner tokens
 * or other inputs — a worker runs with bypassPermissions and can print anything it can see.
 */
export function workerEnv({
  config,
  apiKey,
  baseUrl,
  model,
  paths,
  host,
  isRoot
}: WorkerEnvInput): Record<string, string> {
  const env: Record<string, string> = {}
  for (const name of PASS_THROUGH) {
    const value = host[name]
    if (value) env[name] = value
  }
  env.HOME = paths.home
  env.TMPDIR = paths.tmp
  env.CLAUDE_CONFIG_DIR = paths.configDir
  env.CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC = '1'
  env.DISABLE_AUTOUPDATER = '1'
  env.DISABLE_ERROR_REPORTING = '1'
  env.DISABLE_TELEMETRY = '1'
  // The model gateway retries refusals and overload itself; what it passes on, the CLI may retry a
  // little, and the action's worker retry (worker/retry.ts) is the last resort. The CLI's own
  // ~3-minute loop would only hide a failure, so keep it short.
  env.CLAUDE_CODE_MAX_RETRIES = '2'
  env.GIT_TERMINAL_PROMPT = '0'
  const url = baseUrl ?? config.baseUrl
  if (url) env.ANTHROPIC_BASE_URL = url
  env[keyVariable(config)] = apiKey
  if (model) {
    env.ANTHROPIC_MODEL = model
    env.ANTHROPIC_DEFAULT_OPUS_MODEL = model
    env.ANTHROPIC_DEFAULT_SONNET_MODEL = model
  }
  if (config.smallModel) env.ANTHROPIC_DEFAULT_HAIKU_MODEL = config.smallModel
  // Claude Code refuses bypassPermissions as root unless told it is sandboxed.
  if (isRoot) env.IS_SANDBOX = '1'
  return env
}
