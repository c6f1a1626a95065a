/**
 * isolation: container with `network: allowed-domains` (docs/container.md): the run's own internal
 * network, with no route out. Its containers reach the runner at the network's gateway address
 * only, where the action listens twice: the model gateway (engine.ts) and the same allowlisting
 * proxy the sandbox uses (sandbox-proxy.ts), which lets through the hosts of `allowed-domains`.
 * Made once per run and removed at its end (teardown.ts closeAtEnd).
 */
import type { AddressInfo, Socket } from 'node:net'
import { systemEnv } from '../child-env.js'
import { runOk } from '../process.js'
import { type ContainerConfig, type ContainerEgress, DEFAULT_USER } from './container.js'
import { containerGatewayHost } from './container-net.js'
import { RUNTIME_VARS, RUN_TOKEN } from './container-run.js'
import type { AllowRule } from './sandbox-allow.js'
import { allowProxy, type Blocked } from './sandbox-proxy.js'

export interface EgressNetwork {
  /** The network's name, for `--network`. */
  network: string
  /** The proxy's URL and what bypasses it, for every container of the run but a seal. */
  egress: ContainerEgress
  close(): Promise<void>
}

/** The anchor container: idle, unprivileged and small. */
const ANCHOR = [
  ...['--cap-drop', 'ALL', '--security-opt', 'no-new-privileges'],
  ...['--memory', '64m', '--pids-limit', '8', '--user', DEFAULT_USER]
]

/** The allowlisting proxy on `host`, any free port; its close ends every connection it has. */
async function listenProxy(
  host: string,
  o: { allowed: readonly AllowRule[]; blocked: Map<string, Blocked>; log: (m: string) => void }
): Promise<{ port: number; close(): Promise<void> }> {
  const proxy = allowProxy({ rules: o.allowed, blocked: o.blocked, log: o.log })
  const open = new Set<Socket>()
  proxy.on('connection', (socket: Socket) => {
    open.add(socket)
    socket.once('close', () => open.delete(socket))
  })
  await new Promise<void>((resolve, reject) => proxy.once('error', reject).listen(0, host, resolve))
  return {
    port: (proxy.address() as AddressInfo).port,
    close: async () => {
      for (const socket of open) socket.destroy()
      await new Promise(resolve => proxy.close(resolve))
    }
  }
}

/**
 * Creates the run's internal network, an idle anchor container on it (podman makes a network's
 * bridge, and so its gateway address, only while a container is attached; the action listens on
 * that address before any worker starts) and the proxy on its gateway address.
 */
export async function openEgressNetwork(
  c: Pick<ContainerConfig, 'runtime' | 'image'>,
  o: {
    host: NodeJS.ProcessEnv
    allowed: readonly AllowRule[]
    blocked: Map<string, Blocked>
    log: (m: string) => void
  }
): Promise<EgressNetwork> {
  const network = `fleet-${RUN_TOKEN}`
  const anchor = `${network}-anchor`
  // Long enough for the first start to pull the image, as a worker's would.
  const opts = { env: systemEnv(o.host, RUNTIME_VARS), timeoutMs: 600_000 }
  const runtime = (args: string[]) => runOk(c.runtime, args, opts)
  const removeAll = async () => {
    await runtime(['rm', '--force', '--time', '0', anchor]).catch(() => undefined)
    await runtime(['network', 'rm', '--force', network])
  }
  await runtime(['network', 'create', '--internal', '--label', 'fleet-worker=1', network])
  try {
    await runtime([
      ...['run', '--detach', '--rm', '--name', anchor, '--label', 'fleet-worker=1'],
      ...['--network', network, ...ANCHOR, c.image, 'sleep', 'infinity']
    ])
    const host = await containerGatewayHost({ runtime: c.runtime, network }, o.host)
    const proxy = await listenProxy(host, o)
    const port = proxy.port
    o.log(`container network: ${network}, internal; its proxy at ${host}:${port}`)
    return {
      network,
      egress: { proxy: `http://${host}:${port}`, noProxy: `${host},localhost,127.0.0.1,::1` },
      async close() {
        await proxy.close()
        await removeAll()
      }
    }
  } catch (error) {
    await removeAll().catch(() => undefined)
    throw new Error(
      `container: network: allowed-domains could not set up the run's internal network ${network}: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error }
    )
  }
}
