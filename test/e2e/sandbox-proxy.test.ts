// The sandbox's egress proxy against a worker that speaks to it directly (bash's /dev/tcp), through
// dist/ with the real claude CLI: every way of writing the runner's loopback or the cloud metadata
// address as an IP literal, and an allowed name that resolves to loopback, are refused; names the
// workflow allows still work, with the Host header set from the target; the summary lists what was
// refused with the entry that would allow it.
//
// The test's services listen on 127.0.0.1, which is exactly what the proxy refuses for a name. So
// the allowed service is named twice in allowed-domains: `localhost:P` (the name the worker uses)
// and `127.0.0.1:P` / `[::1]:P` (the addresses it resolves to, named as a rule must name them).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { expectOk } from '../support/scenario.js'
import { type RecordedRequest, script } from '../../demo/model-server.js'
import { sandboxSupport } from '../../demo/sandbox.js'
import { byId, type Stack, startStack } from '../../demo/stack.js'
import { raw, type Service, service } from './proxy-support.js'

const support = await sandboxSupport()

const bashTask = (id: string, command: string) => ({
  id,
  prompt: `Probe.\n${script({ key: id, steps: [{ tool: 'Bash', input: { command } }, { text: 'Done.' }] })}`
})

function outputOf(requests: RecordedRequest[]): string {
  const text = requests.find(r => r.outcome === 'reply' && r.step === 1)?.toolResults.join('\n')
  if (text === undefined) throw new Error('no tool result')
  return text
}

describe.skipIf(!support.ok)(
  `the sandbox proxy against a worker that calls it directly${support.ok ? '' : ` (skipped: ${support.reason})`}`,
  () => {
    let stack: Stack
    let allowed: Service
    let other: Service
    beforeAll(async () => {
      stack = await startStack()
      allowed = await service('allowed-service')
      other = await service('other-service')
    })
    afterAll(async () => {
      allowed?.close()
      other?.close()
      await stack?.close()
    })

    it('refuses every IP-literal form and a name resolving to loopback; allowed names work', async () => {
      const P = allowed.port
      const Q = other.port
      const curl = (flags: string, url: string) =>
        `echo "$(curl -sS -m 10 ${flags} --noproxy '' --proxy "$HTTP_PROXY" ${url} 2>&1)"`
      const forms = [
        '127.0.0.1',
        '2130706433',
        '0177.0.0.1',
        '0x7f.1',
        '127.1',
        '[::ffff:127.0.0.1]',
        '[::ffff:127.0.0.1%x.example.com]',
        '[::1%x.example.com]'
      ]
      const command = [
        // Domain fronting: the worker's Host header must not reach the upstream.
        curl(`-H 'Host: fronted.example.org'`, `http://localhost:${P}/`),
        curl('-p', `http://localhost:${P}/`),
        curl('', `http://127.0.0.1:${P}/`),
        ...forms.map(f => raw(`CONNECT ${f}`, `CONNECT ${f}:${Q} HTTP/1.1`)),
        ...forms.map(f => raw(`GET ${f}`, `GET http://${f}:${Q}/ HTTP/1.1`)),
        raw('CONNECT metadata', 'CONNECT 169.254.169.254:80 HTTP/1.1'),
        raw('GET metadata', 'GET http://0xa9fea9fe/latest/meta-data/ HTTP/1.1'),
        raw('CONNECT name-to-loopback', `CONNECT localhost:${Q} HTTP/1.1`),
        raw('CONNECT wildcard-to-loopback', `CONNECT localhost.example.com:${Q} HTTP/1.1`)
      ].join('\n')
      const run = await stack.run({
        inputs: {
          tasks: JSON.stringify([bashTask('proxy', command)]),
          'allowed-domains': `localhost:${P},127.0.0.1:${P},[::1]:${P},localhost:${Q},*.example.com`
        }
      })
      expectOk(run)
      expect(byId(run).get('proxy')?.status).toBeDefined()
      const lines = outputOf(stack.model.requestsFor('proxy')).trim().split('\n')
      expect(lines[0]).toBe(`allowed-service host=localhost:${P}`)
      expect(lines[1]).toBe(`allowed-service host=localhost:${P}`)
      expect(lines[2]).toBe(`allowed-service host=127.0.0.1:${P}`)
      expect(allowed.hosts).toEqual([`localhost:${P}`, `localhost:${P}`, `127.0.0.1:${P}`])
      const refusals = lines.slice(3)
      expect(refusals).toHaveLength(forms.length * 2 + 4)
      for (const line of refusals) {
        // A zone id is no URL: node's HTTP parser answers 400 before the proxy sees it.
        if (/^GET \[.*%/.test(line)) expect(line).toMatch(/ => HTTP\/1\.1 400 Bad Request/)
        else expect(line).toMatch(/ => HTTP\/1\.1 403 Forbidden\|fleet sandbox: /)
      }
      expect(other.hosts).toEqual([])
      expect(lines.find(l => l.startsWith('CONNECT name-to-loopback'))).toContain(
        `localhost:${Q} resolves to 127.0.0.1, a loopback address not in allowed-domains`
      )
      // The summary lists each refused target once, with the entry that would allow it.
      expect(run.summary).toContain('The allowed-domains proxy refused:')
      expect(run.summary).toContain(
        `\`[::ffff:127.0.0.1%x.example.com]:${Q}\` is not in allowed-domains; to allow it, add \`127.0.0.1:${Q}\` to \`allowed-domains\``
      )
      expect(run.summary).toContain(
        '`169.254.169.254:80` is not in allowed-domains; to allow it, add `169.254.169.254` to `allowed-domains`'
      )
      expect(run.summary).toContain(
        `\`localhost:${Q}\` resolves to 127.0.0.1, a loopback address not in allowed-domains; to allow it, add \`127.0.0.1:${Q}\``
      )
      expect(run.stdout).toContain(
        `allowed-domains proxy: refused localhost:${Q}: it resolves to 127.0.0.1`
      )
    })
  }
)
