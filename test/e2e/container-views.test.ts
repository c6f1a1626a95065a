// One checkout, many views, in isolation: container (podman), through dist/ with the real claude
// CLI, real git and the API mock. Each task's containers (setup, worker, seals, verify) show the
// run's one checkout of the base at /workspace through podman's overlay volume, with the task's own
// upper layer kept across them. One-file tasks land exactly their files; a hostile task that
// deletes and rewrites the view's files and goes looking for the shared checkout and the other
// tasks' layers gets its own change only; the checkout on the host is unchanged afterwards. A
// second case times four tasks on a tiny and a 20,000-file repository (printed, never asserted).
import { execFile } from 'node:child_process'
import { readdir, readFile } from 'node:fs/promises'
import path from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { expectOk } from '../support/scenario.js'
import { type RecordedRequest, script } from '../../demo/model-server.js'
import { bigRepoFiles, oneFilePrompt, seesAllFiles } from '../../demo/big-repo.js'
import { byId, OWNER, REPO, type Stack, startStack } from '../../demo/stack.js'
import { IMAGE, podmanForFile, relayToBridge, containerInputs } from './container-support.js'

const exec = promisify(execFile)
const FULL = `${OWNER}/${REPO}`
const { podman, skipReason } = await podmanForFile('container views e2e')

/** A one-file task; its verify (in its own container) sees the whole repository and its file alone. */
const oneFile = (files: number) => (id: string) => ({
  id,
  prompt: oneFilePrompt(id, `cviews-${files}-${id}`),
  verify: [seesAllFiles(files), `test "$(ls tasks)" = ${id}.txt`, 'test -e .setup/seen'].join(
    ' && '
  )
})

/** Setup sees the whole repository and leaves an untracked file no commit may take. */
const setupFor = (files: number) =>
  `test "$(find src -type f | wc -l)" -eq ${files} && mkdir -p .setup && echo ok > .setup/seen`

/** The hostile task: where is its view from, can it reach the checkout or a sibling's layer? */
const MOUNT = `grep ' /workspace ' /proc/self/mountinfo`
const PROBE = [
  `up=$(${MOUNT} | grep -o 'upperdir=[^,]*' | cut -d= -f2); low=$(${MOUNT} | grep -o 'lowerdir=[^,]*' | cut -d= -f2)`,
  'for p in "$up" "$low" "${up%/*/*}"; do ls "$p" 2>&1 | head -3; done',
  'for id in cv-1 cv-2 cv-3; do cat "${up%/*/*}/$id/upper/tasks/$id.txt" 2>&1; done',
  '(echo pwned > "$low/README.md") 2>/dev/null || echo LOWER-UNREACHABLE',
  'ls -A tasks'
].join('\n')
const hostile = {
  id: 'cv-evil',
  prompt: `Clean up.\n${script({
    key: 'cviews-evil',
    steps: [
      { tool: 'Bash', input: { command: MOUNT } },
      { tool: 'Bash', input: { command: PROBE } },
      {
        tool: 'Bash',
        input: {
          command:
            'rm -rf src && echo pwned > README.md && git add -A && git commit -qm "Rewrite the view"'
        }
      },
      { text: 'Done.' }
    ]
  })}`
}

function outputOf(requests: RecordedRequest[], k: number): string {
  const text = requests.find(r => r.outcome === 'reply' && r.step === k + 1)?.toolResults.join('\n')
  if (text === undefined) throw new Error(`no tool result for command ${k}`)
  return text
}

async function diffOf(stack: Stack, id: string): Promise<string[]> {
  const out = await exec('git', ['diff', '--name-only', 'main', `fleet/${id}`], {
    cwd: stack.git.repoPath(FULL)
  })
  return out.stdout.split('\n').filter(Boolean)
}

/** The run's fleet dir on the host (its clone, its checkouts, its tasks' views). */
async function fleetDir(runnerTemp: string): Promise<string> {
  const root = path.join(runnerTemp, 'fleet-worker')
  const runs: string[] = []
  for (const d of await readdir(root))
    if ((await readdir(path.join(root, d)).catch((): string[] => [])).includes('checkouts'))
      runs.push(d)
  expect(runs).toHaveLength(1)
  return path.join(root, runs[0] ?? '')
}

/** Every file of `dir` but its `.git` file, path -> content. */
async function filesOf(dir: string): Promise<Map<string, string>> {
  const found = await readdir(dir, { recursive: true, withFileTypes: true })
  const files = found.filter(e => e.isFile() && !(e.name === '.git' && e.parentPath === dir))
  return new Map(
    await Promise.all(
      files.map(async e => {
        const full = path.join(e.parentPath, e.name)
        return [path.relative(dir, full), await readFile(full, 'utf8')] as const
      })
    )
  )
}

