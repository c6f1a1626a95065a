import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { InputError, parseConfig } from '../../src/config.js'
import { inputEnvName } from '../../src/inputs.js'
import { workerEnv } from '../../src/worker/env.js'
import {
  MODEL_SOCKET,
  PROXY_SOCKET,
  proxyEnv,
  sandboxCommand,
  SandboxSpecError,
  type SandboxSpec,
  writablePaths
} from '../../src/cage/sandbox.js'
import {
  isAllowed,
  isLoopback,
  parseAllowEntry,
  parseAllowList
} from '../../src/cage/sandbox-allow.js'

const KEY = 'sk-ant-model-key-0123456789'
const GITHUB_TOKEN = 'ghs_runner-token-0123456789'

/** A runner's environment: the worker env is built from it, as run.ts does. */
const host: NodeJS.ProcessEnv = {
  PATH: '/usr/local/bin:/usr/bin:/bin',
  LANG: 'C.UTF-8',
  GITHUB_TOKEN,
  'INPUT_GITHUB-TOKEN': GITHUB_TOKEN,
  'INPUT_API-KEY': KEY,
  ACTIONS_RUNTIME_TOKEN: 'runtime-token-0123456789',
  ACTIONS_ID_TOKEN_REQUEST_TOKEN: 'oidc-token-0123456789',
  HOME: '/home/runner',
  RUNNER_TEMP: '/home/runner/work/_temp'
}

const env = (inputs: Record<string, string>) =>
  Object.fromEntries(Object.entries(inputs).map(([k, v]) => [inputEnvName(k), v]))

const seg = fc.stringMatching(/^[a-zA-Z0-9._-]{1,12}$/).filter(s => s !== '.' && s !== '..')
const absPath = fc.array(seg, { minLength: 1, maxLength: 6 }).map(parts => `/${parts.join('/')}`)

function spec(over: Partial<SandboxSpec> & { worktree: string; cageDir: string }): SandboxSpec {
  const config = parseConfig(env({ 'base-url': 'http://127.0.0.1:4010' }))
  const paths = {
    configDir: `${over.cageDir}/config`,
    home: `${over.cageDir}/home`,
    tmp: `${over.cageDir}/tmp`
  }
  return {
    bwrap: '/usr/bin/bwrap',
    system: [
      { kind: 'dir', path: '/usr' },
      { kind: 'dir', path: '/etc' },
      { kind: 'symlink', path: '/bin', target: 'usr/bin' }
    ],
    git: {
      gitFile: '/tmp/fleet-sbx-1/gitfile',
      objectsDir: '/home/runner/work/_temp/repo/.git/objects'
    },
    claudeDir: '/home/runner/work/_temp/claude/bin',
    network: {
      proxySocket: '/tmp/fleet-sbx-1/net/proxy.sock',
      proxyPort: 3128,
      modelSocket: '/tmp/fleet-sbx-1/net/model.sock',
      modelPort: 4010
    },
    command: ['/home/runner/work/_temp/claude/bin/claude', '-p', '--max-turns', '40'],
    env: {
      ...workerEnv({ config, apiKey: KEY, paths, host, isRoot: false }),
      ...proxyEnv(3128)
    },
    ...over
  }
}

