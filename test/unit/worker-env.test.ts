import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { parseConfig, type Config } from '../../src/config.js'
import { keyVariable, workerEnv, type WorkerEnvInput } from '../../src/worker/env.js'

const paths = { configDir: '/tmp/w/config', home: '/tmp/w/home', tmp: '/tmp/w/tmp' }
const KEY = 'sk-ant-model-key-123'

/** A runner's environment: tokens of every kind, next to what a worker legitimately needs. */
const host: NodeJS.ProcessEnv = {
  PATH: '/usr/local/bin:/usr/bin:/bin',
  LANG: 'C.UTF-8',
  TZ: 'UTC',
  GITHUB_TOKEN: 'ghs_runner-token-aaaa',
  ACTIONS_RUNTIME_TOKEN: 'runtime-token-bbbb',
  ACTIONS_ID_TOKEN_REQUEST_TOKEN: 'oidc-token-cccc',
  ACTIONS_ID_TOKEN_REQUEST_URL: 'https://token.actions.example/oidc',
  ACTIONS_CACHE_URL: 'https://cache.actions.example/',
  'INPUT_GITHUB-TOKEN': 'ghs_input-token-dddd',
  'INPUT_API-KEY': KEY,
  AWS_SECRET_ACCESS_KEY: 'aws-secret-eeee',
  AWS_ACCESS_KEY_ID: 'AKIAFFFF',
  NPM_TOKEN: 'npm_gggg',
  ANTHROPIC_API_KEY: 'host-anthropic-key-hhhh',
  ANTHROPIC_BASE_URL: 'https://host.example/should-not-pass',
  GH_TOKEN: 'gh-iiii',
  SSH_AUTH_SOCK: '/tmp/ssh-agent.sock',
  HOME: '/home/runner',
  RUNNER_TEMP: '/home/runner/work/_temp',
  GITHUB_WORKSPACE: '/home/runner/work/app/app',
  GIT_CONFIG_COUNT: '1',
  GIT_CONFIG_KEY_0: 'http.extraheader',
  GIT_CONFIG_VALUE_0: 'AUTHORIZATION: basic c2VjcmV0'
}

const ALLOWED = new Set([
  'PATH',
  'LANG',
  'LC_ALL',
  'LC_CTYPE',
  'TZ',
  'TERM',
  'HOME',
  'TMPDIR',
  'CLAUDE_CONFIG_DIR',
  'CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC',
  'DISABLE_AUTOUPDATER',
  'DISABLE_ERROR_REPORTING',
  'DISABLE_TELEMETRY',
  'CLAUDE_CODE_MAX_RETRIES',
  'GIT_TERMINAL_PROMPT',
  'ANTHROPIC_BASE_URL',
  'ANTHROPIC_API_KEY',
  'ANTHROPIC_AUTH_TOKEN',
  'ANTHROPIC_MODEL',
  'ANTHROPIC_DEFAULT_OPUS_MODEL',
  'ANTHROPIC_DEFAULT_SONNET_MODEL',
  'ANTHROPIC_DEFAULT_HAIKU_MODEL',
  'IS_SANDBOX'
])

function config(over: Partial<Config> = {}): Config {
  return { ...parseConfig({}), ...over }
}

function build(over: Partial<WorkerEnvInput> = {}): Record<string, string> {
  return workerEnv({ config: config(), apiKey: KEY, paths, host, isRoot: false, ...over })
}

