/**
 * `fleet-worker doctor`: offline checks (claude present and its version, inputs coherent, a key
 * present) and one live request to the model endpoint, each with a verdict a person can act on.
 */
import os from 'node:os'
import path from 'node:path'
import { type Config, readConfig } from './config.js'
import { startGateway } from './gateway/gateway.js'
import { inputEnvName } from './inputs.js'
import { keyVariable } from './worker/env.js'
import { CLAUDE_CODE_VERSION, findOnPath, resolveClaude } from './worker/install.js'

export interface Check {
  name: string
  ok: boolean
  detail: string
}

/** What one tiny request to the endpoint says about the setup. */
export function endpointVerdict(status: number | undefined, error?: string): Check {
  const name = 'model endpoint'
  if (error)
    return { name, ok: false, detail: `unreachable: ${error}; check --base-url and the network` }
  if (status === undefined) return { name, ok: false, detail: 'no answer' }
  if (status >= 200 && status < 300) return { name, ok: true, detail: `answered ${status}` }
  if (status === 401 || status === 403)
    return {
      name,
      ok: false,
      detail: `rejected the key (${status}); check ANTHROPIC_API_KEY / ANTHROPIC_AUTH_TOKEN and --auth-header`
    }
  if (status === 404)
    return {
      name,
      ok: false,
      detail: 'answered 404: wrong --base-url (give the root, without /v1) or unknown --model'
    }
  if (status === 429 || status === 529)
    return {
      name,
      ok: true,
      detail: `reachable but busy (${status}); workers will back off and retry`
    }
  return { name, ok: false, detail: `answered ${status}` }
}

/**
 * One tiny request, sent the way workers send theirs: through the model gateway, which puts the
 * key on it. So a pass here also proves the gateway's key swap and headers for this endpoint.
 */
async function probe(config: Config, key: string): Promise<Check> {
  const gateway = await startGateway({
    upstream: config.baseUrl ?? 'https://api.anthropic.com',
    key,
    authHeader: keyVariable(config) === 'ANTHROPIC_AUTH_TOKEN' ? 'bearer' : 'x-api-key',
    concurrency: 1,
    maxAttempts: 1
  })
  try {
    const pass = gateway.register('doctor')
    const response = await fetch(`${gateway.url}/v1/messages`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'anthropic-version': '2023-06-01',
        'x-api-key': pass.token
      },
      body: JSON.stringify({
        model: config.model ?? 'claude-sonnet-4-5',
        max_tokens: 1,
        messages: [{ role: 'user', content: 'ping' }]
      }),
      signal: AbortSignal.timeout(15_000)
    })
    const text = await response.text()
    // The gateway's own 502 when the endpoint could not be reached names the socket error.
    const unreachable = /could not reach the model endpoint: ([^"]+)/.exec(text)?.[1]
    return response.status === 502 && unreachable
      ? endpointVerdict(undefined, unreachable)
      : endpointVerdict(response.status)
  } catch (error) {
    return endpointVerdict(undefined, error instanceof Error ? error.message : String(error))
  } finally {
    await gateway.close()
  }
}

export async function doctor(env: NodeJS.ProcessEnv, opts: { offline: boolean }): Promise<Check[]> {
  const checks: Check[] = []
  let config: Config | undefined
  try {
    const read = readConfig(env)
    config = read.config
    const old = read.deprecations.length ? ` (${read.deprecations.join(' ')})` : ''
    checks.push({ name: 'inputs', ok: true, detail: `coherent${old}` })
  } catch (error) {
    checks.push({
      name: 'inputs',
      ok: false,
      detail: error instanceof Error ? error.message : String(error)
    })
  }
  const onPath = config?.claudePath ?? (await findOnPath('claude', env.PATH))
  if (onPath) {
    try {
      const claude = await resolveClaude({
        claudePath: onPath,
        pathVar: env.PATH,
        host: env,
        installDir: path.join(os.tmpdir(), 'fleet-claude'),
        log: () => undefined
      })
      const pinned = claude.version === CLAUDE_CODE_VERSION
      checks.push({
        name: 'claude',
        ok: true,
        detail: `${claude.version} at ${claude.file}${pinned ? '' : ` (tested with ${CLAUDE_CODE_VERSION})`}`
      })
    } catch (error) {
      checks.push({
        name: 'claude',
        ok: false,
        detail: error instanceof Error ? error.message : String(error)
      })
    }
  } else {
    checks.push({
      name: 'claude',
      ok: true,
      detail: `not on PATH: the action installs ${CLAUDE_CODE_VERSION} when it runs`
    })
  }
  // Read on its own, not from the parsed config: a bad --base-url must not make the key look missing.
  const key =
    env[inputEnvName('api-key')] || env.ANTHROPIC_API_KEY || env.ANTHROPIC_AUTH_TOKEN || undefined
  checks.push(
    key
      ? { name: 'model key', ok: true, detail: 'present' }
      : {
          name: 'model key',
          ok: false,
          detail: 'missing: set ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN) in the environment'
        }
  )
  if (!opts.offline && config && key) checks.push(await probe(config, key))
  return checks
}
