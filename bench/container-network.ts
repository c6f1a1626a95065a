// What the run's own container network costs (docs/container.md, "The egress allowlist"): one
// one-file task through dist/ with the real CLI in a podman container, on `bridge`, on
// `allowed-domains` (the run's internal network, its anchor and the proxy) and on `none` (the
// same network, no proxy), rounds alternated. Prints each run's wall time, the medians and the
// load average. Needs podman and the image scripts/podman-check.sh builds.
// Run: npm run bench:container-network (BENCH_ROUNDS=3 by default).
import { loadavg } from 'node:os'
import { byId, startStack } from '../demo/stack.js'
import { script } from '../demo/model-server.js'
import { containerInputs, podmanForFile, relayToBridge } from '../test/e2e/container-support.js'

const rounds = Number(process.env.BENCH_ROUNDS ?? 3)
const networks = ['bridge', 'allowed-domains', 'none']

const { podman, skipReason } = await podmanForFile('bench:container-network')
if (skipReason) process.exit(1)
const stack = await startStack()
const relay = await relayToBridge(podman, stack.model.url)
const times = new Map<string, number[]>(networks.map(n => [n, []]))
try {
  for (let round = 0; round < rounds; round++) {
    for (const network of networks) {
      const id = `net-${round}-${network.replace(/\W/g, '')}`
      const steps = [{ tool: 'Bash', input: { command: 'echo ok > ok.txt' } }, { text: 'Done.' }]
      const task = { id, prompt: `Write a file.\n${script({ key: id, steps })}` }
      const started = Date.now()
      const run = await stack.run({
        inputs: containerInputs(relay.baseUrl, {
          tasks: JSON.stringify([task]),
          'container-network': network
        }),
        env: { CONTAINERS_CONF: podman.conf }
      })
      const ms = Date.now() - started
      const status = byId(run).get(id)?.status
      if (status !== 'pr-opened') throw new Error(`${network}: ${status}\n${run.stdout}`)
      times.get(network)?.push(ms)
    }
  }
} finally {
  relay.close()
  await stack.close()
  await podman.close()
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0
const base = median(times.get('bridge') ?? [])
for (const [network, ms] of times) {
  const m = median(ms)
  console.log(
    `${network}: ${ms.map(t => `${t} ms`).join(', ')}; median ${m} ms (${m - base >= 0 ? '+' : ''}${m - base} ms against bridge)`
  )
}
console.log(
  `load ${loadavg()
    .map(l => l.toFixed(2))
    .join(' ')}`
)
