// isolation: container with `network: allowed-domains`, through dist/ with podman and the real
// claude CLI: the run makes its own internal network, whose containers have no route out. A worker
// still reaches the model (the gateway on the network's gateway address) and, through the proxy,
// exactly the allowed-domains hosts; verify does too; a host not listed is refused and the summary
// says so; a direct connection, to the runner or beyond, finds no route. The network, its anchor
// container and the proxy are gone when the run ends. `network: none` is the same network with
// the model gateway alone. Skipped where podman cannot run here.
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RecordedRequest, script } from '../../demo/model-server.js'
import { byId, type Stack, startStack } from '../../demo/stack.js'
import { expectOk } from '../support/scenario.js'
import { IMAGE, containerInputs, podmanForFile, relayToBridge } from './container-support.js'
import { raw, type Service, service } from './proxy-support.js'

const exec = promisify(execFile)
const { podman, skipReason } = await podmanForFile('container networks e2e')
const { conf: CONTAINERS_CONF } = podman

function outputOf(requests: RecordedRequest[]): string {
  const text = requests.find(r => r.outcome === 'reply' && r.step === 1)?.toolResults.join('\n')
  if (text === undefined) throw new Error('no tool result')
  return text
}

/** What podman still has by `name`: an exit code of 0 means it is there. */
async function podmanHas(kind: 'network' | 'container', name: string): Promise<boolean> {
  const args = kind === 'network' ? ['network', 'exists', name] : ['container', 'exists', name]
  const env = { ...process.env, CONTAINERS_CONF }
  return exec('podman', args, { env }).then(
    () => true,
    () => false
  )
}

