import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { chosenEnv, npmEnv, systemEnv } from '../../src/child-env.js'

/** What npm's environment keeps of the action's. */
const NPM_KEPT = {
  PATH: '/usr/bin:/bin',
  HOME: '/home/runner',
  LANG: 'C.UTF-8',
  HTTPS_PROXY: 'http://proxy:3128',
  NODE_EXTRA_CA_CERTS: '/etc/ca.pem',
  npm_config_cache: '/home/runner/.npm',
  npm_config_registry: 'https://registry.npmjs.org/',
  NPM_CONFIG_OFFLINE: 'true'
}

const ACTION_ENV = {
  ...NPM_KEPT,
  'INPUT_GITHUB-TOKEN': 'ghs_secret',
  'INPUT_API-KEY': 'sk-secret',
  GITHUB_TOKEN: 'ghs_secret',
  ANTHROPIC_API_KEY: 'sk-secret',
  ACTIONS_RUNTIME_TOKEN: 'rt-secret',
  ACTIONS_ID_TOKEN_REQUEST_TOKEN: 'oidc-secret',
  NODE_AUTH_TOKEN: 'npm-secret',
  npm_config__authToken: 'npm-secret',
  'npm_config_//registry.example/:_authToken': 'npm-secret',
  npm_config_password: 'npm-secret',
  NODE_OPTIONS: '--require /tmp/evil.js',
  GITHUB_ENV: '/tmp/env'
}

describe('a child process environment', () => {
  it("npm's: what an install needs, and no secret or code hook of the action's", () => {
    expect(npmEnv(ACTION_ENV)).toEqual(NPM_KEPT)
  })

  it("a system command's: no npm settings either; exact names are taken as given", () => {
    expect(Object.keys(systemEnv(ACTION_ENV, ['DEBIAN_FRONTEND'])).sort()).toEqual([
      'HOME',
      'HTTPS_PROXY',
      'LANG',
      'NODE_EXTRA_CA_CERTS',
      'PATH'
    ])
    expect(chosenEnv({ REGISTRY_AUTH_FILE: '/a' }, ['REGISTRY_AUTH_FILE'])).toEqual({
      REGISTRY_AUTH_FILE: '/a'
    })
  })

  it('never takes a variable named like a credential through a pattern', () => {
    const name = fc
      .tuple(
        fc.constantFrom('npm_config_', 'NPM_CONFIG_', 'LC_', ''),
        fc.stringMatching(/^\w{0,6}$/),
        fc.constantFrom('TOKEN', 'token', '_authToken', 'password', '_KEY', 'SECRET', 'auth'),
        fc.stringMatching(/^\w{0,6}$/)
      )
      .map(parts => parts.join(''))
    fc.assert(
      fc.property(name, n => {
        expect(npmEnv({ [n]: 'x' })).toEqual({})
      })
    )
  })
})