describe('the sandbox command line', () => {
  it('lets its command write only the worktree and its own cage dir', () => {
    fc.assert(
      fc.property(absPath, absPath, (worktree, cageDir) => {
        fc.pre(worktree !== cageDir)
        const cmd = sandboxCommand(spec({ worktree, cageDir }))
        expect(writablePaths(cmd.args).sort()).toEqual([worktree, cageDir].sort())
        // Everything else it is shown is read-only: each --bind is one of the two above.
        const binds = cmd.args.flatMap((a, i) => (a === '--bind' ? [cmd.args[i + 1]] : []))
        expect(binds.sort()).toEqual([worktree, cageDir].sort())
      })
    )
  })

  it('puts no secret value on its argv, whatever the key, and carries no GitHub token at all', () => {
    fc.assert(
      fc.property(absPath, fc.stringMatching(/^[A-Za-z0-9_-]{8,40}$/), (worktree, key) => {
        const s = spec({ worktree, cageDir: '/home/runner/work/_temp/w/t.1' })
        s.env.ANTHROPIC_AUTH_TOKEN = key
        let cmd
        try {
          cmd = sandboxCommand(s)
        } catch (error) {
          // A key that is also part of a path or the command is refused, never passed.
          expect(error).toBeInstanceOf(SandboxSpecError)
          return
        }
        for (const arg of cmd.args) expect(arg).not.toContain(key)
        expect(cmd.env.ANTHROPIC_AUTH_TOKEN).toBe(key)
        const all = JSON.stringify([cmd.args, cmd.env])
        expect(all).not.toContain(GITHUB_TOKEN)
        expect(all).not.toContain('runtime-token')
        expect(all).not.toContain('oidc-token')
        expect(
          Object.keys(cmd.env).filter(n => /^(GITHUB_|INPUT_|ACTIONS_|RUNNER_)/.test(n))
        ).toEqual([])
      })
    )
  })

  it('refuses a command line that would carry the key', () => {
    const s = spec({ worktree: '/w', cageDir: '/c' })
    s.command = ['sh', '-c', `echo ${KEY}`]
    expect(() => sandboxCommand(s)).toThrow(SandboxSpecError)
  })

  it('unshares every namespace, dies with the action, and shows the host only read-only', () => {
    const cmd = sandboxCommand(spec({ worktree: '/w/t', cageDir: '/c/t.1' }))
    const head = cmd.args.slice(0, cmd.args.indexOf('--'))
    for (const flag of [
      '--unshare-user',
      '--unshare-pid',
      '--unshare-net',
      '--unshare-ipc',
      '--die-with-parent',
      '--new-session'
    ])
      expect(head).toContain(flag)
    expect(head).not.toContain('--share-net')
    expect(head).not.toContain('--cap-add')
    // Every capability dropped, even when the action runs as root.
    expect(head.join(' ')).toContain('--cap-drop ALL')
    expect(head.join(' ')).toContain('--proc /proc')
    expect(head.join(' ')).toContain('--tmpfs /tmp')
    // Nothing bound under /tmp is hidden by the tmpfs mounted over /tmp.
    const tmpfs = head.indexOf('--tmpfs')
    const s = spec({ worktree: '/tmp/w', cageDir: '/tmp/c', claudeDir: '/tmp/claude/bin' })
    const args = sandboxCommand(s).args
    args.forEach((a, i) => {
      if (a.endsWith('bind') && args[i + 2]?.startsWith('/tmp/'))
        expect(i, `${args[i + 2]} bound before the tmpfs`).toBeGreaterThan(args.indexOf('--tmpfs'))
    })
    expect(tmpfs).toBeGreaterThan(0)
    // The worker's .git is a read-only pointer to its own clone; the sockets are read-only too.
    expect(head.join(' ')).toContain('--ro-bind /tmp/fleet-sbx-1/gitfile /w/t/.git')
    expect(head.join(' ')).toContain(`--ro-bind /tmp/fleet-sbx-1/net/proxy.sock ${PROXY_SOCKET}`)
    expect(head.join(' ')).toContain(`--ro-bind /tmp/fleet-sbx-1/net/model.sock ${MODEL_SOCKET}`)
    // Never the host's home, /tmp, /run or /var (docker.sock), nor the root.
    const shown = head.flatMap((a, i) => (a.endsWith('bind') ? [head[i + 1]] : []))
    for (const p of shown) expect(p).not.toMatch(/^\/(home\/runner\/?$|tmp\/?$|run|var|root|$)/)
    // The command comes last, after the constant init script and the ports.
    expect(cmd.args.slice(-4)).toEqual([
      '/home/runner/work/_temp/claude/bin/claude',
      '-p',
      '--max-turns',
      '40'
    ])
    expect(cmd.args).toContain('4010')
    expect(cmd.args).toContain('0FAA')
  })

  it('refuses relative paths and clashing ports', () => {
    expect(() => sandboxCommand(spec({ worktree: 'w', cageDir: '/c' }))).toThrow(/absolute/)
    expect(() => sandboxCommand(spec({ worktree: '/w/../etc', cageDir: '/c' }))).toThrow(
      /normalised/
    )
    const s = spec({ worktree: '/w', cageDir: '/c' })
    if (s.network) s.network.modelPort = 3128
    expect(() => sandboxCommand(s)).toThrow(/share port/)
  })

  it('sends everything but loopback through the proxy', () => {
    const e = proxyEnv(3128)
    expect(e.HTTPS_PROXY).toBe('http://127.0.0.1:3128')
    expect(e.https_proxy).toBe('http://127.0.0.1:3128')
    expect(e.NO_PROXY?.split(',')).toEqual(['localhost', '127.0.0.1', '::1'])
  })
})

