import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { InputError, parseConfig } from '../../src/config.js'
import { INPUTS, inputEnvName } from '../../src/inputs.js'
import { containerCommand, DEFAULT_LIMITS } from '../../src/cage/container.js'
import {
  containerName,
  containerSpecFor,
  containerUser,
  runtimeEnv
} from '../../src/cage/container-run.js'

const root = new URL('../../', import.meta.url)
const read = (file: string) => readFileSync(new URL(file, root), 'utf8')

const env = (inputs: Record<string, string>) =>
  Object.fromEntries(Object.entries(inputs).map(([k, v]) => [inputEnvName(k), v]))

describe('isolation inputs', () => {
  it('default to the sandbox with no extra hosts, docker, bridge and the container.ts limits', () => {
    const config = parseConfig({})
    expect(config.isolation).toBe('sandbox')
    expect(config.allowedDomains).toEqual([])
    expect(config.container).toMatchObject({
      runtime: 'docker',
      network: 'bridge',
      cpus: DEFAULT_LIMITS.cpus,
      memory: DEFAULT_LIMITS.memory,
      pidsLimit: DEFAULT_LIMITS.pidsLimit
    })
  })

  it("name this release's image as .github/workflows/release.yml publishes it", () => {
    const version = (JSON.parse(read('package.json')) as { version: string }).version
    expect(INPUTS['container-image'].default).toBe(
      `ghcr.io/fleet-worker/fleet-worker-worker:${version}`
    )
    // release.yml: ghcr.io/<lower-case owner/repo>-worker, tagged <version> and <major>.
    const release = read('.github/workflows/release.yml')
    expect(release).toContain('image=ghcr.io/${REPOSITORY,,}-worker')
    expect(release).toContain('--tag "$IMAGE:$VERSION" --tag "$IMAGE:$MAJOR"')
    expect(read('docs/container.md')).toContain('ghcr.io/<owner>/fleet-worker-worker:<version>')
  })

  it('refuse host networking and bad limits up front, naming the input', () => {
    const refused = (inputs: Record<string, string>) => {
      try {
        parseConfig(env({ isolation: 'container', ...inputs }))
      } catch (error) {
        expect(error).toBeInstanceOf(InputError)
        return (error as InputError).input
      }
      throw new Error(`accepted ${JSON.stringify(inputs)}`)
    }
    expect(refused({ 'container-network': 'host' })).toBe('container-network')
    expect(refused({ 'container-network': 'container:abc' })).toBe('container-network')
    expect(refused({ 'container-cpus': '-1' })).toBe('container-cpus')
    expect(refused({ 'container-memory': 'lots' })).toBe('container-memory')
    expect(refused({ 'container-image': '--privileged' })).toBe('container-image')
    expect(refused({ 'container-pids-limit': '0' })).toBe('container-pids-limit')
    expect(refused({ 'container-runtime': 'lxc' })).toBe('container-runtime')
    // Only checked when used: the sandbox ignores them.
    expect(parseConfig(env({ 'container-network': 'host' })).isolation).toBe('sandbox')
  })
})

describe('containerUser', () => {
  it("runs as the action's own uid, or as the image's 1001 when the action is root", () => {
    expect(containerUser(1001, 1001)).toBe('1001:1001')
    expect(containerUser(1500, 20)).toBe('1500:20')
    expect(containerUser(0, 0)).toBe('1001:1001')
    expect(containerUser(undefined, undefined)).toBe('1001:1001')
  })
})

describe('runtimeEnv', () => {
  const worker = {
    PATH: '/usr/bin',
    HOME: '/run/w/home',
    TMPDIR: '/run/w/tmp',
    CLAUDE_CONFIG_DIR: '/run/w/config',
    ANTHROPIC_AUTH_TOKEN: 'tok-123456789'
  }
  it("keeps the worker's variables for --env NAME, with the host's runtime settings and HOME", () => {
    const env = runtimeEnv(worker, {
      HOME: '/home/runner',
      DOCKER_HOST: 'unix:///run/docker.sock',
      CONTAINERS_CONF: '/etc/c.conf',
      GITHUB_TOKEN: 'ghs_x',
      INPUT_API_KEY: 'k'
    })
    expect(env).toEqual({
      PATH: '/usr/bin',
      ANTHROPIC_AUTH_TOKEN: 'tok-123456789',
      HOME: '/home/runner',
      DOCKER_HOST: 'unix:///run/docker.sock',
      CONTAINERS_CONF: '/etc/c.conf'
    })
  })

  it("finds the runtime on the runner's PATH, not the fixed one a seal's environment has", () => {
    const seal = { PATH: '/usr/local/bin:/usr/bin:/bin', GIT_AUTHOR_NAME: 'fleet' }
    const env = runtimeEnv(seal, { PATH: '/opt/podman/bin:/usr/bin', HOME: '/home/runner' })
    expect(env.PATH).toBe('/opt/podman/bin:/usr/bin')
  })
})

describe('containerSpecFor', () => {
  const launch = {
    cwd: '/run/fleet/worktrees/t1',
    paths: { configDir: '/run/fleet/workers/t1.1/config', home: '/h', tmp: '/t' },
    settings: '/run/fleet/workers/t1.1/config/settings.json',
    env: { PATH: '/usr/bin', ANTHROPIC_API_KEY: 'sk-ant-0123456789abcdef' },
    args: (settings: string) => ['-p', '--settings', settings]
  }
  const c = {
    runtime: 'podman' as const,
    image: 'localhost/fleet-worker:check',
    cpus: '1',
    memory: '1g',
    pidsLimit: 64,
    network: 'none'
  }

  it('hands claude the settings file at its container path, and the limits and network', () => {
    const spec = containerSpecFor(c, launch, {
      name: containerName('ab12cd34', 't1', 1),
      user: '1001:1001'
    })
    expect(spec.claudeArgs).toEqual([
      '-p',
      '--settings',
      '/home/fleet/.claude-config/settings.json'
    ])
    const cmd = containerCommand(spec)
    expect(cmd.file).toBe('podman')
    expect(cmd.args.join(' ')).toContain('--name fleet-ab12cd34-t1-1')
    expect(cmd.args.join(' ')).toContain(
      '--cpus 1 --memory 1g --memory-swap 1g --pids-limit 64 --network none'
    )
    expect(cmd.args.join(' ')).not.toContain('sk-ant-')
  })

  it('refuses a settings file the container cannot see', () => {
    expect(() =>
      containerSpecFor(
        c,
        { ...launch, settings: '/etc/settings.json' },
        { name: 'x', user: '1001' }
      )
    ).toThrow(/outside the container/)
  })

  it('makes names docker accepts from every valid task id', () => {
    expect(containerName('ab12cd34', 'a'.repeat(63), 10)).toMatch(
      /^[a-zA-Z0-9][a-zA-Z0-9_.-]{0,127}$/
    )
  })
})
