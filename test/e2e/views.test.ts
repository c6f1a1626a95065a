// One checkout, many views (cage/views.ts), with the real kernel, unshare and bubblewrap: each
// task sees one shared read-only checkout through a copy-on-write view of its own, in a sandbox.
// What a task writes lands in its private layer only (its disk is what it changed); another task
// sees none of it; the shared checkout never changes; the view is gone once dropped.
import { execFile } from 'node:child_process'
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { viewsUnsupported } from '../support/views.js'
import { dropView, type HeldView, holdView, makeView, withViews } from '../../src/cage/views.js'
import type { View } from '../../src/domain.js'

const exec = promisify(execFile)
const unshare = '/usr/bin/unshare'
const why = await viewsUnsupported(unshare)

describe.skipIf(why !== undefined)(
  `copy-on-write views of one shared checkout${why ? ` (skipped: ${why})` : ''}`,
  () => {
    let root: string
    let shared: string
    beforeAll(async () => {
      root = await mkdtemp(path.join(tmpdir(), 'fleet-views-'))
      shared = path.join(root, 'checkout')
      for (let d = 0; d < 10; d++) {
        await mkdir(path.join(shared, `src/d${d}`), { recursive: true })
        for (let f = 0; f < 100; f++)
          await writeFile(path.join(shared, `src/d${d}/f${f}.txt`), `file ${d}/${f}\n`)
      }
    })
    afterAll(async () => {
      if (root) await rm(root, { recursive: true, force: true })
    })

    /** A task's view: the shared checkout shown at the task's own (empty) worktree path. */
    async function taskView(id: string): Promise<View> {
      const at = path.join(root, 'tasks', id)
      await mkdir(at, { recursive: true })
      return makeView(path.join(root, 'layers', id), shared, at)
    }

    /** `script` in a sandbox that shows the host read-only and the task's view read-write. */
    async function inSandbox(view: View, script: string, held?: HeldView) {
      const bwrap = [
        '--uid',
        String(process.getuid?.() ?? 0),
        '--gid',
        String(process.getgid?.() ?? 0)
      ]
      bwrap.push('--unshare-user', '--unshare-pid', '--die-with-parent', '--ro-bind', '/', '/')
      bwrap.push('--proc', '/proc', '--dev', '/dev', '--bind', view.at, view.at, '--chdir', view.at)
      bwrap.push('--', 'sh', '-c', script)
      const inner = { file: 'bwrap', args: bwrap }
      const cmd = held
        ? withViews(unshare, [], inner, { nsenter: '/usr/bin/nsenter', pid: held.pid })
        : withViews(unshare, [view], inner)
      return (await exec(cmd.file, cmd.args)).stdout
    }

    it('a task writes its view; the shared checkout and the other task see none of it', async () => {
      const [a, b] = [await taskView('a'), await taskView('b')]
      const outA = await inSandbox(
        a,
        [
          'echo changed > src/d0/f0.txt',
          'echo new > added.txt',
          'rm src/d1/f1.txt',
          'rm -r src/d2',
          // The shared checkout itself, and the other task's worktree, are read-only here.
          `(echo x > '${shared}/src/d0/f0.txt') 2>/dev/null || echo SHARED-READ-ONLY`,
          `(echo x > '${b.at}/pwned') 2>/dev/null || echo OTHER-READ-ONLY`,
          `ls '${b.at}' | wc -l`,
          'cat src/d0/f0.txt added.txt; ls src | tr "\\n" " "'
        ].join('\n')
      )
      expect(outA).toBe(
        'SHARED-READ-ONLY\nOTHER-READ-ONLY\n0\nchanged\nnew\nd0 d1 d3 d4 d5 d6 d7 d8 d9 '
      )
      const outB = await inSandbox(b, 'cat src/d0/f0.txt; ls added.txt 2>&1; ls src/d2 | wc -l')
      expect(outB).toBe("file 0/0\nls: cannot access 'added.txt': No such file or directory\n100\n")
      // The shared checkout is as it was; outside any namespace, the task paths are empty dirs.
      expect(await readFile(path.join(shared, 'src/d0/f0.txt'), 'utf8')).toBe('file 0/0\n')
      expect(await readdir(path.join(shared, 'src/d2'))).toHaveLength(100)
      expect(await readdir(a.at)).toEqual([])
      // A's disk is what it changed: two files, and a whiteout for each of the two it removed.
      const upper = (await exec('find', [a.upper, '-mindepth', '1', '-printf', '%P %y\n'])).stdout
      expect(upper.split('\n').filter(Boolean).sort()).toEqual(
        [
          'added.txt f',
          'src d',
          'src/d0 d',
          'src/d0/f0.txt f',
          'src/d1 d',
          'src/d1/f1.txt c',
          'src/d2 c'
        ].sort()
      )
      await dropView(a)
      await dropView(b)
      expect(await readdir(path.join(root, 'layers', 'a'))).toEqual([])
    })

    it('a view started again after its layer is dropped starts from the shared checkout', async () => {
      const c = await taskView('c')
      await inSandbox(c, 'echo first > note.txt')
      await dropView(c)
      const again = await taskView('c')
      expect(
        await inSandbox(again, 'test -e note.txt && echo KEPT || echo GONE; cat src/d9/f99.txt')
      ).toBe('GONE\nfile 9/99\n')
      await dropView(again)
    })

    it("a held view: every sandbox that enters it sees the holder's one mount", async () => {
      const d = await taskView('d')
      const held = await holdView(unshare, d)
      // The overlay's device number, as the holder's own mount namespace shows the view's path.
      const holders = (await exec('stat', ['-c', '%d', `/proc/${held.pid}/root${d.at}`])).stdout
      const dev = 'stat -c %d .'
      expect(await inSandbox(d, `echo one > note.txt && ${dev}`, held)).toBe(holders)
      // A second sandbox, as a task's next cage: the same mount, with the first one's file.
      expect(await inSandbox(d, `cat note.txt && ${dev}`, held)).toBe(`one\n${holders}`)
      await held.stop()
      expect(held.alive()).toBe(false)
      await dropView(d)
    })

    it("a held view is not entered once the run's stop is given, though its holder is still ending", async () => {
      const d = await taskView('e')
      const stop = new AbortController()
      const held = await holdView(unshare, d, stop.signal)
      expect(held.alive()).toBe(true)
      // The stop kills the holder; a cage built now (a cancelled task's seal) must not enter it.
      stop.abort()
      expect(held.alive()).toBe(false)
      await held.stop()
      await dropView(d)
    })
  }
)
