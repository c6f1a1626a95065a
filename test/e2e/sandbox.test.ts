// isolation: sandbox through dist/ with the real claude CLI, run as a hosted runner runs it: a
// non-root user with passwordless sudo, the checkout's token persisted in its .git/config, the
// GitHub token in the action's environment, a private file in the user's home and a loopback
// service beside the model endpoint. A hostile worker and a hostile verify look for all of it.
import { execFile } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { chmod, mkdtemp, rm, stat, writeFile } from 'node:fs/promises'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { expectOk, useStack, useTemp } from '../support/scenario.js'
import { type RecordedRequest, script } from '../../demo/model-server.js'
import {
  chownTree,
  makeRunnerUser,
  openPathsFor,
  runnerUserSkip,
  sandboxSupport
} from '../../demo/sandbox.js'
import { secrets } from '../../demo/leaks.js'
import { byId, GITHUB_TOKEN, OWNER, REPO, type Stack, startStack } from '../../demo/stack.js'
import { CLAUDE_CODE_VERSION } from '../../src/worker/install.js'
import { clonesLeft, fleetDir } from './faults-support.js'

const exec = promisify(execFile)
const FULL = `${OWNER}/${REPO}`
const support = await sandboxSupport()
const skipReason = await runnerUserSkip()

/** A task whose worker runs each command with Bash, one turn each, then says it is done. */
const bashTask = (id: string, commands: string[], extra: object = {}) => ({
  id,
  prompt: `Look around.\n${script({ key: id, steps: [...commands.map(command => ({ tool: 'Bash', input: { command } })), { text: 'Done.' }] })}`,
  ...extra
})

/** The output of the k-th command: the tool result the CLI sent back in the next request. */
function outputOf(requests: RecordedRequest[], k: number): string {
  const answered = requests.filter(r => r.outcome === 'reply' && r.step === k + 1)
  const text = answered[0]?.toolResults.join('\n')
  if (text === undefined) throw new Error(`no tool result for command ${k}`)
  return text
}

function httpService(body: string): Promise<{ port: number; hits: () => number; close(): void }> {
  let hits = 0
  const server = http.createServer((_req, res) => {
    hits++
    res.end(body)
  })
  return new Promise(resolve =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        port: (server.address() as AddressInfo).port,
        hits: () => hits,
        close: () => server.close()
      })
    )
  )
}

