// One checkout, many views, through dist/ with the real claude CLI, real git and the API mock: on
// a generated repository of 20,000 files, four one-file tasks in the sandbox each get a
// copy-on-write view of the run's one checkout of the base instead of a worktree of their own.
// Setup and verify see the whole repository (they count its files), what setup leaves stays out
// of the commits, each PR's diff is exactly its task's file, and no task sees another's file
// while they run side by side. Each task's time is printed beside the same task on a tiny
// repository (docs/performance.md records the figures): timing is printed, never asserted.
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { expectOk } from '../support/scenario.js'
import { bigRepoFiles, oneFilePrompt, seesAllFiles } from '../../demo/big-repo.js'
import { viewsUnsupported } from '../support/views.js'
import { byId, GITHUB_TOKEN, OWNER, REPO, type Stack, startStack } from '../../demo/stack.js'

const exec = promisify(execFile)
const FULL = `${OWNER}/${REPO}`
const why = await viewsUnsupported()
const IDS = ['big-1', 'big-2', 'big-3', 'big-4']

/**
 * The worker (on a repository of `files` files) commits its one file with `git add -A`, which would also take setup's leftover if
 * the exclusion did not reach the view's git. Its verify then checks it sees only its own file,
 * and neither another task's files nor the shared checkout nor any task's private layer.
 */
const task = (files: number) => (id: string) => ({
  id,
  prompt: oneFilePrompt(id, `views-${id}`),
  // As a hostile task would look: no other task's path, no shared checkout, no private layer.
  verify: [
    seesAllFiles(files),
    `test "$(ls tasks)" = ${id}.txt`,
    'test -e .setup/seen',
    // One mount for all the task's cages (views.ts holdView): setup's overlay is still mounted, so
    // an overlay mounted afresh for verify could not have its device number.
    'test "$(stat -c %d .)" = "$(cat .setup/seen)"',
    `test "$(ls ..)" = ${id}`,
    'test ! -e ../../checkouts && test ! -e ../../views'
  ].join(' && ')
})

async function diffOf(stack: Stack, id: string): Promise<string[]> {
  const out = await exec('git', ['diff', '--name-only', 'main', `fleet/${id}`], {
    cwd: stack.git.repoPath(FULL)
  })
  return out.stdout.split('\n').filter(Boolean)
}

interface Measured {
  wallMs: number
  tasks: Map<string, number>
  /** Each task's `worker-start-ms`: its view and its setup. */
  starts: number[]
  log: string
}

async function runFour(stack: Stack, files: number): Promise<Measured> {
  const run = await stack.run({
    inputs: {
      tasks: JSON.stringify(IDS.map(task(files))),
      'max-parallel': '4',
      // Setup sees the whole repository too, and leaves an untracked file that no commit may take:
      // the device number of the view it saw.
      setup: `${seesAllFiles(files)} && mkdir -p .setup && stat -c %d . > .setup/seen`
    },
    env: { GITHUB_TOKEN },
    timeoutMs: 600_000
  })
  expectOk(run)
  const results = byId(run)
  for (const id of IDS) {
    const r = results.get(id)
    expect(r?.status, r?.error ?? run.stdout).toBe('pr-opened')
    expect(await diffOf(stack, id)).toEqual([`tasks/${id}.txt`])
    expect(await stack.git.readFile(FULL, `fleet/${id}`, `tasks/${id}.txt`)).toBe(`${id}\n`)
    // The worker started after the task's view and its setup, and before the task ended.
    expect(r?.['worker-start-ms']).toBeGreaterThan(0)
    expect(r?.['worker-start-ms']).toBeLessThan(r?.['duration-ms'] ?? 0)
  }
  return {
    wallMs: run.durationMs,
    tasks: new Map(IDS.map(id => [id, results.get(id)?.['duration-ms'] ?? 0])),
    starts: IDS.map(id => results.get(id)?.['worker-start-ms'] ?? 0),
    log: run.stdout
  }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2
    ? (s[(s.length - 1) / 2] ?? 0)
    : ((s[s.length / 2 - 1] ?? 0) + (s[s.length / 2] ?? 0)) / 2
}

describe.skipIf(why !== undefined)(
  `a 20,000-file repository: one checkout, a view per task${why ? ` (skipped: ${why})` : ''}`,
  () => {
    let big: Stack
    let tiny: Stack
    beforeAll(async () => {
      tiny = await startStack({ files: bigRepoFiles(10) })
      big = await startStack({ files: bigRepoFiles(20_000) })
    }, 600_000)
    afterAll(async () => {
      await Promise.all([tiny?.close(), big?.close()])
    })

    it('four one-file tasks land exactly their files; setup and verify see all 20,000', async () => {
      const small = await runFour(tiny, 10)
      const large = await runFour(big, 20_000)
      // The sandbox put every task in a view, on both repositories.
      for (const m of [small, large]) expect(m.log).not.toMatch(/views cannot be mounted/)
      const ratio = (a: number, b: number) => (a / b).toFixed(2)
      const [ms, ml] = [median([...small.tasks.values()]), median([...large.tasks.values()])]
      console.log(
        [
          `views e2e (load ${(await exec('cat', ['/proc/loadavg'])).stdout.split(' ')[0]}):`,
          `  task median: tiny ${ms} ms, 20k files ${ml} ms (x${ratio(ml, ms)}; target <= 1.3)`,
          `  tasks tiny: ${[...small.tasks.values()].join(', ')} ms`,
          `  tasks 20k:  ${[...large.tasks.values()].join(', ')} ms`,
          `  worker start median: tiny ${median(small.starts)} ms, 20k files ${median(large.starts)} ms`,
          `  run wall: tiny ${Math.round(small.wallMs)} ms, 20k files ${Math.round(large.wallMs)} ms (x${ratio(large.wallMs, small.wallMs)}; target <= 1.5)`
        ].join('\n')
      )
    }, 1_200_000)
  }
)