describe('workerEnv', () => {
  it('points the worker at the model gateway with its token, in the variable auth-header names', () => {
    const env = build({
      config: config({ baseUrl: 'https://api.z.ai/api/anthropic', authHeader: 'x-api-key' }),
      apiKey: 'fleet-token',
      baseUrl: 'http://127.0.0.1:4567'
    })
    expect(env.ANTHROPIC_BASE_URL).toBe('http://127.0.0.1:4567')
    expect(env.ANTHROPIC_API_KEY).toBe('fleet-token')
    expect(env.ANTHROPIC_AUTH_TOKEN).toBeUndefined()
  })

  it('lets no host secret through', () => {
    const env = build()
    const values = Object.values(env).join('\n')
    for (const [name, value] of Object.entries(host)) {
      // The key is meant to reach the worker; short values like '1' say nothing.
      if (['PATH', 'LANG', 'TZ', 'INPUT_API-KEY'].includes(name) || !value || value.length < 8)
        continue
      expect(values, name).not.toContain(value)
    }
    for (const name of [
      'GITHUB_TOKEN',
      'ACTIONS_RUNTIME_TOKEN',
      'ACTIONS_ID_TOKEN_REQUEST_TOKEN',
      'INPUT_GITHUB-TOKEN',
      'AWS_SECRET_ACCESS_KEY',
      'GIT_CONFIG_COUNT'
    ]) {
      expect(env, name).not.toHaveProperty(name)
    }
  })

  it('holds only allowlisted names, whatever the host has (property)', () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.string({ minLength: 1, maxLength: 30 }), fc.string()),
        randomHost => {
          const env = build({ host: { ...randomHost, ...host } })
          for (const name of Object.keys(env)) expect(ALLOWED.has(name), name).toBe(true)
          for (const [name, value] of Object.entries(env)) {
            if (!['PATH', 'LANG', 'LC_ALL', 'LC_CTYPE', 'TZ', 'TERM'].includes(name)) continue
            expect(value).toBe({ ...randomHost, ...host }[name])
          }
        }
      ),
      { numRuns: 100 }
    )
  })

  it('gives the worker its own home, temp and config dir, and keeps it offline otherwise', () => {
    expect(build()).toMatchObject({
      PATH: host.PATH,
      HOME: paths.home,
      TMPDIR: paths.tmp,
      CLAUDE_CONFIG_DIR: paths.configDir,
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      GIT_TERMINAL_PROMPT: '0'
    })
  })

  it('sends the key as x-api-key for Anthropic (no base-url), bearer for another endpoint', () => {
    const anthropic = build()
    expect(anthropic.ANTHROPIC_API_KEY).toBe(KEY)
    expect(anthropic).not.toHaveProperty('ANTHROPIC_AUTH_TOKEN')
    expect(anthropic).not.toHaveProperty('ANTHROPIC_BASE_URL')

    const other = build({ config: config({ baseUrl: 'https://api.z.ai/api/anthropic' }) })
    expect(other.ANTHROPIC_AUTH_TOKEN).toBe(KEY)
    expect(other.ANTHROPIC_BASE_URL).toBe('https://api.z.ai/api/anthropic')
    expect(other).not.toHaveProperty('ANTHROPIC_API_KEY')
  })

  it('maps the model onto the opus and sonnet slots, small-model onto haiku', () => {
    const env = build({ config: config({ smallModel: 'glm-4.5-air' }), model: 'glm-4.6' })
    expect(env.ANTHROPIC_MODEL).toBe('glm-4.6')
    expect(env.ANTHROPIC_DEFAULT_OPUS_MODEL).toBe('glm-4.6')
    expect(env.ANTHROPIC_DEFAULT_SONNET_MODEL).toBe('glm-4.6')
    expect(env.ANTHROPIC_DEFAULT_HAIKU_MODEL).toBe('glm-4.5-air')

    const none = build()
    for (const name of [
      'ANTHROPIC_MODEL',
      'ANTHROPIC_DEFAULT_OPUS_MODEL',
      'ANTHROPIC_DEFAULT_SONNET_MODEL',
      'ANTHROPIC_DEFAULT_HAIKU_MODEL'
    ]) {
      expect(none, name).not.toHaveProperty(name)
    }
  })

  it('sets IS_SANDBOX only when running as root', () => {
    expect(build({ isRoot: true }).IS_SANDBOX).toBe('1')
    expect(build({ isRoot: false })).not.toHaveProperty('IS_SANDBOX')
  })
})

describe('keyVariable', () => {
  it.each([
    ['auto', undefined, 'ANTHROPIC_API_KEY'],
    ['auto', 'https://api.anthropic.com', 'ANTHROPIC_API_KEY'],
    ['auto', 'https://api.z.ai/api/anthropic', 'ANTHROPIC_AUTH_TOKEN'],
    ['auto', 'http://127.0.0.1:8080', 'ANTHROPIC_AUTH_TOKEN'],
    ['bearer', undefined, 'ANTHROPIC_AUTH_TOKEN'],
    ['x-api-key', 'https://gateway.example', 'ANTHROPIC_API_KEY']
  ] as const)('%s with base-url %s -> %s', (authHeader, baseUrl, variable) => {
    expect(keyVariable({ authHeader, baseUrl })).toBe(variable)
  })
})