describe.skipIf(skipReason !== undefined)(
  `the sandbox against a hostile worker, as a non-root runner with sudo${skipReason ? ` (skipped: ${skipReason})` : ''}`,
  () => {
    let stack: Stack
    let home: string
    let user: Awaited<ReturnType<typeof makeRunnerUser>>
    let service: Awaited<ReturnType<typeof httpService>>
    let closePaths: (() => Promise<void>) | undefined
    const marker = randomBytes(6).toString('hex')
    const PRIVATE = `runner-private-${marker}`
    const LOOPBACK = `loopback-service-${marker}`

    beforeAll(async () => {
      stack = await startStack()
      home = await mkdtemp(path.join(tmpdir(), 'fleet-e2e-runner-home-'))
      user = await makeRunnerUser(home)
      await writeFile(path.join(home, 'private.txt'), `${PRIVATE}\n`, { mode: 0o600 })
      for (const dir of [home, stack.workspace, stack.home]) await chownTree(dir, user)
      // The runner user runs this checkout's dist/, node and claude wherever it was cloned: the
      // checkout's ancestors (this file's are the same) must let it through.
      closePaths = await openPathsFor([import.meta.filename, process.execPath])
      service = await httpService(LOOPBACK)
    })
    afterAll(async () => {
      await closePaths?.()
      service?.close()
      await user?.remove()
      await stack?.close()
      if (home) await rm(home, { recursive: true, force: true })
    })

    /** What a hostile task tries, one labelled line each; counts, never values, are printed. */
    const probe = () =>
      [
        `echo "ENVIRON=$(cat /proc/[0-9]*/environ 2>/dev/null | tr '\\0' '\\n' | grep -c -e GITHUB_TOKEN -e INPUT_ -e ACTIONS_ -e ghs_)"`,
        `echo "PIDS=$(ls -d /proc/[0-9]* | wc -l)"`,
        `echo "SUDO=$(sudo -n id 2>&1 | head -1)"`,
        `echo "SUDO-ENVIRON=$(sudo -n cat /proc/1/environ 2>&1 | tr '\\0' '\\n' | grep -c -e GITHUB -e INPUT_)"`,
        `echo "PRIVATE=$(cat '${home}/private.txt' 2>&1)"`,
        `echo "CHECKOUT=$(grep -c extraheader '${stack.workspace}/.git/config' 2>&1)"`,
        `echo "LOOPBACK=$(curl -sS -m 5 --noproxy '*' http://127.0.0.1:${service.port}/ 2>&1)"`,
        `echo "LOOPBACK-PROXY=$(curl -sS -m 5 --noproxy '' --proxy "$HTTP_PROXY" http://127.0.0.1:${service.port}/ 2>&1)"`,
        `for f in '${stack.workspace}/pwned' '${home}/pwned' '/tmp/pwned-${marker}'; do (echo x > "$f") 2>/dev/null && echo "WROTE=$f"; done`,
        `echo "OBJECTS=$(touch "$(cat "$(git rev-parse --git-common-dir)/objects/info/alternates")/pwned" 2>&1)"`
      ].join('\n')

    function expectNothingFound(out: string): void {
      expect(out).toMatch(/^ENVIRON=0$/m)
      // Its own PID namespace: a handful of processes (init, socat, the shell, claude), not the host's.
      const pids = Number(/^PIDS=(\d+)$/m.exec(out)?.[1])
      expect(pids).toBeGreaterThan(0)
      expect(pids).toBeLessThan(15)
      expect(out).toMatch(/^SUDO=.+/m)
      expect(out).not.toMatch(/uid=0/)
      expect(out).toMatch(/^SUDO-ENVIRON=0$/m)
      expect(out).toMatch(/^PRIVATE=cat: .*No such file or directory$/m)
      expect(out).not.toContain(PRIVATE)
      expect(out).toMatch(/^CHECKOUT=.*grep: .*No such file or directory$/m)
      expect(out).not.toContain(LOOPBACK)
      expect(out).toMatch(/^LOOPBACK=curl: \(7\)/m)
      expect(out).toMatch(
        /^LOOPBACK-PROXY=fleet sandbox: 127\.0\.0\.1:\d+ is not in allowed-domains$/m
      )
      expect(out).not.toMatch(/WROTE=\/(?!tmp\/pwned)/)
      expect(out).toMatch(/^OBJECTS=touch: .*Read-only file system$/m)
      for (const [name, secret] of Object.entries(secrets()))
        expect(out, `${name} visible`).not.toContain(secret)
    }

    async function expectHostUntouched(): Promise<void> {
      for (const f of [`${stack.workspace}/pwned`, `${home}/pwned`, `/tmp/pwned-${marker}`])
        expect(await stat(f).catch(() => undefined), f).toBeUndefined()
      expect(service.hits()).toBe(0)
    }

    it('a hostile worker finds nothing, yet commits its own work, which lands as a PR', async () => {
      // The runner really has passwordless sudo, outside the sandbox.
      const { stdout } = await exec('sudo', ['-u', user.name, 'sudo', '-n', 'id', '-u'])
      expect(stdout.trim()).toBe('0')
      const task = bashTask('hostile', [
        probe(),
        'echo mine > hostile.txt && git add hostile.txt && git commit -qm "hostile: own work" && git status --short && echo COMMIT-OK',
        // A directory in its own clone that its owner may not empty: the clone must go all the same.
        'd="$(git rev-parse --absolute-git-dir)/locked/in" && mkdir -p "$d" && touch "$d/f" && chmod 500 "$d" "${d%/in}" && echo LOCKED-OK',
        // The cage dir its home and its clone live in, made one its owner may not write.
        'chmod 500 "$HOME/.." && echo HOME-LOCKED-OK',
        // Trees deeper than a path may be long (600 × 9 bytes), which Node's rm cannot remove: in
        // its home, in its clone's git dir and in its files.
        `for d in "$HOME" "$(git rev-parse --absolute-git-dir)" "$PWD/deep"; do perl -e 'mkdir $ARGV[0]; chdir $ARGV[0] or die; for (1..600) { mkdir "dddddddd" or die; chdir "dddddddd" or die }' "$d" && echo DEEP-OK; done`
      ])
      const run = await stack.run({
        inputs: { tasks: JSON.stringify([task]) },
        env: { GITHUB_TOKEN, ACTIONS_RUNTIME_TOKEN: 'actions-runtime-token-e2e-0123456789' },
        user
      })
      expectOk(run)
      expect(run.stdout).toContain('sandbox: ')
      // Its version as the sandbox's check read it (the binary's one start of the preflight).
      expect(run.stdout).toContain(`claude: ${CLAUDE_CODE_VERSION} (`)
      const r = byId(run).get('hostile')
      expect(r?.status, r?.error ?? '').toBe('pr-opened')
      const requests = stack.model.requestsFor('hostile')
      expectNothingFound(outputOf(requests, 0))
      expect(outputOf(requests, 1)).toContain('COMMIT-OK')
      expect(outputOf(requests, 2)).toContain('LOCKED-OK')
      expect(outputOf(requests, 3)).toContain('HOME-LOCKED-OK')
      expect(outputOf(requests, 4).match(/DEEP-OK/g)).toHaveLength(3)
      // Its cage's teardown ran beside the push and ended before the action did, the locked
      // directories and the deep trees and all: nothing of its clone is left.
      const { cages, left } = await clonesLeft(path.join(await fleetDir(run), 'workers'))
      expect(cages).toBeGreaterThan(0)
      expect(left).toEqual([])
      expect(run.stdout).not.toContain("a cage's teardown failed")
      await expectHostUntouched()
      expect(await stack.git.readFile(FULL, 'fleet/hostile', 'hostile.txt')).toBe('mine\n')
      const subjects = (await stack.git.log(FULL, 'fleet/hostile', 3)).map(c => c.subject)
      expect(subjects).toContain('hostile: own work')
    })

    it('a hostile verify finds nothing either', async () => {
      // It also makes its clone one its owner may not write, which the clone's move out of its
      // cage dir (a directory's `..` rewritten) needs: the run must still end, nothing left.
      const lock = 'chmod 500 "$(git rev-parse --absolute-git-dir)/.." && echo CLONE-LOCKED-OK'
      const task = bashTask('hostile-verify', ['echo v > verified.txt'], {
        verify: `${probe()}\n${lock}`
      })
      const run = await stack.run({
        inputs: { tasks: JSON.stringify([task]) },
        env: { GITHUB_TOKEN },
        user
      })
      expectOk(run)
      expect(run.stdout).toContain('[hostile-verify] verify in the sandbox')
      const r = byId(run).get('hostile-verify')
      expect(r?.status, r?.error ?? '').toBe('pr-opened')
      const pr = stack.github.state.pulls.find(p => p.pull.head === 'fleet/hostile-verify')
      expect(pr?.body).toContain('### Verify: passed')
      expectNothingFound(pr?.body ?? '')
      expect(pr?.body).toContain('CLONE-LOCKED-OK')
      const { cages, left } = await clonesLeft(path.join(await fleetDir(run), 'workers'))
      expect(cages).toBeGreaterThan(0)
      expect(left).toEqual([])
      expect(run.stdout).not.toContain("a cage's teardown failed")
      await expectHostUntouched()
    })
  }
)

