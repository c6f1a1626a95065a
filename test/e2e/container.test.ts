// isolation: container through dist/ with podman and the image scripts/podman-check.sh builds: a
// worker commits from inside its container and the work lands; it cannot see the checkout; a
// timeout kills its container. Skipped (with the reason) where podman cannot run here.
import { execFile } from 'node:child_process'
import { readdir } from 'node:fs/promises'
import path from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { expectOk } from '../support/scenario.js'
import { type RecordedRequest, script } from '../../demo/model-server.js'
import { secrets } from '../../demo/leaks.js'
import { byId, GITHUB_TOKEN, OWNER, REPO, type Stack, startStack } from '../../demo/stack.js'
import {
  expectNoOrphans,
  processesMentioning,
  signalAction,
  uniqueSleep,
  waitForAsync
} from './faults-support.js'
import { IMAGE, podmanForFile, relayToBridge, containerInputs } from './container-support.js'

const exec = promisify(execFile)
const { podman, skipReason } = await podmanForFile('container e2e')
const { conf: CONTAINERS_CONF } = podman
const podmanEnv = { ...process.env, CONTAINERS_CONF }

/** A task whose worker runs each command with Bash, one turn each, then says it is done. */
const bashTask = (id: string, commands: string[], extra: object = {}) => ({
  id,
  prompt: `Inspect the cage.\n${script({ key: id, steps: [...commands.map(command => ({ tool: 'Bash', input: { command } })), { text: 'Done.' }] })}`,
  ...extra
})

function outputOf(requests: RecordedRequest[], k: number): string {
  const text = requests.find(r => r.outcome === 'reply' && r.step === k + 1)?.toolResults.join('\n')
  if (text === undefined)
    throw new Error(
      `no tool result for command ${k}: ${JSON.stringify(requests.map(r => [r.step, r.outcome]))}`
    )
  return text
}

/** Every container the run's log names (workers', setup's, verify's, its network's anchor): none may be left. */
async function expectNoContainers(stdout: string): Promise<void> {
  const names = [...stdout.matchAll(/ container (fleet-[a-z0-9._-]+)/g)].map(m => m[1] ?? '')
  expect(names.length, stdout).toBeGreaterThan(0)
  const anchor = / held up by (fleet-[a-z0-9-]+-anchor)$/m.exec(stdout)?.[1]
  expect(anchor, stdout).toBeDefined()
  names.push(anchor ?? '')
  for (const name of new Set(names)) {
    const left = await exec(
      'podman',
      ['ps', '--all', '--filter', `name=^${name}$`, '--format', '{{.Names}}'],
      { env: podmanEnv }
    )
    expect(left.stdout.trim(), `container ${name} left`).toBe('')
  }
}

/** The names of this run's containers, from the action's log line for each. */
const containerNames = (stdout: string) =>
  [...stdout.matchAll(/\] container (fleet-[a-z0-9._-]+) \(/g)].map(m => m[1] ?? '')

const RUNNER_SECRETS = {
  GITHUB_TOKEN,
  ACTIONS_RUNTIME_TOKEN: 'actions-runtime-token-e2e-0123456789',
  DEPLOY_PASSWORD: 'deploy-password-e2e-0123456789'
}

