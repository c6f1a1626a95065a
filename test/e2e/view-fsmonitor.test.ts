// The view's layer as git's file monitor (git/fsmonitor.ts), with the real kernel overlay and git:
// after a worker's every kind of change (an edit, a removal, a directory removed and made again,
// one removed whole, one renamed, a mode, a symlink, a new tree, an ignored file, a nested
// repository, an index-only removal), `git add --all` told by the layer writes the very tree
// the whole walk writes; and it looks at nothing outside the layer (shown by a change made to the
// checkout behind the overlay's back, which only the whole walk sees).
import { execFile } from 'node:child_process'
import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sandboxSupport } from '../../demo/sandbox.js'
import { layerHook, markUnchanged, UNCHANGED_HOOK } from '../../src/git/fsmonitor.js'
import { Git } from '../../src/git/git.js'
import { dropView, makeView, viewsFail, withViews } from '../../src/cage/views.js'
import { GIT_ENV } from '../support/git.js'

const exec = promisify(execFile)
const support = await sandboxSupport()
const unshare = '/usr/bin/unshare'
const why = support.ok ? await viewsFail(unshare) : support.reason

/** What a worker does to its files, every kind an overlay records differently. */
const WORKER = [
  'echo more >> src/a/f1.txt',
  'rm src/a/f2.txt',
  'touch src/a/f4.txt',
  'rm -rf src/b && mkdir src/b && echo n > src/b/new.txt',
  'rm -rf src/c',
  'mv src/d src/moved',
  'chmod +x lib/run.sh',
  'rm lib/x1.txt && ln -s run.sh lib/x1.txt',
  'mkdir -p new/deep && echo deep > new/deep/n.txt',
  'mkdir -p build && echo o > build/out.o',
  'mkdir vendor && git init -q vendor/sub && echo s > vendor/sub/s.txt',
  'git -C vendor/sub add s.txt && git -C vendor/sub -c user.name=w -c user.email=w@e commit -qm s'
].join(' && ')