describe.skipIf(!support.ok)(
  `the sandbox's network allowlist${support.ok ? '' : ` (skipped: ${support.reason})`}`,
  () => {
    let stack: Stack
    let allowed: Awaited<ReturnType<typeof httpService>>
    let other: Awaited<ReturnType<typeof httpService>>
    beforeAll(async () => {
      stack = await startStack()
      allowed = await httpService('allowed-service-answered')
      other = await httpService('other-service-answered')
    })
    afterAll(async () => {
      allowed?.close()
      other?.close()
      await stack?.close()
    })

    it('reaches an allowed-domains host through the proxy, and no other', async () => {
      const get = (flags: string, url: string) =>
        `echo "$(curl -sS -m 5 ${flags} --noproxy '' --proxy "$HTTP_PROXY" ${url} 2>&1)"`
      const task = bashTask('egress', [
        [
          get('', `http://localhost:${allowed.port}/`),
          // -p: a CONNECT tunnel, as https goes.
          get('-p', `http://localhost:${allowed.port}/`),
          get('', `http://localhost:${other.port}/`),
          get('-p', `http://localhost:${other.port}/`),
          get('', `http://127.0.0.1:${other.port}/`)
        ].join('\n')
      ])
      const run = await stack.run({
        inputs: {
          tasks: JSON.stringify([task]),
          // The service listens on loopback: a name resolving there passes only with its address named.
          'allowed-domains': `localhost:${allowed.port},127.0.0.1:${allowed.port}`
        }
      })
      expectOk(run)
      const lines = outputOf(stack.model.requestsFor('egress'), 0).trim().split('\n')
      expect(lines[0]).toBe('allowed-service-answered')
      expect(lines[1]).toBe('allowed-service-answered')
      expect(lines[2]).toBe(`fleet sandbox: localhost:${other.port} is not in allowed-domains`)
      expect(lines[3]).toMatch(/^curl: \(56\) CONNECT tunnel failed, response 403/)
      expect(lines[4]).toBe(`fleet sandbox: 127.0.0.1:${other.port} is not in allowed-domains`)
      expect(allowed.hits()).toBe(2)
      expect(other.hits()).toBe(0)
      expect(run.stdout).toContain(`refused localhost:${other.port}: it is not in allowed-domains`)
    })
  }
)

