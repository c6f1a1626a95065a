/**
 * isolation: container with `network: allowed-domains` or `none` (docs/container.md): the run's
 * own internal network, with no route out. Its containers reach the runner at the network's
 * gateway address only, where the action listens: the model gateway (engine.ts) and, with
 * allowed-domains, the same allowlisting proxy the sandbox uses (sandbox-proxy.ts), which lets
 * through the hosts of `allowed-domains`.
 * Made once per run and removed at its end (teardown.ts closeAtEnd).
 */
import type { AddressInfo, Socket } from 'node:net'
import { systemEnv } from '../child-env.js'
import { runOk } from '../process.js'
import { type ContainerConfig, type ContainerEgress, EGRESS_NETWORK } from './container.js'
import { containerGatewayHost, holdNetwork } from './container-net.js'
import { RUNTIME_VARS, RUN_TOKEN } from './container-run.js'
import type { AllowRule } from './sandbox-allow.js'
import { allowProxy, type Blocked } from './sandbox-proxy.js'

export interface EgressNetwork {
  /** The network's name, for `--network`. */
  network: string
  /** The proxy's URL and what bypasses it, for every container of the run but a seal; none without one. */
  egress?: ContainerEgress
  close(): Promise<void>
}

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

const CREATE = ['network', 'create', '--internal', '--label', 'fleet-worker=1']
const SUBNET = /^(\d{1,3}(?:\.\d{1,3}){3}\/\d{1,2}) (\d{1,3}(?:\.\d{1,3}){3})$/

/**
 * An `--internal` network. On podman also with no DNS server: podman's would answer any name from
 * inside (a covert channel), and an internal network without one gets no gateway address unless
 * one is named, with its subnet. So the network is made once as podman chooses a free subnet,
 * read, and made again on that subnet without DNS. Docker has no such switch.
 */
async function createInternal(
  runtime: ContainerConfig['runtime'],
  network: string,
  run: (args: string[]) => Promise<{ stdout: string }>
): Promise<void> {
  await run([...CREATE, network])
  if (runtime !== 'podman') return
  const format = '{{range .Subnets}}{{.Subnet}} {{.Gateway}}{{end}}'
  const { stdout } = await run(['network', 'inspect', network, '--format', format])
  const [, subnet, gateway] = SUBNET.exec(stdout.trim()) ?? []
  if (!subnet || !gateway) throw new Error(`no IPv4 subnet and gateway in '${stdout.trim()}'`)
  await run(['network', 'rm', '--force', network])
  await run([...CREATE, '--disable-dns', '--subnet', subnet, '--gateway', gateway, network])
}

/**
 * Creates the run's internal network, held up (holdNetwork) for the gateway to listen on its
 * gateway address before any worker starts, and the proxy on that address.
 */
export async function openEgressNetwork(
  c: Pick<ContainerConfig, 'runtime' | 'image'>,
  o: {
    host: NodeJS.ProcessEnv
    /** The proxy's rules; none: no proxy, the model gateway alone (network: none). */
    allowed?: readonly AllowRule[]
    blocked: Map<string, Blocked>
    log: (m: string) => void
  }
): Promise<EgressNetwork> {
  const network = `fleet-${RUN_TOKEN}`
  const opts = { env: systemEnv(o.host, RUNTIME_VARS), timeoutMs: 120_000 }
  const runtime = (args: string[]) => runOk(c.runtime, args, opts)
  let letGo = () => Promise.resolve()
  const removeAll = async () => {
    await letGo().catch(() => undefined)
    await runtime(['network', 'rm', '--force', network])
  }
  try {
    await createInternal(c.runtime, network, runtime)
    letGo = await holdNetwork(c, network, o)
    const host = await containerGatewayHost({ runtime: c.runtime, network }, o.host)
    const allowed = o.allowed
    if (!allowed) {
      o.log(`container network: ${network}, internal; the model gateway alone (network: none)`)
      return { network, close: removeAll }
    }
    const proxy = await listenProxy(host, { ...o, allowed })
    o.log(`container network: ${network}, internal; its proxy at ${host}:${proxy.port}`)
    return {
      network,
      egress: {
        proxy: `http://${host}:${proxy.port}`,
        noProxy: `${host},localhost,127.0.0.1,::1`
      },
      async close() {
        await proxy.close()
        await removeAll()
      }
    }
  } catch (error) {
    await removeAll().catch(() => undefined)
    throw new Error(
      `container: network: ${o.allowed ? EGRESS_NETWORK : 'none'} could not set up the run's internal network ${network}: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error }
    )
  }
}