describe('allowed-domains', () => {
  it('parses hosts, wildcards and ports, and names a bad entry', () => {
    expect(parseAllowEntry('registry.npmjs.org')).toEqual({
      host: 'registry.npmjs.org',
      wildcard: false,
      ports: [80, 443]
    })
    expect(parseAllowEntry('*.PythonHosted.org')).toEqual({
      host: 'pythonhosted.org',
      wildcard: true,
      ports: [80, 443]
    })
    expect(parseAllowEntry('localhost:8080')).toEqual({
      host: 'localhost',
      wildcard: false,
      ports: [8080]
    })
    for (const bad of ['http://x.org', 'x.org/path', '*', 'a b', 'x.org:99999', '-x.org', 'x..org'])
      expect(parseAllowEntry(bad)).toMatch(/is not a host name/)
    expect(parseAllowList(['a.org', 'b.org:1'])).toHaveLength(2)
  })

  it('is an input: comma or newline separated, refused with its name when malformed', () => {
    const config = parseConfig(env({ 'allowed-domains': 'registry.npmjs.org,\n*.github.com' }))
    expect(config.allowedDomains.map(r => r.host)).toEqual(['registry.npmjs.org', 'github.com'])
    expect(() => parseConfig(env({ 'allowed-domains': 'https://evil.example/' }))).toThrow(
      InputError
    )
    expect(() => parseConfig(env({ 'allowed-domains': 'https://evil.example/' }))).toThrow(
      /Input 'allowed-domains'/
    )
  })

  it('allows exactly the listed host and ports, subdomains only with a wildcard', () => {
    const rules = parseAllowList(['registry.npmjs.org', '*.example.com', 'localhost:4000'])
    if (typeof rules === 'string') throw new Error(rules)
    expect(isAllowed(rules, 'registry.npmjs.org', 443)).toBe(true)
    expect(isAllowed(rules, 'REGISTRY.npmjs.org.', 80)).toBe(true)
    expect(isAllowed(rules, 'registry.npmjs.org', 22)).toBe(false)
    expect(isAllowed(rules, 'evil-registry.npmjs.org', 443)).toBe(false)
    expect(isAllowed(rules, 'registry.npmjs.org.evil.com', 443)).toBe(false)
    expect(isAllowed(rules, 'a.example.com', 443)).toBe(true)
    expect(isAllowed(rules, 'example.com', 443)).toBe(false)
    expect(isAllowed(rules, 'localhost', 4000)).toBe(true)
    expect(isAllowed(rules, 'localhost', 4001)).toBe(false)
    expect(isAllowed(rules, '127.0.0.1', 4000)).toBe(false)
  })

  it('allows nothing from an empty list', () => {
    fc.assert(
      fc.property(fc.domain(), fc.integer({ min: 1, max: 65535 }), (h, port) => {
        expect(isAllowed([], h, port)).toBe(false)
      })
    )
  })

  it('knows loopback endpoints', () => {
    for (const h of ['localhost', '127.0.0.1', '127.1.2.3', '[::1]', '::1'])
      expect(isLoopback(h)).toBe(true)
    for (const h of ['api.anthropic.com', '10.0.0.1', '128.0.0.1', 'localhost.evil.com'])
      expect(isLoopback(h)).toBe(false)
  })
})