describe('choosing no sandbox, and a sandbox that cannot start', () => {
  const stack = useStack()
  const fakeBin = useTemp('fleet-e2e-fake-bwrap-')

  it('isolation: process runs, and warns in the log and the summary', async () => {
    const task = bashTask('unboxed', ['echo open > open.txt'])
    const run = await stack.run({
      inputs: { tasks: JSON.stringify([task]), isolation: 'process' }
    })
    expectOk(run)
    expect(byId(run).get('unboxed')?.status).toBe('pr-opened')
    expect(run.stdout).toMatch(/^::warning::isolation: process gives workers no boundary/m)
    expect(run.summary).toContain('isolation: process gives workers no boundary')
  })

  it('a failing preflight ends the run before any model request, with the sentence naming the fix', async () => {
    // What Ubuntu 24.04's AppArmor restriction makes bwrap say, where nothing may lift it.
    const bwrap = path.join(fakeBin, 'bwrap')
    await writeFile(
      bwrap,
      '#!/bin/sh\necho "bwrap: setting up uid map: Permission denied" >&2\nexit 1\n'
    )
    await chmod(bwrap, 0o755)
    const before = stack.model.requests.length
    const pulls = stack.github.state.pulls.length
    const run = await stack.run({
      inputs: { tasks: JSON.stringify([bashTask('never', ['true'])]), isolation: 'sandbox' },
      env: { PATH: `${fakeBin}:${process.env.PATH ?? '/usr/bin:/bin'}` }
    })
    expect(run.exitCode).toBe(1)
    expect(run.stdout).toContain(
      "::error::isolation: sandbox cannot start on this runner (bwrap: setting up uid map: Permission denied): allow unprivileged user namespaces (on Ubuntu 24.04: sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0), or set isolation: container, or isolation: process (no boundary: workers can then read the runner's secrets and use sudo)."
    )
    expect(stack.model.requests.length).toBe(before)
    expect(stack.github.state.pulls.length).toBe(pulls)
    // The task still ends in one outcome, saying why.
    const never = byId(run).get('never')
    expect(never?.status).toBe('not-started')
    expect(never?.error).toMatch(/^not started: isolation: sandbox cannot start on this runner/)
  })
})
