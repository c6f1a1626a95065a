// Setup's leftover check with a view (issue #40 item 2), through dist/ with the real claude CLI,
// real git and the API mock, in the sandbox: what setup left is read from the view's private layer
// and git looks at those paths alone, and the outcome is what git's walk of the whole view decides.
// The setups are hostile: an untracked file, an ignored file, a new nested directory, a changed and
// a removed tracked file, and a directory removed and made again, with and without all its files.
// A path the layer's listing missed would show: the worker commits with `git add -A`, so a leftover
// the exclude lacks rides into its branch; a tracked change missed leaves out a file the error names.
import { describe, expect, it, beforeAll, afterAll } from 'vitest'
import { execFileSync } from 'node:child_process'
import { script } from '../../demo/model-server.js'
import { viewsUnsupported } from '../support/views.js'
import { byId, OWNER, REPO, type Stack, startStack } from '../../demo/stack.js'

const FULL = `${OWNER}/${REPO}`
const why = await viewsUnsupported()

const FILES: Record<string, string> = {
  'README.md': '# widgets\n',
  '.gitignore': '*.log\n',
  'lib/a.js': 'a\n',
  'lib/b.js': 'b\n',
  'lib/deep/c.js': 'c\n',
  'src/main.js': 'main\n'
}

const WORKER_STEP = 'echo done > worker.txt && git add -A && git commit -qm work'

const task = (id: string) => ({
  id,
  prompt: `Work.\n${script({
    key: `layer-${id}`,
    steps: [{ tool: 'Bash', input: { command: WORKER_STEP } }, { text: 'Done.' }]
  })}`
})

describe.skipIf(why !== undefined)(
  `setup's leftovers, read from the view's private layer${why ? ` (skipped: ${why})` : ''}`,
  () => {
    let stack: Stack
    beforeAll(async () => {
      stack = await startStack({ files: FILES })
    }, 300_000)
    afterAll(async () => {
      await stack?.close()
    })

    const runWith = (id: string, setup: string) =>
      stack.run({
        inputs: { tasks: JSON.stringify([task(id)]), isolation: 'sandbox', setup },
        timeoutMs: 300_000
      })

    it('excludes every path setup left, a remade directory included, from the worker commit', async () => {
      const run = await runWith(
        'left',
        [
          'echo left > left.txt',
          'echo debug > debug.log',
          'mkdir -p build/out && echo x > build/out/x.js',
          // lib removed and made again with the same files, and one more.
          'cp -r lib "$TMPDIR/lib" && rm -rf lib && cp -r "$TMPDIR/lib" lib && echo gen > lib/gen.js',
          'echo new > lib/deep/new.js',
          'touch -d 2001-01-01 src/main.js'
        ].join(' && ')
      )
      const r = byId(run).get('left')
      expect(r?.status, r?.error ?? run.stdout).toBe('pr-opened')
      expect(run.stdout).toMatch(
        /\[left\] setup's leftovers: \d+ path\(s\) of its private layer checked/
      )
      const tree = execFileSync(
        'git',
        ['-C', stack.git.repoPath(FULL), 'ls-tree', '-r', '--name-only', 'fleet/left'],
        { encoding: 'utf8' }
      )
      // Exactly the base's files and the worker's own: nothing setup left, ignored or not.
      expect(tree.trim().split('\n').sort()).toEqual([...Object.keys(FILES), 'worker.txt'].sort())
    }, 300_000)

    it('names every tracked file setup changed or removed, as the whole walk does', async () => {
      const run = await runWith(
        'dirty',
        'echo more >> README.md && rm src/main.js && echo u > u.txt && echo d > d.log'
      )
      const r = byId(run).get('dirty')
      expect(r?.status).toBe('failed')
      expect(r?.error).toContain('setup changed tracked files (README.md, src/main.js):')
      expect(run.stdout).toMatch(
        /\[dirty\] setup's leftovers: \d+ path\(s\) of its private layer checked/
      )
      expect(stack.model.requestsFor('dirty')).toEqual([])
    }, 300_000)

    it('walks the whole view when a remade directory hides files of the commit', async () => {
      const run = await runWith(
        'remade',
        'rm -rf lib && mkdir lib && echo n > lib/new.js && echo more >> README.md'
      )
      const r = byId(run).get('remade')
      expect(r?.status).toBe('failed')
      expect(r?.error).toContain(
        'setup changed tracked files (README.md, lib/a.js, lib/b.js, lib/deep/c.js):'
      )
      expect(run.stdout).toContain(
        "[remade] setup's leftovers: the whole view walked (a directory was removed and made again)"
      )
    }, 300_000)
  }
)
