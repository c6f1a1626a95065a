import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  CONTAINER_CONFIG_DIR,
  CONTAINER_GIT_DIR,
  CONTAINER_OUT_DIR,
  CONTAINER_WORKSPACE,
  ContainerSpecError,
  containerCommand,
  containerKillCommand,
  containerPath,
  type ContainerSpec
} from '../../src/cage/container.js'

const secrets = {
  ANTHROPIC_API_KEY: 'sk-secret-123',
  ANTHROPIC_AUTH_TOKEN: 'tok-0f1e2d3c4b5a',
  ANTHROPIC_BASE_URL: 'https://models.internal.example:8443/proxy-key-77',
  ANTHROPIC_MODEL: 'glm-9-private-deployment'
}

function spec(over: Partial<ContainerSpec> = {}): ContainerSpec {
  return {
    image: 'ghcr.io/acme/fleet-worker:v1.2.3',
    name: 'fleet-42-fix-login',
    worktree: '/home/runner/work/app/.fleet/wt/fix-login',
    configDir: '/tmp/fleet-run/fix-login/config',
    env: {
      ...secrets,
      PATH: '/usr/local/bin:/usr/bin:/bin',
      HOME: '/tmp/fleet-run/fix-login/home',
      LANG: 'C.UTF-8'
    },
    cpus: '1.5',
    memory: '2g',
    pidsLimit: 300,
    network: 'fleet-egress',
    claudeArgs: ['-p', '--output-format', 'stream-json', '--verbose', '--max-turns', '40'],
    ...over
  }
}

/** Values that follow a flag, e.g. every --mount's spec. */
function flagValues(args: string[], flag: string): string[] {
  return args.flatMap((arg, i) =>
    arg === flag && args[i + 1] !== undefined ? [args[i + 1] as string] : []
  )
}

function flagValue(args: string[], flag: string): string | undefined {
  const values = flagValues(args, flag)
  expect(values.length).toBeLessThanOrEqual(1)
  return values[0]
}

