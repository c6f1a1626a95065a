// What an e2e test of isolation: container needs around podman: the image (built once when
// missing, as container.test.ts does), a containers.conf with rlimits this VM allows, the reason
// to skip where podman cannot run, and the model server relayed onto the podman bridge, which a
// bridge-network container can reach (the host's loopback it cannot).
import { spawnSync } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import net from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'

export const IMAGE = process.env.FLEET_E2E_IMAGE ?? 'localhost/fleet-worker:check'
const ROOT = path.resolve(import.meta.dirname, '../..')

export interface Podman {
  /** The containers.conf the action's runtime CLI is given (CONTAINERS_CONF). */
  conf: string
  run(...args: string[]): ReturnType<typeof spawnSync>
  close(): Promise<void>
}

/** A podman with this VM's rlimits (its defaults make runc fail here: scripts/podman-check.sh). */
export async function podmanHere(): Promise<Podman> {
  const dir = await mkdtemp(path.join(tmpdir(), 'fleet-e2e-podman-'))
  const conf = path.join(dir, 'containers.conf')
  await writeFile(
    conf,
    '[containers]\ndefault_ulimits = ["nofile=16384:16384", "nproc=8192:8192"]\n'
  )
  const env = { ...process.env, CONTAINERS_CONF: conf }
  return {
    conf,
    run: (...args) => spawnSync('podman', args, { env, encoding: 'utf8', timeout: 60_000 }),
    close: () => rm(dir, { recursive: true, force: true })
  }
}

/** Why container tests cannot run here, or undefined. Builds the image once if it is missing. */
export function podmanUnavailable(p: Podman): string | undefined {
  const info = p.run('info', '--format', '{{.Host.OCIRuntime.Name}}')
  if (info.status !== 0) return `podman info failed: ${String(info.stderr || info.error?.message)}`
  if (p.run('image', 'exists', IMAGE).status !== 0) {
    if (process.getuid?.() !== 0) return `image ${IMAGE} is missing and building it needs root`
    const built = spawnSync('bash', [path.join(ROOT, 'scripts/podman-check.sh')], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 900_000
    })
    if (p.run('image', 'exists', IMAGE).status !== 0)
      return `image ${IMAGE} could not be built: ${(built.stdout + built.stderr).slice(-800)}`
  }
  const smoke = p.run('run', '--rm', '--network', 'none', IMAGE, 'true')
  return smoke.status === 0
    ? undefined
    : `podman cannot start a container here: ${String(smoke.stderr || smoke.error?.message).slice(-400)}`
}

/** A test file's podman, and why its tests skip if they do: said once, and podman closed at once. */
export async function podmanForFile(
  what: string
): Promise<{ podman: Podman; skipReason?: string }> {
  const podman = await podmanHere()
  const skipReason = podmanUnavailable(podman)
  if (skipReason) {
    console.warn(`${what} skipped: ${skipReason}`)
    await podman.close()
  }
  return { podman, skipReason }
}

/**
 * The model server at `modelUrl` relayed onto the podman bridge's gateway address, which exists
 * while a container is attached: an idle anchor container keeps it up until `close`.
 */
export async function relayToBridge(
  p: Podman,
  modelUrl: string
): Promise<{ baseUrl: string; close(): void }> {
  const anchor = `fleet-e2e-anchor-${process.pid}-${Date.now()}`
  const started = p.run(
    'run',
    '-d',
    '--rm',
    '--name',
    anchor,
    '--network',
    'bridge',
    IMAGE,
    'sleep',
    '900'
  )
  if (started.status !== 0) throw new Error(`anchor container: ${String(started.stderr)}`)
  const gateway = String(
    p.run('network', 'inspect', 'podman', '--format', '{{range .Subnets}}{{.Gateway}}{{end}}')
      .stdout
  ).trim()
  const modelPort = Number(new URL(modelUrl).port)
  const relay = net.createServer(client => {
    const upstream = net.connect(modelPort, '127.0.0.1')
    client.pipe(upstream).pipe(client)
    client.on('error', () => upstream.destroy())
    upstream.on('error', () => client.destroy())
  })
  await new Promise<void>((resolve, reject) =>
    relay.once('error', reject).listen(0, gateway, resolve)
  )
  return {
    baseUrl: `http://${gateway}:${(relay.address() as net.AddressInfo).port}`,
    close: () => {
      relay.close()
      p.run('rm', '--force', '--time', '0', anchor)
    }
  }
}

/** The action's inputs for isolation: container with podman and the test image, and `extra`. */
export const containerInputs = (baseUrl: string, extra: Record<string, string>) => ({
  isolation: 'container',
  'container-runtime': 'podman',
  'container-image': IMAGE,
  'container-cpus': '1',
  'container-memory': '1g',
  'container-pids-limit': '256',
  'base-url': baseUrl,
  ...extra
})
