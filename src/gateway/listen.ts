import type { ContainerRuntime } from '../worker/container.js'
import { runOk } from '../process.js'
import { systemEnv } from '../child-env.js'
import { RUNTIME_VARS } from '../worker/container-run.js'

/** Where the gateway listens and the URL host its workers use. */
export interface Listening {
  host: string
}

/**
 * Process workers reach the gateway on 127.0.0.1 (the sandbox's one allowed address). A container
 * on a bridge network cannot reach the runner's loopback, and host networking is refused, so for
 * container workers the gateway listens on the bridge's gateway address (docker: docker0, usually
 * 172.17.0.1; podman: 10.88.0.1), which is the runner itself as the container sees it. Only the
 * runner and its containers can reach that address; the token still gates every request.
 */
export async function listening(
  config: { isolation: string; container: { runtime: ContainerRuntime; network: string } },
  env: NodeJS.ProcessEnv
): Promise<Listening> {
  if (config.isolation !== 'container' || config.container.network === 'none')
    return { host: '127.0.0.1' }
  const { runtime, network } = config.container
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
    if (host) return { host }
    throw new Error(`no IPv4 gateway in '${stdout.trim()}'`)
  } catch (error) {
    throw new Error(
      `isolation: container needs the model gateway on network '${name}''s gateway address, and '${runtime} network inspect ${name}' did not give one: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error }
    )
  }
}