describe.skipIf(skipReason !== undefined)(
  `isolation: container on the run's own network: allowed-domains, none (podman, ${IMAGE})${skipReason ? ` skipped: ${skipReason}` : ''}`,
  () => {
    let stack: Stack
    let relay: Awaited<ReturnType<typeof relayToBridge>>
    let allowed: Service
    let other: Service
    let host: string

    beforeAll(async () => {
      stack = await startStack()
      relay = await relayToBridge(podman, stack.model.url)
      // Both services on the podman bridge's address: the runner's, and off the run's network.
      host = new URL(relay.baseUrl).hostname
      allowed = await service('allowed-service', host)
      other = await service('other-service', host)
    }, 300_000)

    afterAll(async () => {
      allowed?.close()
      other?.close()
      relay?.close()
      await stack?.close()
      await podman.close()
    })

    it('reaches the model and allowed-domains only; a direct connection finds no route; nothing is left', async () => {
      const [P, Q] = [allowed.port, other.port]
      const gitPort = new URL(stack.git.url).port
      const direct = (label: string, to: string) =>
        `timeout 5 bash -c "exec 3<>/dev/tcp/${to}" 2>/dev/null; echo "${label} => $?"`
      const command = [
        'echo "proxy=${HTTP_PROXY} https=${https_proxy} no=${NO_PROXY}"',
        raw('allowed', `GET http://${host}:${P}/ HTTP/1.1`),
        raw('other', `CONNECT ${host}:${Q} HTTP/1.1`),
        'g=${HTTP_PROXY#http://}; g=${g%:*}',
        direct('direct allowed', `${host}/${P}`),
        direct('direct runner git', `$g/${gitPort}`),
        direct('direct outside', '1.1.1.1/443'),
        // No DNS server on the network: the runtime's would answer any name (a covert channel).
        'echo "dns => $(grep -c "^nameserver $g$" /etc/resolv.conf)"',
        'echo probed > probed.txt'
      ].join('\n')
      const task = {
        id: 'egress',
        prompt: `Probe.\n${script({ key: 'egress', steps: [{ tool: 'Bash', input: { command } }, { text: 'Done.' }] })}`
      }
      // Verify reaches the allowed host through the proxy its environment names, or fails.
      const verify = `python3 -c "import urllib.request as u; b = u.urlopen('http://${host}:${P}/verify', timeout=10).read().decode(); assert b.startswith('allowed-service'), b"`
      const run = await stack.run({
        inputs: containerInputs(relay.baseUrl, {
          tasks: JSON.stringify([task]),
          'container-network': 'allowed-domains',
          'allowed-domains': `${host}:${P}`,
          verify
        }),
        env: { CONTAINERS_CONF }
      })
      expectOk(run)
      expect(byId(run).get('egress')?.status, run.stdout).toBe('pr-opened')

      const network =
        /container network: (fleet-[0-9a-f]+), internal; its proxy at ([\d.]+):(\d+)/.exec(
          run.stdout
        )
      expect(network, run.stdout).not.toBeNull()
      const [, name, gateway, proxyPort] = network ?? []
      expect(gateway).not.toBe(host)
      const lines = outputOf(stack.model.requestsFor('egress')).trim().split('\n')
      const proxy = `http://${gateway}:${proxyPort}`
      expect(lines[0]).toBe(`proxy=${proxy} https=${proxy} no=${gateway},localhost,127.0.0.1,::1`)
      expect(lines[1]).toBe(`allowed => HTTP/1.1 200 OK|allowed-service host=${host}:${P}`)
      expect(lines[2]).toMatch(
        /^other => HTTP\/1\.1 403 Forbidden\|fleet sandbox: .* is not in allowed-domains$/
      )
      for (const line of lines.slice(3, 6)) expect(line).toMatch(/ => [1-9]\d*$/)
      expect(lines.slice(6)).toEqual(['dns => 0'])
      // The worker's request and verify's: each through the proxy, which set the Host header.
      expect(allowed.hosts).toEqual([`${host}:${P}`, `${host}:${P}`])
      expect(other.hosts).toEqual([])
      expect(run.summary).toContain(
        `The allowed-domains proxy refused:\n- \`${host}:${Q}\` is not in allowed-domains`
      )

      expect(await podmanHas('network', name ?? '')).toBe(false)
      expect(await podmanHas('container', `${name}-anchor`)).toBe(false)
    }, 300_000)

    it("network: none is the run's own network with the model gateway alone: no proxy, no route out", async () => {
      const command = [
        'echo "proxy=${HTTP_PROXY:-unset} no=${NO_PROXY:-unset}"',
        `timeout 5 bash -c "exec 3<>/dev/tcp/${host}/${allowed.port}" 2>/dev/null; echo "direct runner => $?"`,
        'echo walled > walled.txt'
      ].join('\n')
      const task = {
        id: 'walled',
        prompt: `Probe.\n${script({ key: 'walled', steps: [{ tool: 'Bash', input: { command } }, { text: 'Done.' }] })}`
      }
      const run = await stack.run({
        inputs: containerInputs(relay.baseUrl, {
          tasks: JSON.stringify([task]),
          'container-network': 'none'
        }),
        env: { CONTAINERS_CONF }
      })
      expectOk(run)
      // Before, a worker on network none was given the gateway at its own loopback: every
      // attempt failed, "the model endpoint did not answer".
      expect(byId(run).get('walled')?.status, run.stdout).toBe('pr-opened')
      const named = /container network: (fleet-[0-9a-f]+), internal; the model gateway alone/.exec(
        run.stdout
      )
      expect(named, run.stdout).not.toBeNull()
      expect(outputOf(stack.model.requestsFor('walled')).trim().split('\n')).toEqual([
        'proxy=unset no=unset',
        expect.stringMatching(/^direct runner => [1-9]\d*$/)
      ])
      expect(await podmanHas('network', named?.[1] ?? '')).toBe(false)
    }, 300_000)

    it('a named podman network with no container on it yet: the run holds its bridge up for the gateway, and leaves the network', async () => {
      // Podman makes a network's bridge, and its gateway address, only while a container is
      // attached; a fresh runner has none attached, and the gateway must listen there first.
      const named = `fleet-e2e-named-${process.pid}`
      expect(podman.run('network', 'create', named).status).toBe(0)
      try {
        const task = {
          id: 'named',
          prompt: `Write.\n${script({ key: 'named', steps: [{ tool: 'Bash', input: { command: 'echo named > named.txt' } }, { text: 'Done.' }] })}`
        }
        const run = await stack.run({
          inputs: containerInputs(relay.baseUrl, {
            tasks: JSON.stringify([task]),
            'container-network': named
          }),
          env: { CONTAINERS_CONF }
        })
        expectOk(run)
        expect(byId(run).get('named')?.status, run.stdout).toBe('pr-opened')
        const anchor = /container network: (\S+) held up by (fleet-[0-9a-f]+-anchor)/.exec(
          run.stdout
        )
        expect(anchor?.[1], run.stdout).toBe(named)
        expect(await podmanHas('container', anchor?.[2] ?? '')).toBe(false)
        expect(await podmanHas('network', named)).toBe(true)
      } finally {
        podman.run('network', 'rm', '--force', named)
      }
    }, 300_000)

    it('a network that cannot be set up: each task not started, saying why, and nothing left', async () => {
      const task = {
        id: 'unset',
        prompt: `Write.\n${script({ key: 'unset', steps: [{ text: 'Done.' }] })}`
      }
      const before = stack.model.requests.length
      const run = await stack.run({
        inputs: {
          ...containerInputs(relay.baseUrl, { tasks: JSON.stringify([task]) }),
          'container-network': 'allowed-domains',
          // The anchor cannot start: no such image, and no registry to pull it from.
          'container-image': 'localhost/fleet-no-such-image:none'
        },
        env: { CONTAINERS_CONF }
      })
      expect(run.exitCode).toBe(1)
      const out = byId(run).get('unset')
      expect(out?.status, run.stdout).toBe('not-started')
      expect(out?.error).toMatch(
        /^not started: container: network: allowed-domains could not set up the run's internal network fleet-[0-9a-f]+: isolation: container could not start the container that holds network 'fleet-[0-9a-f]+' up for the model gateway: /
      )
      expect(stack.model.requests.length).toBe(before)
      const name = /internal network (fleet-[0-9a-f]+)/.exec(out?.error ?? '')?.[1] ?? ''
      expect(name).not.toBe('')
      expect(await podmanHas('network', name)).toBe(false)
    }, 300_000)
  }
)
