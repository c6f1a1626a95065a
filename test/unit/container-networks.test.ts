// The runtime commands behind container networks (cage/container-egress.ts, container-net.ts),
// against a stand-in runtime CLI that records its arguments: docker cannot run on these machines,
// so this is its one check. What the commands do is proven with real podman in
// test/e2e/container-networks.test.ts; here, what the action asks of each runtime and in which
// order, that the proxy answers on the address the runtime gave, and that the run's end removes
// what it made.
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import net from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { parseConfig } from '../../src/config.js'
import { inputEnvName } from '../../src/inputs.js'
import { prepareIsolation } from '../../src/cage/isolation.js'
import { settleCages } from '../../src/cage/teardown.js'

let dir: string
let calls: string

/** A runtime CLI that logs each call and answers an inspect with loopback, the one address here. */
async function standIn(name: 'docker' | 'podman'): Promise<NodeJS.ProcessEnv> {
  const file = path.join(dir, name)
  await writeFile(
    file,
    [
      '#!/bin/sh',
      `echo "$*" >> ${calls}`,
      'case "$*" in',
      '  *"network inspect"*Subnet*) echo "127.0.0.0/8 127.0.0.1" ;;',
      '  *"network inspect"*) echo "127.0.0.1 " ;;',
      'esac',
      ''
    ].join('\n')
  )
  await chmod(file, 0o755)
  return { PATH: `${dir}:${process.env.PATH ?? '/usr/bin:/bin'}` }
}

const prepared = (inputs: Record<string, string>, host: NodeJS.ProcessEnv, log: string[]) =>
  prepareIsolation(
    parseConfig(Object.fromEntries(Object.entries(inputs).map(([k, v]) => [inputEnvName(k), v]))),
    { host, log: m => log.push(m) }
  )

/** A CONNECT through the proxy at `url`: the status line it answers. */
function connectThrough(url: string, target: string): Promise<string> {
  const { hostname, port } = new URL(url)
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () =>
      socket.write(`CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n\r\n`)
    )
    socket.once('data', data => {
      resolve(data.toString().split('\r\n')[0] ?? '')
      socket.destroy()
    })
    socket.once('error', reject)
  })
}

const recorded = async () => (await readFile(calls, 'utf8')).trim().split('\n')

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'fleet-runtime-'))
  calls = path.join(dir, 'calls')
  await writeFile(calls, '')
})
afterEach(() => rm(dir, { recursive: true, force: true }))

describe('network: allowed-domains', () => {
  it('docker: an internal network, no anchor, the proxy on its gateway; removed at the end', async () => {
    const log: string[] = []
    const host = await standIn('docker')
    const iso = await prepared(
      { isolation: 'container', container: '{network: allowed-domains}' },
      host,
      log
    )
    const [made, inspected] = await recorded()
    expect(made).toMatch(/^network create --internal --label fleet-worker=1 (fleet-[0-9a-f]{8})$/)
    const network = /(fleet-[0-9a-f]{8})$/.exec(made ?? '')?.[1] ?? ''
    expect(inspected).toBe(
      `network inspect ${network} --format {{range .IPAM.Config}}{{.Gateway}} {{end}}`
    )
    expect(await recorded()).toHaveLength(2)
    const proxy = /its proxy at (127\.0\.0\.1:\d+)/.exec(log.join('\n'))?.[1]
    expect(proxy, log.join('\n')).toBeDefined()
    expect(await iso.gatewayHost(host)).toBe('127.0.0.1')
    expect(await connectThrough(`http://${proxy}`, 'example.org:443')).toBe(
      'HTTP/1.1 403 Forbidden'
    )
    expect(iso.refused()).toEqual([
      '`example.org:443` is not in allowed-domains; to allow it, add `example.org` to `allowed-domains`'
    ])

    await settleCages()
    expect((await recorded()).slice(3)).toEqual([`network rm --force ${network}`])
    await expect(connectThrough(`http://${proxy}`, 'example.org:443')).rejects.toThrow(
      /ECONNREFUSED/
    )
  })

  it('podman: made again without DNS on the subnet it chose, held up by an anchor', async () => {
    const log: string[] = []
    await prepared(
      { isolation: 'container', container: '{runtime: podman, network: allowed-domains}' },
      await standIn('podman'),
      log
    )
    const network = /(fleet-[0-9a-f]{8})$/.exec((await recorded())[0] ?? '')?.[1] ?? ''
    const anchor = `${network}-anchor`
    expect((await recorded()).slice(0, 5)).toEqual([
      `network create --internal --label fleet-worker=1 ${network}`,
      `network inspect ${network} --format {{range .Subnets}}{{.Subnet}} {{.Gateway}}{{end}}`,
      `network rm --force ${network}`,
      `network create --internal --label fleet-worker=1 --disable-dns --subnet 127.0.0.0/8 --gateway 127.0.0.1 ${network}`,
      `run --detach --rm --name ${anchor} --label fleet-worker=1 --network ${network} --cap-drop ALL --security-opt no-new-privileges --memory 64m --pids-limit 8 --user 1001:1001 ghcr.io/fleet-worker/fleet-worker-worker:0.1.0 sleep infinity`
    ])
    await settleCages()
    expect((await recorded()).slice(-2)).toEqual([
      `rm --force --time 0 ${anchor}`,
      `network rm --force ${network}`
    ])
  })
})

describe('a network of the runner', () => {
  it('podman bridge: the anchor starts when the gateway first asks, once, and goes at the end', async () => {
    const host = await standIn('podman')
    const iso = await prepared({ isolation: 'container', container: '{runtime: podman}' }, host, [])
    expect(await recorded()).toEqual([''])
    await iso.gatewayHost(host)
    await iso.gatewayHost(host)
    const runs = (await recorded()).filter(c => c.startsWith('run '))
    expect(runs).toHaveLength(1)
    expect(runs[0]).toContain('--network podman ')
    const anchor = / --name (fleet-[0-9a-f]{8}-anchor) /.exec(runs[0] ?? '')?.[1]
    await settleCages()
    expect((await recorded()).at(-1)).toBe(`rm --force --time 0 ${anchor}`)
  })

  it('docker bridge: nothing started', async () => {
    const host = await standIn('docker')
    const iso = await prepared({ isolation: 'container' }, host, [])
    expect(await iso.gatewayHost(host)).toBe('127.0.0.1')
    await settleCages()
    expect(await recorded()).toEqual([
      'network inspect bridge --format {{range .IPAM.Config}}{{.Gateway}} {{end}}'
    ])
  })
})