describe.skipIf(why !== undefined)(
  `the view's layer as git's file monitor${why ? ` (skipped: ${why})` : ''}`,
  () => {
    let root: string
    let repo: string
    let lower: string
    let marked: string
    const git = (args: string[], env: Record<string, string> = {}) =>
      exec('git', args, { cwd: repo, env: { ...GIT_ENV, ...env } }).then(r => r.stdout.trim())

    beforeAll(async () => {
      root = await mkdtemp(path.join(tmpdir(), 'fleet-fsmonitor-'))
      repo = path.join(root, 'repo')
      lower = path.join(root, 'lower')
      for (const dir of ['a', 'b', 'c', 'd', 'e'])
        for (let f = 0; f < 50; f++) {
          await mkdir(path.join(repo, 'src', dir), { recursive: true })
          await writeFile(path.join(repo, 'src', dir, `f${f}.txt`), `${dir} ${f}\n`)
        }
      await mkdir(path.join(repo, 'lib'))
      await writeFile(path.join(repo, 'lib/run.sh'), 'echo run\n')
      await writeFile(path.join(repo, 'lib/x1.txt'), 'x1\n')
      await writeFile(path.join(repo, '.gitignore'), 'build/\n')
      await git(['init', '-q'])
      await git(['add', '-A'])
      await git(['commit', '-qm', 'base'])
      // The shared checkout: exactly the commit's files; its index marked once, as a run does.
      await mkdir(lower)
      await exec('sh', ['-c', `git -C '${repo}' archive HEAD | tar -x -C '${lower}'`])
      marked = path.join(root, 'index')
      const index = { GIT_INDEX_FILE: marked, GIT_WORK_TREE: lower }
      // Its stat data filled in first, as a checkout's own index has them.
      await git(['read-tree', 'HEAD'], index)
      await git(['update-index', '-q', '--refresh'], index)
      expect(await markUnchanged(Git.create(repo), lower, marked)).toBe(true)
      // Every entry marked (`ls-files -f`: a lower-case tag), read with the same hook the host uses.
      const tags = await git(['-c', `core.fsmonitor=${UNCHANGED_HOOK}`, 'ls-files', '-f'], index)
      expect(new Set(tags.split('\n').map(l => l.slice(0, 2)))).toEqual(new Set(['h ']))
    })
    afterAll(async () => {
      if (root) await rm(root, { recursive: true, force: true })
    })

    /**
     * `worker` run in a fresh view of the checkout, then from two copies of the marked index
     * (each also losing src/a/f3.txt from the index alone, as `git rm --cached` does): the tree
     * `git add --all` writes told by the layer, and the tree it writes walking every file.
     */
    async function trees(id: string, worker: string): Promise<{ told: string; walked: string }> {
      const at = path.join(root, 'tasks', id)
      await mkdir(at, { recursive: true })
      const view = await makeView(path.join(root, 'layers', id), lower, at)
      const [told, walked] = [path.join(root, `${id}.told`), path.join(root, `${id}.walked`)]
      await copyFile(marked, told)
      await copyFile(marked, walked)
      const seal = (index: string, fsmonitor: string) =>
        [
          `export GIT_INDEX_FILE='${index}'`,
          `git -c core.fsmonitor="${fsmonitor}" -c core.fsmonitorHookVersion=2 rm -q --cached src/a/f3.txt`,
          `git -c core.fsmonitor="${fsmonitor}" -c core.fsmonitorHookVersion=2 add --all`,
          'git write-tree'
        ].join(' && ')
      const script = [
        `cd '${at}'`,
        `(unset GIT_DIR GIT_WORK_TREE; ${worker})`,
        seal(told, '$HOOK'),
        seal(walked, 'false')
      ].join(' && ')
      const cmd = withViews(unshare, [view], { file: 'sh', args: ['-c', script] })
      const env = {
        ...GIT_ENV,
        GIT_DIR: path.join(repo, '.git'),
        GIT_WORK_TREE: at,
        HOOK: layerHook(view.upper)
      }
      const out = (await exec(cmd.file, cmd.args, { env })).stdout.trim().split('\n')
      await dropView(view)
      return { told: out[0] ?? '', walked: out[1] ?? '' }
    }

    const files = async (tree: string) =>
      (await git(['ls-tree', '-r', '--format=%(objectmode) %(path)', tree])).split('\n')

    it("writes the whole walk's tree after every kind of change a worker makes", async () => {
      const { told, walked } = await trees('all', WORKER)
      expect(told).toMatch(/^[0-9a-f]{40}$/)
      expect(told).toBe(walked)
      const listed = await files(told)
      // The remade directory holds its new file alone; the removed one is gone; the renamed one
      // moved whole; the index-only removal is back (its file is there); nothing ignored.
      expect(listed.filter(l => l.includes('src/b/'))).toEqual(['100644 src/b/new.txt'])
      expect(listed.filter(l => l.includes('src/c/') || l.includes('src/d/'))).toEqual([])
      expect(listed.filter(l => l.includes('src/moved/'))).toHaveLength(50)
      expect(listed).not.toContain('100644 src/a/f2.txt')
      expect(listed).toContain('100644 src/a/f3.txt')
      expect(listed).toContain('100755 lib/run.sh')
      expect(listed).toContain('120000 lib/x1.txt')
      expect(listed).toContain('100644 new/deep/n.txt')
      expect(listed).toContain('160000 vendor/sub')
      expect(listed.some(l => l.includes('build/'))).toBe(false)
    })

    it('looks at nothing outside the layer: a change behind the overlay is seen by the walk alone', async () => {
      await writeFile(path.join(lower, 'src/c/f9.txt'), 'changed behind the overlay\n')
      const { told, walked } = await trees('outside', 'echo more >> src/a/f1.txt')
      const blob = (tree: string) => git(['rev-parse', `${tree}:src/c/f9.txt`])
      expect(await blob(told)).toBe(await git(['rev-parse', 'HEAD:src/c/f9.txt']))
      expect(await blob(walked)).not.toBe(await blob(told))
      // The layer's own change is in both.
      const edited = (tree: string) => git(['rev-parse', `${tree}:src/a/f1.txt`])
      expect(await edited(told)).toBe(await edited(walked))
      expect(await edited(told)).not.toBe(await git(['rev-parse', 'HEAD:src/a/f1.txt']))
    })
  }
)
