import type http from 'node:http'

/**
 * The request headers the gateway passes upstream: what the Messages API reads, and the CLI's
 * own identification. Everything else a worker sends (cookies, its own x-* headers, routing
 * headers of LLM gateways, and the CLI's SDK telemetry: x-stainless-*, x-claude-code-session-id,
 * anthropic-dangerous-direct-browser-access) is dropped and named in the request log.
 */
const PASSED = new Set(['content-type', 'accept', 'anthropic-version', 'user-agent', 'x-app'])

/** Dropped without counting: hop-by-hop headers, the worker's token (the key replaces it), and the
 * body's length and encoding, which the gateway sets itself. */
const EXPECTED = new Set([
  'host',
  'connection',
  'keep-alive',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'expect',
  'content-length',
  'x-api-key',
  'authorization',
  'accept-encoding'
])

/**
 * The anthropic-beta values the pinned CLI (2.1.332) sends, measured against the scripted model
 * server (docs/gateway.md lists them). Any other beta (e.g. context-1m, billed at long-context
 * prices no budget knows) is dropped unless the `allowed-betas` input names it.
 */
export const CLI_BETAS = [
  'claude-code-20250219',
  'interleaved-thinking-2025-05-14',
  'context-management-2025-06-27',
  'per-turn-control-2026-07-01',
  'mid-conversation-tool-changes-2026-07-01',
  'thinking-token-count-2026-05-13',
  'advanced-tool-use-2025-11-20',
  'effort-2025-11-24',
  'thinking-display-updates-2026-08-18'
]

export interface Filtered {
  headers: Record<string, string>
  /** Each header (or beta, as `anthropic-beta: <name>`) the gateway did not pass. */
  dropped: string[]
}

function betas(value: string | string[], allowed: ReadonlySet<string>, dropped: string[]): string {
  const all = (Array.isArray(value) ? value : [value]).flatMap(v => v.split(','))
  const kept: string[] = []
  for (const beta of all.map(b => b.trim()).filter(Boolean)) {
    if (allowed.has(beta)) kept.push(beta)
    else dropped.push(`anthropic-beta: ${beta}`)
  }
  return kept.join(',')
}

/** The worker's headers as they go upstream: the allowlist, the betas filtered, the real key. */
export function upstreamHeaders(
  incoming: http.IncomingHttpHeaders,
  auth: Record<string, string>,
  allowedBetas: ReadonlySet<string>
): Filtered {
  const headers: Record<string, string> = {}
  const dropped: string[] = []
  for (const [name, value] of Object.entries(incoming)) {
    if (value === undefined || EXPECTED.has(name)) continue
    if (name === 'anthropic-beta') {
      const kept = betas(value, allowedBetas, dropped)
      if (kept) headers[name] = kept
    } else if (PASSED.has(name)) headers[name] = Array.isArray(value) ? value.join(', ') : value
    else dropped.push(name)
  }
  return { headers: { ...headers, ...auth, 'accept-encoding': 'identity' }, dropped }
}