describe.skipIf(skipReason !== undefined)(
  `isolation: container, a view per task (podman, ${IMAGE})${skipReason ? ` skipped: ${skipReason}` : ''}`,
  () => {
    const FILES = 1000
    let stack: Stack
    let relay: Awaited<ReturnType<typeof relayToBridge>>
    const inputs = (extra: Record<string, string>, baseUrl = relay.baseUrl) =>
      containerInputs(baseUrl, extra)

    beforeAll(async () => {
      stack = await startStack({ files: bigRepoFiles(FILES) })
      relay = await relayToBridge(podman, stack.model.url)
    }, 300_000)
    afterAll(async () => {
      relay?.close()
      await stack?.close()
      await podman.close()
    })

    it("one-file tasks land exactly their files; a hostile task changes only its own view and reaches no other's", async () => {
      const tasks = [...['cv-1', 'cv-2', 'cv-3'].map(oneFile(FILES)), hostile]
      const run = await stack.run({
        inputs: inputs({
          tasks: JSON.stringify(tasks),
          'max-parallel': '4',
          setup: setupFor(FILES)
        }),
        env: { CONTAINERS_CONF: podman.conf },
        timeoutMs: 900_000
      })
      expectOk(run)
      const results = byId(run)
      for (const id of ['cv-1', 'cv-2', 'cv-3']) {
        expect(results.get(id)?.status, results.get(id)?.error ?? run.stdout).toBe('pr-opened')
        expect(await diffOf(stack, id)).toEqual([`tasks/${id}.txt`])
      }

      // The hostile task's /workspace is an overlay of the run's checkout with its own layer.
      const evil = stack.model.requestsFor('cviews-evil')
      const mount = outputOf(evil, 0)
      expect(mount).toMatch(/ - overlay /)
      expect(mount).toMatch(/upperdir=[^,]*\/views\/cv-evil\/upper[,\s]/)
      expect(mount).toMatch(/lowerdir=[^,]*\/checkouts\/[0-9a-f]{40}[,\s]/)
      // Neither the layers' host paths (its own, the siblings') nor the checkout exist in its
      // container; it cannot write the checkout; its view holds no sibling's file.
      const probe = outputOf(evil, 1)
      expect(probe.match(/No such file or directory/g)?.length ?? 0).toBe(6)
      expect(probe).toMatch(/views\/cv-evil\/upper': No such file or directory/)
      expect(probe).not.toMatch(/^cv-[123]$/m)
      expect(probe).toContain('LOWER-UNREACHABLE')
      expect(probe.trim().split('\n').pop()).toBe('.keep')
      // Its PR is its own change: the README rewritten and src/ deleted, nothing of the others'.
      expect(results.get('cv-evil')?.status, run.stdout).toBe('pr-opened')
      const evilDiff = await diffOf(stack, 'cv-evil')
      expect(evilDiff).toHaveLength(FILES + 1)
      expect(evilDiff.every(f => f === 'README.md' || f.startsWith('src/'))).toBe(true)
      expect(await stack.git.readFile(FULL, 'fleet/cv-evil', 'README.md')).toBe('pwned\n')
      for (const id of ['cv-1', 'cv-2', 'cv-3'])
        expect(await stack.git.readFile(FULL, `fleet/${id}`, 'README.md')).toBe('# widgets\n')

      // On the host the shared checkout is the base, file for file; the tasks' layers are gone.
      const fleet = await fleetDir(run.runnerTemp)
      const checkouts = await readdir(path.join(fleet, 'checkouts'))
      expect(checkouts).toHaveLength(1)
      const shared = await filesOf(path.join(fleet, 'checkouts', checkouts[0] ?? ''))
      expect(Object.fromEntries(shared)).toEqual(bigRepoFiles(FILES))
      expect(await readdir(path.join(fleet, 'views'))).toEqual([])
      const names = [...run.stdout.matchAll(/ container (fleet-[a-z0-9._-]+)/g)].map(
        m => m[1] ?? ''
      )
      expect(names.length).toBeGreaterThan(0)
      for (const name of new Set(names))
        expect(
          String(
            podman.run('ps', '--all', '--filter', `name=^${name}$`, '--format', '{{.Names}}').stdout
          ).trim()
        ).toBe('')
    }, 900_000)

    it('four one-file tasks on a tiny and a 20,000-file repository: each lands its file (times printed)', async () => {
      const stacks = [
        await startStack({ files: bigRepoFiles(10) }),
        await startStack({ files: bigRepoFiles(20_000) })
      ]
      const relays = await Promise.all(stacks.map(s => relayToBridge(podman, s.model.url)))
      try {
        const [small, large] = [
          await runFour(stacks[0], 10, relays[0]?.baseUrl),
          await runFour(stacks[1], 20_000, relays[1]?.baseUrl)
        ]
        const load = (await readFile('/proc/loadavg', 'utf8')).split(' ')[0]
        const median = (xs: number[]) => {
          const s = [...xs].sort((a, b) => a - b)
          return ((s[1] ?? 0) + (s[2] ?? 0)) / 2
        }
        const [ms, ml] = [median(small.tasks), median(large.tasks)]
        console.log(
          [
            `container views e2e (load ${load}):`,
            `  tasks tiny: ${small.tasks.join(', ')} ms (median ${ms})`,
            `  tasks 20k:  ${large.tasks.join(', ')} ms (median ${ml}; x${(ml / ms).toFixed(2)})`,
            `  run wall: tiny ${Math.round(small.wallMs)} ms, 20k ${Math.round(large.wallMs)} ms (x${(large.wallMs / small.wallMs).toFixed(2)})`
          ].join('\n')
        )
      } finally {
        for (const r of relays) r.close()
        await Promise.all(stacks.map(s => s.close()))
      }

      async function runFour(s: Stack | undefined, files: number, baseUrl: string | undefined) {
        if (!s || !baseUrl) throw new Error('no stack')
        const ids = ['big-1', 'big-2', 'big-3', 'big-4']
        const run = await s.run({
          inputs: inputs(
            {
              tasks: JSON.stringify(ids.map(oneFile(files))),
              'max-parallel': '4',
              setup: setupFor(files)
            },
            baseUrl
          ),
          env: { CONTAINERS_CONF: podman.conf },
          timeoutMs: 900_000
        })
        expectOk(run)
        const results = byId(run)
        for (const id of ids) {
          expect(results.get(id)?.status, results.get(id)?.error ?? run.stdout).toBe('pr-opened')
          expect(await diffOf(s, id)).toEqual([`tasks/${id}.txt`])
        }
        return {
          wallMs: run.durationMs,
          tasks: ids.map(id => results.get(id)?.['duration-ms'] ?? 0)
        }
      }
    }, 1_800_000)
  }
)
