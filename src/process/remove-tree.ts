/**
 * A tree a cage wrote (its clone, its home, a view's private layer, a seal's directory), removed
 * whatever the cage left in it. Node's `rm` stops at a directory its owner may not empty (mode 500)
 * and at a path longer than the kernel takes (ENAMETOOLONG: over 4,096 bytes, such as 600
 * directories of eight letters); there GNU `chmod -R u+rwX` and `rm -rf`, which walk the tree by
 * directory handle at any depth, finish it (what `chmod` cannot change, `rm` still tries). `rm`
 * stays on the tree's file system. Only a directory is chmod'ed: `chmod -R` follows a link named
 * on its command line (never one inside the tree).
 */
import { lstatSync } from 'node:fs'
import { rm } from 'node:fs/promises'
import { run, runOk } from '../process.js'

/** What Node's rm meets in a tree a cage made hard to remove. */
const STOPPED = new Set(['EACCES', 'EPERM', 'ENAMETOOLONG'])

export async function removeTree(dir: string): Promise<void> {
  try {
    await rm(dir, { recursive: true, force: true })
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? ''
    if (!STOPPED.has(code) || !lstatSync(dir, { throwIfNoEntry: false })?.isDirectory()) throw error
    const opts = { env: { PATH: '/usr/bin:/bin' } }
    await run('chmod', ['-R', 'u+rwX', '--', dir], opts)
    await runOk('rm', ['-rf', '--one-file-system', '--', dir], opts)
  }
}
