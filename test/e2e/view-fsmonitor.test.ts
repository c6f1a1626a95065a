// The view's layer as git's file monitor (git/fsmonitor.ts), with the real kernel overlay and git:
// after a worker's every kind of change (an edit, a removal, a directory removed and made again,
// one removed whole, one renamed, a mode, a symlink, a new tree, an ignored file, a nested
// repository, an index-only removal), `git add --all` told by the layer writes the very tree
// the whole walk writes; and it looks at nothing outside the layer (shown by a change made to the
// checkout behind the overlay's back, which only the whole walk sees).
import { execFile } from 'node:child_process'
import { chmod, copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { viewsUnsupported } from '../support/views.js'
import {
  HOST_FSMONITOR,
  LAYER_DIR,
  layerHook,
  markUnchanged,
  UNCHANGED_HOOK
} from '../../src/git/fsmonitor.js'
import { LAYER_STATE, SEAL_SCRIPT, SEALED_FILE } from '../../src/worker/exit.js'
import { Git } from '../../src/git/git.js'
import { dropView, makeView, withViews } from '../../src/cage/views.js'
import { GIT_ENV } from '../support/git.js'

const exec = promisify(execFile)
const unshare = '/usr/bin/unshare'
const why = await viewsUnsupported(unshare)

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

    it('a seal finding the layer empty on the start, or as the last one left it with HEAD unmoved, runs no git over the files', async () => {
      // A cage's clone on the task's branch at the start, its index the marked one.
      const clone = path.join(root, 'clone')
      const inClone = (args: string[]) =>
        exec('git', args, { cwd: clone, env: GIT_ENV }).then(r => r.stdout.trim())
      await exec('git', ['clone', '-q', '--shared', '--no-checkout', repo, clone], { env: GIT_ENV })
      const start = await inClone(['rev-parse', 'HEAD'])
      await inClone(['update-ref', 'refs/heads/fleet/t', start])
      await inClone(['symbolic-ref', 'HEAD', 'refs/heads/fleet/t'])
      // The task's index as the action keeps it: marked, and moved on by each accepted seal.
      const taskIndex = path.join(root, 'task-index')
      await copyFile(marked, taskIndex)
      const at = path.join(root, 'tasks', 'state')
      await mkdir(at, { recursive: true })
      const view = await makeView(path.join(root, 'layers', 'state'), lower, at)
      // Every git command the seal runs, logged by a wrapper first on its PATH.
      const bin = path.join(root, 'bin')
      const calls = path.join(root, 'git-calls')
      await mkdir(bin)
      await writeFile(
        path.join(bin, 'git'),
        `#!/bin/sh\necho "$*" >> '${calls}'\nexec /usr/bin/git "$@"\n`
      )
      await chmod(path.join(bin, 'git'), 0o755)
      let was = ''
      let n = 0
      /** `command`, then the seal, in one cage shown the layer: a bundle?, the git subcommands. */
      async function cage(command: string) {
        const out = path.join(root, 'seals', String(++n))
        await mkdir(out, { recursive: true })
        await writeFile(calls, '')
        await copyFile(taskIndex, path.join(clone, '.git', 'index'))
        const from = await inClone(['rev-parse', 'refs/heads/fleet/t'])
        const seal = `sh -c "$SEAL" fleet-seal fleet/t ${start} ${out}/${SEALED_FILE} m '' ${from} layer "$WAS"`
        const ids = [String(process.getuid?.() ?? 0), String(process.getgid?.() ?? 0)]
        const bwrap = [
          '--uid',
          ids[0] ?? '0',
          '--gid',
          ids[1] ?? '0',
          '--unshare-user',
          '--unshare-pid'
        ]
        bwrap.push('--die-with-parent', '--ro-bind', '/', '/', '--proc', '/proc', '--dev', '/dev')
        bwrap.push('--tmpfs', '/run', '--ro-bind', view.upper, LAYER_DIR, '--bind', at, at)
        bwrap.push('--bind', root, root, '--chdir', at, '--', 'sh', '-c', `${command} && ${seal}`)
        const cmd = withViews(unshare, [view], { file: 'bwrap', args: bwrap })
        const env = { ...GIT_ENV, PATH: `${bin}:/usr/bin:/bin`, GIT_DIR: path.join(clone, '.git') }
        await exec(cmd.file, cmd.args, {
          env: { ...env, GIT_WORK_TREE: at, SEAL: SEAL_SCRIPT, WAS: was }
        })
        const state = (await readFile(path.join(out, LAYER_STATE), 'utf8')).trim()
        const bundle = await readFile(path.join(out, SEALED_FILE)).then(
          () => true,
          () => false
        )
        const ran = (await readFile(calls, 'utf8')).split('\n').filter(Boolean)
        if (bundle) {
          // Accepted as the action accepts it: the branch moved to the bundle's head.
          const listed = await inClone(['bundle', 'list-heads', path.join(out, SEALED_FILE)])
          const head = listed.split(' ')[0] ?? ''
          await inClone(['update-ref', 'refs/heads/fleet/t', head])
          await exec('git', [...HOST_FSMONITOR, 'read-tree', '--reset', '-i', head], {
            cwd: clone,
            env: { ...GIT_ENV, GIT_INDEX_FILE: taskIndex }
          })
        }
        // Each call's subcommand: the word after git's options (a `-c` value may hold spaces).
        const sub = (c: string) =>
          / (rev-parse|add|write-tree|commit-tree|update-ref|pack-objects) /.exec(` ${c} `)?.[1]
        return { state, bundle, ran: ran.map(c => sub(c) ?? c) }
      }

      // An empty layer on the start (a setup that wrote nothing): the start's files, no git over them.
      const empty = await cage('ls > /dev/null')
      expect(empty.bundle).toBe(false)
      expect(empty.ran).toEqual(['rev-parse'])
      const first = await cage('echo w > written.txt')
      expect(first.bundle).toBe(true)
      expect(first.state).toMatch(/^\d+ \d+$/)
      was = first.state
      // Nothing written since: no file, the same state, and no `add` or `write-tree` over the files.
      const idle = await cage('cat written.txt > /dev/null')
      expect(idle).toEqual({ state: was, bundle: false, ran: ['rev-parse'] })
      // A file touched (its ctime moves, its content does not): looked at again, nothing new.
      const touched = await cage('touch written.txt')
      expect(touched.state).not.toBe(was)
      expect(touched.ran).toContain('add')
      expect(touched.bundle).toBe(false)
      was = touched.state
      // A file of the checkout changed: sealed.
      const changed = await cage('echo more >> src/a/f5.txt')
      expect(changed.bundle).toBe(true)
      expect(changed.state).not.toBe(was)
      await dropView(view)
    })
  }
)