describe('containerCommand', () => {
  it('never puts an environment value on the command line', () => {
    const { args, env } = containerCommand(spec())
    for (const value of Object.values(secrets)) {
      for (const arg of args) expect(arg).not.toContain(value)
    }
    // The values travel in the CLI's own environment instead, and nothing from the host joins them.
    expect(env).toEqual(spec().env)
    expect(env).not.toBe(spec().env)
    expect(flagValues(args, '--env')).toEqual(
      expect.arrayContaining([
        'ANTHROPIC_API_KEY',
        'ANTHROPIC_AUTH_TOKEN',
        'ANTHROPIC_BASE_URL',
        'LANG'
      ])
    )
  })

  it('holds for any secret values (property)', () => {
    const name = fc.stringMatching(/^[A-Z][A-Z0-9_]{0,20}$/)
    const secret = fc.stringMatching(/^[A-Za-z0-9_+/=.-]{12,64}$/)
    fc.assert(
      fc.property(fc.dictionary(name, secret, { minKeys: 1, maxKeys: 8 }), env => {
        const { args } = containerCommand(spec({ env }))
        for (const value of Object.values(env)) {
          for (const arg of args) expect(arg).not.toContain(value)
        }
      }),
      { numRuns: 300 }
    )
  })

  it('mounts exactly the worktree and the config dir, read-write, and nothing else', () => {
    const s = spec()
    const { args } = containerCommand(s)
    expect(flagValues(args, '--mount')).toEqual([
      `type=bind,src=${s.worktree},dst=${CONTAINER_WORKSPACE}`,
      `type=bind,src=${s.configDir},dst=${CONTAINER_CONFIG_DIR}`
    ])
    expect(args).not.toContain('-v')
    expect(args).not.toContain('--volume')
    expect(args.some(a => a.startsWith('--volumes-from') || a === '--privileged')).toBe(false)
  })

  it('adds the git clone read-write, the borrowed objects read-only, and a read-only .git over the task files', () => {
    const git = {
      gitDir: '/tmp/fleet-run/fix-login/clone/.git',
      objectsDir: '/home/runner/work/app/.git/objects',
      gitFile: '/tmp/fleet-run/fix-login/clone/fleet-gitfile'
    }
    const { args } = containerCommand(spec({ git }))
    expect(flagValues(args, '--mount').slice(2)).toEqual([
      `type=bind,src=${git.gitDir},dst=${CONTAINER_GIT_DIR}`,
      `type=bind,src=${git.objectsDir},dst=${git.objectsDir},readonly`,
      `type=bind,src=${git.gitFile},dst=${CONTAINER_WORKSPACE}/.git,readonly`
    ])
    expect(flagValues(args, '--env')).toEqual(
      expect.arrayContaining([
        `GIT_DIR=${CONTAINER_GIT_DIR}`,
        `GIT_WORK_TREE=${CONTAINER_WORKSPACE}`
      ])
    )
  })

  it('sets limits, a non-root user, the network and no privilege escalation', () => {
    const { file, args } = containerCommand(spec())
    expect(file).toBe('docker')
    expect(args.slice(0, 2)).toEqual(['run', '--rm'])
    expect(flagValue(args, '--cpus')).toBe('1.5')
    expect(flagValue(args, '--memory')).toBe('2g')
    expect(flagValue(args, '--memory-swap')).toBe('2g')
    expect(flagValue(args, '--pids-limit')).toBe('300')
    expect(flagValue(args, '--user')).toBe('1001:1001')
    expect(flagValue(args, '--network')).toBe('fleet-egress')
    expect(flagValue(args, '--security-opt')).toBe('no-new-privileges')
    expect(flagValue(args, '--cap-drop')).toBe('ALL')
    expect(flagValue(args, '--name')).toBe('fleet-42-fix-login')
    expect(flagValue(args, '--workdir')).toBe(CONTAINER_WORKSPACE)
  })

  it('applies default limits when the inputs give none', () => {
    const { args } = containerCommand(
      spec({ cpus: undefined, memory: undefined, pidsLimit: undefined, network: undefined })
    )
    expect(flagValue(args, '--cpus')).toBe('2')
    expect(flagValue(args, '--memory')).toBe('4g')
    expect(flagValue(args, '--pids-limit')).toBe('1024')
    expect(flagValue(args, '--network')).toBe('bridge')
  })

  it('ends with the image, claude and its arguments untouched', () => {
    const s = spec()
    const { args } = containerCommand(s)
    expect(args.slice(-(s.claudeArgs.length + 2))).toEqual([s.image, 'claude', ...s.claudeArgs])
  })

  it('points HOME and CLAUDE_CONFIG_DIR at container paths and leaves host-only variables behind', () => {
    const { args } = containerCommand(spec())
    const envFlags = flagValues(args, '--env')
    expect(envFlags).toContain('HOME=/home/fleet')
    expect(envFlags).toContain(`CLAUDE_CONFIG_DIR=${CONTAINER_CONFIG_DIR}`)
    expect(envFlags).not.toContain('HOME')
    expect(envFlags).not.toContain('PATH')
    // Only our own constants carry '=': everything from spec.env goes by name.
    expect(envFlags.filter(e => e.includes('=')).sort()).toEqual([
      `CLAUDE_CONFIG_DIR=${CONTAINER_CONFIG_DIR}`,
      'HOME=/home/fleet'
    ])
  })

  it("with the run's egress, names its proxy inside and forwards none of the host's proxy variables", () => {
    const egress = { proxy: 'http://10.89.0.1:46211', noProxy: '10.89.0.1,localhost,127.0.0.1,::1' }
    const hostProxy = { HTTPS_PROXY: 'http://corp:3128', no_proxy: '.corp' }
    const { args } = containerCommand(spec({ egress, env: { ...spec().env, ...hostProxy } }))
    const envFlags = flagValues(args, '--env')
    for (const name of ['HTTP_PROXY', 'HTTPS_PROXY', 'ALL_PROXY']) {
      expect(envFlags).toContain(`${name}=${egress.proxy}`)
      expect(envFlags).toContain(`${name.toLowerCase()}=${egress.proxy}`)
    }
    expect(envFlags).toContain(`NO_PROXY=${egress.noProxy}`)
    expect(envFlags).toContain(`no_proxy=${egress.noProxy}`)
    expect(envFlags.filter(e => /proxy/i.test(e) && !e.includes('='))).toEqual([])
    // Without it, the host's proxy variables go by name, as any other.
    expect(flagValues(containerCommand(spec({ env: hostProxy })).args, '--env')).toEqual(
      expect.arrayContaining(['HTTPS_PROXY', 'no_proxy'])
    )
  })

  it('uses podman when asked', () => {
    expect(containerCommand(spec({ runtime: 'podman' })).file).toBe('podman')
  })

  it.each([
    ['a name with a space', { name: 'fleet 1' }],
    ['a name that is an option', { name: '--privileged' }],
    ['an image with a shell character', { image: 'ghcr.io/acme/x;rm -rf /' }],
    ['an image that is an option', { image: '--volume=/:/host' }],
    ['an upper-case image path', { image: 'GHCR.io/Acme/x' }],
    ['a relative worktree', { worktree: 'wt/fix' }],
    ['a worktree with a comma', { worktree: '/tmp/a,dst=/etc' }],
    ['an unnormalised worktree', { worktree: '/tmp/wt/../../etc' }],
    ['the host root as config dir', { configDir: '/' }],
    ['root by uid', { user: '0' }],
    ['root by uid and gid', { user: '0:0' }],
    ['a user name', { user: 'root' }],
    ['the host network', { network: 'host' }],
    ["another container's network", { network: 'container:abc' }],
    [
      'a proxy that is not an address and port',
      { egress: { proxy: 'http://x@evil:1', noProxy: 'a' } }
    ],
    ['a no-proxy list with a space', { egress: { proxy: 'http://10.0.0.1:1', noProxy: 'a b' } }],
    ['zero cpus', { cpus: '0' }],
    ['a bad memory size', { memory: 'lots' }],
    ['a negative pids limit', { pidsLimit: -1 }],
    ['an env name carrying a value', { env: { 'KEY=sk-secret-123': 'x' } }],
    [
      'a token in claude arguments',
      { claudeArgs: ['-p', '--append-system-prompt', 'use ghp_abcdefghijklmnopqrstuvwxyz0123'] }
    ],
    ['an env secret in claude arguments', { claudeArgs: ['--api-key', 'sk-secret-123'] }]
  ] satisfies [string, Partial<ContainerSpec>][])('rejects %s', (_label, over) => {
    expect(() => containerCommand(spec(over))).toThrow(ContainerSpecError)
  })

  // The config names the input at fault from this field, never from the message's words.
  it.each([
    [{ image: '--privileged' }, 'image'],
    [{ cpus: '0' }, 'cpus'],
    [{ memory: 'lots' }, 'memory'],
    [{ pidsLimit: 0 }, 'pids-limit'],
    [{ network: 'host' }, 'network'],
    [{ user: '0' }, undefined],
    [{ name: 'fleet 1' }, undefined],
    [{ worktree: 'wt/fix' }, undefined],
    [{ env: { 'A=B': 'x' } }, undefined]
  ] satisfies [Partial<ContainerSpec>, string | undefined][])(
    'a refusal of %j names its setting: %s',
    (over, setting) => {
      let refused: unknown
      try {
        containerCommand(spec(over))
      } catch (error) {
        refused = error
      }
      expect(refused).toBeInstanceOf(ContainerSpecError)
      expect((refused as ContainerSpecError).setting).toBe(setting)
    }
  )

  it('accepts registry ports and digests', () => {
    const image = `localhost:5000/fleet-worker:v1@sha256:${'a'.repeat(64)}`
    expect(containerCommand(spec({ image })).args).toContain(image)
  })
})