describe.skipIf(skipReason !== undefined)(
  `isolation: container (podman, ${IMAGE})${skipReason ? ` skipped: ${skipReason}` : ''}`,
  () => {
    let stack: Stack
    let relay: Awaited<ReturnType<typeof relayToBridge>>

    beforeAll(async () => {
      stack = await startStack()
      // The model server listens on the host's loopback, which a bridge-network container cannot
      // reach (and host networking is refused on purpose): relayed onto the podman bridge.
      relay = await relayToBridge(podman, stack.model.url)
    }, 300_000)

    afterAll(async () => {
      relay?.close()
      await stack?.close()
      await podman.close()
    })

    const inputs = (extra: Record<string, string>) => containerInputs(relay.baseUrl, extra)

    it('runs a worker in its container: its commit lands on the branch and the PR opens', async () => {
      const content = 'written inside a container\n'
      const task = {
        id: 'boxed',
        prompt: `Write and commit a file.\n${script({
          key: 'boxed',
          steps: [
            { tool: 'Write', input: { file_path: '/workspace/boxed.txt', content } },
            {
              tool: 'Bash',
              input: {
                command:
                  'git add boxed.txt && git commit -q -m "boxed: committed in the container" && id -u && git rev-parse --abbrev-ref HEAD'
              }
            },
            { text: 'Committed.' }
          ]
        })}`
      }
      const run = await stack.run({
        inputs: inputs({ tasks: JSON.stringify([task]) }),
        env: { CONTAINERS_CONF }
      })
      expectOk(run)
      expect(byId(run).get('boxed')?.status).toBe('pr-opened')
      expect(containerNames(run.stdout)).toHaveLength(1)

      // uid 1001 (the action runs as root here), on the task's branch in its own clone.
      const ran = outputOf(stack.model.requestsFor('boxed'), 1)
      expect(ran.split('\n').map(l => l.trim())).toEqual(
        expect.arrayContaining(['1001', 'fleet/boxed'])
      )
      expect(await stack.git.readFile(`${OWNER}/${REPO}`, 'fleet/boxed', 'boxed.txt')).toBe(content)
      // The worker's own commit came back from its clone, authored as the action's identity.
      const log = await stack.git.log(`${OWNER}/${REPO}`, 'fleet/boxed', 3)
      expect(log[0]?.subject).toBe('boxed: committed in the container')
      expect(log[0]?.author).toMatch(/^github-actions\[bot\] </)
      expect(stack.github.state.pulls.map(p => p.pull.head)).toContain('fleet/boxed')
    }, 300_000)

    it('runs verify in a container too: the worker wrote what it runs', async () => {
      const ws = stack.workspace
      const writes = (id: string, testScript: string) => ({
        id,
        prompt: `Add a test script.\n${script({
          key: id,
          steps: [
            {
              tool: 'Write',
              input: {
                file_path: '/workspace/package.json',
                content: JSON.stringify({ name: id, private: true, scripts: { test: testScript } })
              }
            },
            { text: 'Added.' }
          ]
        })}`
      })
      // The checkout exists on the runner, not in a container: this verify passes only inside one.
      const inside = `test ! -e ${ws} && test "$(id -u)" = 1001 && echo verified-inside`
      const tasks = [writes('verify-ok', inside), writes('verify-bad', 'echo boom-in-box; exit 4')]
      const run = await stack.run({
        inputs: inputs({ tasks: JSON.stringify(tasks), verify: 'npm test' }),
        env: { CONTAINERS_CONF }
      })
      const out = byId(run)
      expect(out.get('verify-ok')?.status, run.stdout).toBe('pr-opened')
      expect(out.get('verify-bad')?.status, run.stdout).toBe('verify-failed')
      expect(run.stdout).toMatch(/\[verify-ok\] verify in container fleet-/)
      const bad = stack.github.state.pulls.find(p => p.pull.head === 'fleet/verify-bad')
      expect(bad?.body).toContain('boom-in-box')
      expect(bad?.pull.draft).toBe(true)
      // Finished (one passed, one failed): no container and no process of the run is left.
      await expectNoContainers(run.stdout)
      await expectNoOrphans(run)
    }, 300_000)

    it('runs setup in a container too: the worker and verify see what it made, its own git commits none of it', async () => {
      const ws = stack.workspace
      // Passes only inside a container: the checkout is not there, and the user is uid 1001.
      const setup = `test ! -e ${ws} && test "$(id -u)" = 1001 && mkdir -p prep && echo prepared-inside > prep/ready.txt`
      const task = bashTask('set-up', [
        'cp prep/ready.txt seen.txt && git add -A && git commit -qm "Use what setup made"'
      ])
      const run = await stack.run({
        inputs: inputs({
          tasks: JSON.stringify([task]),
          setup,
          verify: 'grep -q prepared-inside prep/ready.txt'
        }),
        env: { CONTAINERS_CONF }
      })
      expectOk(run)
      expect(byId(run).get('set-up')?.status).toBe('pr-opened')
      const full = `${OWNER}/${REPO}`
      expect(await stack.git.readFile(full, 'fleet/set-up', 'seen.txt')).toBe('prepared-inside\n')
      expect(await stack.git.readFile(full, 'fleet/set-up', 'prep/ready.txt')).toBeUndefined()
    }, 300_000)

    it('hides the checkout, the fleet clone and the runner from a worker', async () => {
      const ws = stack.workspace
      const task = bashTask('cage', [
        // PID 1 is tini: its environment is everything the container was given. The worker holds
        // a model gateway token, never the model key.
        "tr '\\0' '\\n' </proc/1/environ",
        'ls -a /; echo ---; ls -a /tmp; echo ---; id',
        `cat '${ws}/.git/config' 2>&1; test -e '${ws}' && echo WORKSPACE-VISIBLE || echo WORKSPACE-ABSENT`,
        'alt=$(cat "$GIT_DIR/objects/info/alternates"); echo ALT=$alt; ls -a "$(dirname "$alt")"; cat "$(dirname "$alt")/config" 2>&1; git rev-parse --abbrev-ref HEAD; touch "$alt/planted" 2>&1 || echo OBJECTS-READONLY'
      ])
      const run = await stack.run({
        inputs: inputs({ tasks: JSON.stringify([task]) }),
        env: { ...RUNNER_SECRETS, CONTAINERS_CONF }
      })
      expectOk(run)
      expect(byId(run).get('cage')?.status).toBe('no-changes')

      const out = [0, 1, 2, 3].map(k => outputOf(stack.model.requestsFor('cage'), k))
      if (process.env.DEBUG_CAGE) console.log(out.join('\n=====\n'))
      for (const [name, secret] of Object.entries({ ...secrets(), ...RUNNER_SECRETS })) {
        expect(out.join('\n'), `${name} visible to the worker`).not.toContain(secret)
      }
      const env = new Map(
        (out[0] ?? '').split('\n').flatMap(l => {
          const m = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(l)
          return m?.[1] ? [[m[1], m[2] ?? ''] as const] : []
        })
      )
      expect(
        [...env.keys()].filter(
          n => /^(GITHUB_|ACTIONS_|INPUT_|RUNNER_)/.test(n) || n in RUNNER_SECRETS
        )
      ).toEqual([])
      expect(env.get('ANTHROPIC_AUTH_TOKEN')).toMatch(/^fleet-[A-Za-z0-9_-]{32}$/)
      // The gateway on the bridge's address (the runner, as the container sees it).
      expect(env.get('ANTHROPIC_BASE_URL')).toMatch(
        new RegExp(`^http://${new URL(relay.baseUrl).hostname.replace(/\./g, '\\.')}:\\d+$`)
      )
      expect(env.get('ANTHROPIC_BASE_URL')).not.toBe(relay.baseUrl)
      expect(env.get('HOME')).toBe('/home/fleet')
      expect(env.get('CLAUDE_CONFIG_DIR')).toBe('/home/fleet/.claude-config')
      expect(env.get('GIT_DIR')).toBe('/fleet/git')
      // Not root in the container, so claude is not told it is sandboxed.
      expect(env.has('IS_SANDBOX')).toBe(false)
      expect(env.has('CONTAINERS_CONF')).toBe(false)

      expect(out[1]).toMatch(/^workspace$/m)
      expect(out[1]).not.toContain(path.basename(ws))
      expect(out[1]).toMatch(/uid=1001/)
      // The checkout does not exist in the container, let alone its credential.
      expect(out[2]).toMatch(/No such file or directory/)
      expect(out[2]).toContain('WORKSPACE-ABSENT')
      // Of the fleet's clone only the objects are there, read-only; its config is not.
      const alt = /^ALT=(.*)$/m.exec(out[3] ?? '')?.[1] ?? ''
      expect(alt.startsWith(run.runnerTemp)).toBe(true)
      expect(out[3]).toMatch(/^\.\n\.\.\nobjects$/m)
      expect(out[3]).toMatch(/config: No such file or directory/)
      expect(out[3]).toMatch(/^fleet\/cage$/m)
      expect(out[3]).toContain('OBJECTS-READONLY')
    }, 300_000)

    it("keeps the worktree's .git read-only: a worker cannot point the action's git at a repository it wrote", async () => {
      // The worktree is bind-mounted read-write, its .git pointer read-only over it. A hostile worker
      // tries to point it at a gitdir it wrote in its config dir, whose core.fsmonitor the action's next `git status` on
      // the host would run. Paths come from the .git file itself (the fleet's layout is public).
      const host =
        'unset GIT_DIR GIT_WORK_TREE; root=$(sed -e "s|^gitdir: ||" -e "s|/repo/.git/worktrees/.*||" /workspace/.git); evil=$root/workers/repoint.1/config/evil'
      const mine = '/home/fleet/.claude-config/evil'
      const task = bashTask('repoint', [
        `${host}; git init -q --bare ${mine} && git --git-dir=${mine} config core.bare false && printf '#!/bin/sh\\ntouch %s/PWNED\\n' "$root" > ${mine}/fsmonitor && chmod +x ${mine}/fsmonitor && git --git-dir=${mine} config core.fsmonitor "$evil/fsmonitor" && printf 'gitdir: %s\\n' "$evil" > /workspace/.git; cat /workspace/.git`
      ])
      const run = await stack.run({
        inputs: inputs({ tasks: JSON.stringify([task]) }),
        env: { CONTAINERS_CONF }
      })
      const planted = outputOf(stack.model.requestsFor('repoint'), 0)
      // The pointer is a read-only file in every container: the rewrite is refused, it stays put.
      expect(planted).toMatch(/\/workspace\/\.git: Read-only file system/)
      expect(planted).toMatch(/^gitdir: \/fleet\/git$/m)
      expectOk(run)
      expect(byId(run).get('repoint')?.status).toBe('no-changes')
      const fleet = path.join(run.runnerTemp, 'fleet-worker')
      const pwned = (await readdir(fleet, { recursive: true })).filter(f => f.endsWith('PWNED'))
      expect(pwned).toEqual([])
    }, 300_000)

    it('kills the container at the timeout: the task ends timed-out and no container is left', async () => {
      // (claude refuses a bare long `sleep`; a tool that never ends is what a timeout is for.)
      const task = {
        id: 'stuck',
        prompt: `Wait.\n${script({ key: 'stuck', steps: [{ tool: 'Bash', input: { command: 'tail -f /dev/null', timeout: 600_000 } }, { text: 'never' }] })}`
      }
      const seen = new Set<string>()
      let done = false
      const started = Date.now()
      const running = stack
        .run({
          inputs: inputs({
            tasks: JSON.stringify([task]),
            'timeout-minutes': '0.4',
            'max-attempts': '1'
          }),
          env: { CONTAINERS_CONF }
        })
        .finally(() => (done = true))
      while (!done) {
        const ps = await exec(
          'podman',
          ['ps', '--filter', 'label=fleet-worker=1', '--format', '{{.Names}}'],
          { env: podmanEnv }
        )
        for (const name of ps.stdout.split('\n')) if (name.endsWith('-stuck-1')) seen.add(name)
        await new Promise(r => setTimeout(r, 500))
      }
      const run = await running
      const elapsed = Date.now() - started
      expect(run.exitCode, run.stdout + run.stderr).not.toBe(0)
      const r = byId(run).get('stuck')
      expect(r?.status).toBe('timed-out')
      // The worker was running in its container, and the run did not wait for its tool. (Another
      // suite on the same runtime may have had a `-stuck-1` container of its own up meanwhile.)
      const names = containerNames(run.stdout)
      expect(names).toHaveLength(1)
      expect([...seen]).toContain(names[0])
      expect(elapsed).toBeLessThan(150_000)
      // Stopped at the timeout through the runtime (its kill, or the SIGTERM the runtime CLI
      // forwarded, whichever came first), not left running for the backstop on the CLI's group.
      expect(run.stdout).toMatch(
        new RegExp(
          `\\[stuck\\] timeout: podman kill ${names[0]} (done|found it already stopped)\\n`
        )
      )
      const left = await exec(
        'podman',
        ['ps', '--all', '--filter', `name=${names[0]}`, '--format', '{{.Names}}'],
        { env: podmanEnv }
      )
      expect(left.stdout.trim()).toBe('')
      await expectNoOrphans(run)
    }, 300_000)

    it('a cancel (SIGTERM) during a long verify: cancelled, its work on its branch, no container and no process left', async () => {
      const sleep = uniqueSleep()
      const id = 'boxed-cut'
      const steps = [
        { tool: 'Write', input: { file_path: '/workspace/work.txt', content: 'work\n' } },
        { text: 'Done.' }
      ]
      const tasks = [{ id, prompt: `Write a file.\n${script({ key: id, steps })}` }]
      const running = stack.run({
        inputs: inputs({ tasks: JSON.stringify(tasks), verify: sleep }),
        env: { CONTAINERS_CONF }
      })
      // Cancelled once the verify runs in its container (a condition, not a time).
      await waitForAsync(
        'the verify in its container',
        async () => (await processesMentioning(sleep)).length > 0,
        200_000
      )
      const at = Date.now()
      await signalAction(stack.workspace, 'SIGTERM')
      const run = await running
      const stoppedIn = Date.now() - at
      const out = byId(run).get(id)
      expect(out?.status, run.stdout).toBe('cancelled')
      expect(out?.error).toBe(
        `the run was cancelled during verify '${sleep}'; its partial work is on branch fleet/${id}`
      )
      expect(await stack.git.readFile(`${OWNER}/${REPO}`, `fleet/${id}`, 'work.txt')).toBe('work\n')
      expect(run.stdout).toMatch(new RegExp(`\\[${id}\\] verify in container fleet-`))
      await expectNoContainers(run.stdout)
      await expectNoOrphans(run, sleep)
      // The cancel ended the run, not the verify's 300 s sleep. How soon is a speed claim (the
      // runner's grace is 7.5 s): under load a container's stop took 28 s, a known gap.
      expect(stoppedIn, run.stdout).toBeLessThan(120_000)
    }, 300_000)
  }
)
