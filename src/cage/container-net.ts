/**
 * isolation: container — where its workers reach the model gateway. A container on a bridge
 * network cannot reach the runner's loopback, and host networking is refused, so the gateway
 * listens on the bridge's gateway address (docker: docker0, usually 172.17.0.1; podman:
 * 10.88.0.1), which is the runner itself as the container sees it. Only the runner and its
 * containers can reach that address; the token still gates every request.
 */
import { systemEnv } from '../child-env.js'
import { runOk } from '../process.js'
import type { ContainerConfig } from './container.js'
import { RUNTIME_VARS } from './container-run.js'

/** The gateway's address for container workers: the bridge's gateway, or loopback on network none. */
export async function containerGatewayHost(
  container: Pick<ContainerConfig, 'runtime' | 'network'>,
  env: NodeJS.ProcessEnv
): Promise<string> {
  const { runtime, network } = container
  if (network === 'none') return '127.0.0.1'
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
