/**
 * isolation: container — where its workers reach the model gateway. A container on a bridge
 * network cannot reach the runner's loopback, and host networking is refused, so the gateway
 * listens on the bridge's gateway address (docker: docker0, usually 172.17.0.1; podman:
 * 10.88.0.1), which is the runner itself as the container sees it. Only the runner and its
 * containers can reach that address; the token still gates every request.
 */
import { systemEnv } from '../child-env.js'
import { runOk } from '../process.js'
import { type ContainerConfig, DEFAULT_USER } from './container.js'
import { RUN_TOKEN, RUNTIME_VARS } from './container-run.js'

/** The gateway's address for container workers: the gateway address of their network. */
export async function containerGatewayHost(
  container: Pick<ContainerConfig, 'runtime' | 'network'>,
  env: NodeJS.ProcessEnv
): Promise<string> {
  const { runtime, network } = container
  const name = network === 'bridge' ? (runtime === 'podman' ? 'podman' : 'bridge') : network
  const format =
    runtime === 'podman'
      ? '{{range .Subnets}}{{.Gateway}} {{end}}'
      : '{{range .IPAM.Config}}{{.Gateway}} {{end}}'
  try {
    const { stdout } = await runOk(runtime, ['network', 'inspect', name, '--format', format], {
      env: systemEnv(env, RUNTIME_VARS),
      timeoutMs: 30_000
    })
    const host = stdout
      .trim()
      .split(/\s+/)
      .find(a => /^\d+\.\d+\.\d+\.\d+$/.test(a))
    if (host) return host
    throw new Error(`no IPv4 gateway in '${stdout.trim()}'`)
  } catch (error) {
    throw new Error(
      `isolation: container needs the model gateway on network '${name}''s gateway address, and '${runtime} network inspect ${name}' did not give one: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error }
    )
  }
}

/** The anchor container: idle, unprivileged and small. */
const ANCHOR = [
  ...['--cap-drop', 'ALL', '--security-opt', 'no-new-privileges'],
  ...['--memory', '64m', '--pids-limit', '8', '--user', DEFAULT_USER]
]

/**
 * Podman makes a network's bridge, and so its gateway address where the model gateway listens,
 * only while a container is attached: on a fresh runner none is. One idle anchor container holds
 * it up for the run; docker's bridges exist without one. Returns its removal.
 */
export async function holdNetwork(
  c: Pick<ContainerConfig, 'runtime' | 'image'>,
  network: string,
  o: { host: NodeJS.ProcessEnv; log: (m: string) => void }
): Promise<() => Promise<void>> {
  const name = network === 'bridge' ? 'podman' : network
  if (c.runtime !== 'podman') return () => Promise.resolve()
  const anchor = `fleet-${RUN_TOKEN}-anchor`
  // Long enough for the first start to pull the image, as a worker's would.
  const opts = { env: systemEnv(o.host, RUNTIME_VARS), timeoutMs: 600_000 }
  const args = [
    ...['run', '--detach', '--rm', '--name', anchor, '--label', 'fleet-worker=1'],
    ...['--network', name, ...ANCHOR, c.image, 'sleep', 'infinity']
  ]
  await runOk(c.runtime, args, opts).catch((error: unknown) => {
    throw new Error(
      `isolation: container could not start the container that holds network '${name}' up for the model gateway: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error }
    )
  })
  o.log(`container network: ${name} held up by ${anchor}`)
  return async () => {
    await runOk(c.runtime, ['rm', '--force', '--time', '0', anchor], opts)
  }
}
