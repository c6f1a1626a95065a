import { execFileSync } from 'node:child_process'
import { readdir } from 'node:fs/promises'
import { describe, expect, it } from 'vitest'
import { expectOk, greetProject, useStack, useTemp } from '../support/scenario.js'
import { script } from '../../demo/model-server.js'
import { OWNER, REPO, byId } from '../../demo/stack.js'

const FULL = `${OWNER}/${REPO}`

// A project with one dependency, a local package: setup installs it, `npm test` needs it.
const PROJECT = greetProject()

// The worker uses what setup installed, and commits with `git add -A` itself: the exclude must
// hold for its own commits too, not only for the action's.
const WORKER_STEP = [
  `node -e "require('fs').writeFileSync('seen-by-worker.txt', require('greet') + '\\n')"`,
  'git add -A',
  "git commit -qm 'Use greet'"
].join(' && ')

function task(id: string) {
  return {
    id,
    prompt: `Use greet.\n${script({ key: id, steps: [{ tool: 'Bash', input: { command: WORKER_STEP } }, { text: 'Done.' }] })}`
  }
}

describe('setup: a command run in each worktree before its worker', () => {
  const stack = useStack({ files: PROJECT })
  const npmCache = useTemp('fleet-e2e-npm-cache-')

  it('what setup installed is seen by the worker and by verify, and never committed', async () => {
    const run = await stack.run({
      inputs: {
        tasks: JSON.stringify([task('greet-a'), task('greet-b')]),
        setup: 'npm ci --offline --no-audit --no-fund',
        verify: 'npm test'
      },
      // The runner's npm cache (setup-node restores it there), read by both tasks' setups.
      env: { npm_config_cache: npmCache }
    })
    expectOk(run)
    for (const id of ['greet-a', 'greet-b']) {
      expect(byId(run).get(id)?.status, run.stdout).toBe('pr-opened')
      expect(run.stdout).toContain(`[${id}] setup: npm ci --offline --no-audit --no-fund`)
      const branch = `fleet/${id}`
      // The worker ran with node_modules in place; verify (npm test) passed with it.
      expect(await stack.git.readFile(FULL, branch, 'seen-by-worker.txt')).toBe(
        'hello from setup\n'
      )
      const pr = stack.github.state.pulls.find(p => p.pull.head === branch)
      expect(pr?.body).toContain('### Verify: passed')
      // Neither the worker's own commit nor the action's carried what setup made.
      const tree = execFileSync(
        'git',
        ['-C', stack.git.repoPath(FULL), 'ls-tree', '-r', '--name-only', branch],
        { encoding: 'utf8' }
      )
      expect(tree.split('\n').filter(f => f.startsWith('node_modules'))).toEqual([])
      expect(tree).toContain('seen-by-worker.txt')
    }
    // Both setups read the runner's cache through a copy-on-write view of their own: npm keeps a
    // log per run in its cache, and none of them reached the runner's (see setup-caches.test.ts).
    expect(await readdir(npmCache)).toEqual([])
  })

  it('a failing setup ends the task failed with its output, and no worker runs', async () => {
    const run = await stack.run({
      inputs: {
        tasks: JSON.stringify([task('no-deps')]),
        setup: "echo 'resolving packages'; echo 'npm error missing: left-pad@1.3.0' >&2; exit 3"
      }
    })
    expect(run.exitCode).toBe(1)
    const r = byId(run).get('no-deps')
    expect(r?.status).toBe('failed')
    expect(r?.error).toContain("setup 'echo 'resolving packages'")
    expect(r?.error).toContain('exited with 3; no worker ran')
    expect(r?.error).toContain('npm error missing: left-pad@1.3.0')
    expect(r?.turns).toBe(0)
    expect(stack.model.requestsFor('no-deps')).toEqual([])
    expect((await stack.git.branches(FULL))['fleet/no-deps']).toBeUndefined()
  })

  it('a setup that changes tracked files fails the task rather than slip them into the PR', async () => {
    const run = await stack.run({
      inputs: { tasks: JSON.stringify([task('dirty')]), setup: 'echo extra >> README.md' }
    })
    const r = byId(run).get('dirty')
    expect(r?.status).toBe('failed')
    expect(r?.error).toContain('setup changed tracked files (README.md)')
    expect(stack.model.requestsFor('dirty')).toEqual([])
  })
})
