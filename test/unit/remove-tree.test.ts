// A tree a cage wrote, removed whatever it left (process/remove-tree.ts): a path deeper than the
// kernel takes, and a link where the tree was (removed as a link, its target kept).
import { execFileSync } from 'node:child_process'
import { existsSync, mkdtempSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs'
import { rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { removeTree } from '../../src/process/remove-tree.js'

const roots: string[] = []
afterEach(() => {
  for (const root of roots.splice(0)) execFileSync('rm', ['-rf', '--', root])
})

function root(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'fleet-remove-tree-'))
  roots.push(dir)
  return dir
}

/**
 * `depth` directories of eight letters one in the other under `dir`, a file at the bottom: a path
 * of 9 × depth bytes, made by one perl process (each step relative to the last).
 */
function deepTree(dir: string, depth: number): void {
  const script =
    'chdir $ARGV[0] or die; for (1..$ARGV[1]) { mkdir "dddddddd" or die; chdir "dddddddd" or die } open(F, ">f") or die'
  execFileSync('perl', ['-e', script, dir, String(depth)])
}

describe('removeTree', () => {
  it('removes a tree deeper than a path may be long, which Node alone cannot', async () => {
    const tree = path.join(root(), 'clone')
    mkdirSync(tree)
    deepTree(tree, 600)
    await expect(rm(tree, { recursive: true, force: true })).rejects.toThrow(/ENAMETOOLONG/)
    await removeTree(tree)
    expect(existsSync(tree)).toBe(false)
  })

  it('removes a link where the tree was as a link, and keeps what it points at', async () => {
    const base = root()
    const outside = path.join(base, 'outside')
    mkdirSync(outside)
    writeFileSync(path.join(outside, 'keep'), 'x')
    const link = path.join(base, 'clone')
    symlinkSync(outside, link)
    await removeTree(link)
    expect(existsSync(link)).toBe(false)
    expect(existsSync(path.join(outside, 'keep'))).toBe(true)
  })

  it('is nothing to do when the tree is gone', async () => {
    const gone = path.join(root(), 'never-made')
    await removeTree(gone)
    expect(existsSync(gone)).toBe(false)
  })
})