describe('containerCommand with a copy-on-write view of the shared checkout', () => {
  const view = {
    lower: '/tmp/fleet-run/checkouts/0123abc',
    upper: '/tmp/fleet-run/views/fix-login/upper',
    work: '/tmp/fleet-run/views/fix-login/work'
  }
  const viewed = (over: Partial<ContainerSpec> = {}) =>
    containerCommand(spec({ runtime: 'podman', view, ...over }))

  it("shows the checkout at /workspace through podman's overlay volume, the task's layer its upper", () => {
    const { args } = viewed()
    expect(flagValues(args, '--volume')).toEqual([
      `${view.lower}:${CONTAINER_WORKSPACE}:O,upperdir=${view.upper},workdir=${view.work}`
    ])
    // The (empty) worktree path is not mounted: the view takes /workspace.
    expect(flagValues(args, '--mount')).toEqual([
      `type=bind,src=/tmp/fleet-run/fix-login/config,dst=${CONTAINER_CONFIG_DIR}`
    ])
    expect(args.join(' ')).not.toContain(spec().worktree)
  })

  it("mounts setup's out dir at its container path", () => {
    const { args } = viewed({ outDir: '/tmp/fleet-run/setup/fix-login/leftovers' })
    expect(flagValues(args, '--mount')).toContain(
      `type=bind,src=/tmp/fleet-run/setup/fix-login/leftovers,dst=${CONTAINER_OUT_DIR}`
    )
  })

  it.each([
    ['a comma in the lower dir', { lower: '/tmp/a,upperdir=/etc' }, "Invalid view's lower dir"],
    ['a colon in the lower dir', { lower: '/tmp/a:/etc' }, "Invalid view's lower dir"],
    ['a colon in the upper dir', { upper: '/tmp/up:O' }, "Invalid view's upper dir"],
    ['a comma in the work dir', { work: '/tmp/w,lowerdir=/' }, "Invalid view's work dir"],
    ['a backslash in the upper dir', { upper: '/tmp/u\\p' }, "Invalid view's upper dir"],
    ['a newline in the work dir', { work: '/tmp/w\nx' }, "Invalid view's work dir"],
    ['a relative lower dir', { lower: 'checkouts/abc' }, "Invalid view's lower dir"],
    ['an unnormalised upper dir', { upper: '/tmp/x/../../etc' }, "Invalid view's upper dir"],
    ['the host root as lower dir', { lower: '/' }, "Invalid view's lower dir"],
    ['an upper layer inside the checkout', { upper: `${view.lower}/up` }, 'must lie outside'],
    ['a work dir inside the checkout', { work: `${view.lower}/.w` }, 'must lie outside'],
    ['the checkout inside the upper layer', { upper: '/tmp/fleet-run' }, 'must lie outside']
  ])('refuses %s, naming the path and what would be right', (_label, over, message) => {
    const bad = { ...view, ...over }
    const run = () => viewed({ view: bad })
    expect(run).toThrow(ContainerSpecError)
    expect(run).toThrow(message)
  })

  it('names the rule for the characters podman and overlayfs would misread', () => {
    expect(() => viewed({ view: { ...view, lower: '/tmp/a:b' } })).toThrow(
      "Invalid view's lower dir '/tmp/a:b'. A copy-on-write view's paths cannot hold ',', ':', '\\' or a newline."
    )
  })

  it('is refused on docker, which has no overlay volumes', () => {
    expect(() => viewed({ runtime: 'docker' })).toThrow(
      "A copy-on-write view needs podman's overlay volumes; container: runtime is 'docker'."
    )
    expect(() => containerCommand(spec({ view }))).toThrow(ContainerSpecError)
  })
})

describe('containerKillCommand', () => {
  it('kills by name with SIGKILL', () => {
    expect(containerKillCommand('fleet-42-fix-login')).toEqual({
      file: 'docker',
      args: ['kill', '--signal', 'KILL', 'fleet-42-fix-login']
    })
    expect(containerKillCommand('fleet-1', 'podman').file).toBe('podman')
  })

  it('rejects a name that could be an option', () => {
    expect(() => containerKillCommand('--all')).toThrow(ContainerSpecError)
  })
})

describe('containerPath', () => {
  const s = spec()
  it('maps paths under the mounts and refuses the rest', () => {
    expect(containerPath(s, `${s.configDir}/settings.json`)).toBe(
      `${CONTAINER_CONFIG_DIR}/settings.json`
    )
    expect(containerPath(s, `${s.worktree}/src/a.ts`)).toBe(`${CONTAINER_WORKSPACE}/src/a.ts`)
    expect(containerPath(s, s.worktree)).toBe(CONTAINER_WORKSPACE)
    expect(containerPath(s, '/etc/passwd')).toBeUndefined()
    expect(containerPath(s, `${s.worktree}-other/x`)).toBeUndefined()
  })
})
