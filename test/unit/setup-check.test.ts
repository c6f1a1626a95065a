// What setup left, as the action reads it: one `git status -z` (in setup's cage when the task's
// files are a view, read as a file written by the cage: no symlink followed, size capped).
import { execFileSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  parseStatus,
  quotedPath,
  readLeftovers,
  SETUP_CHECK,
  STATUS_ARGS
} from '../../src/fleet/setup-check.js'
import { readCageFile } from '../../src/worker/cage-file.js'

const GIT_ENV = {
  ...process.env,
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 't',
  GIT_AUTHOR_EMAIL: 't@example.com',
  GIT_COMMITTER_NAME: 't',
  GIT_COMMITTER_EMAIL: 't@example.com'
}
const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', args, { cwd, env: GIT_ENV, encoding: 'utf8' })

describe("setup's leftovers, listed in its cage", () => {
  let dir: string
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'fleet-setup-check-'))
  })
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true })
  })

  it('reads the listing as it was written', async () => {
    await writeFile(path.join(dir, 'status'), '?? node_modules/\0?? .setup/\0')
    expect(await readLeftovers(dir)).toEqual({
      tracked: [],
      untracked: ['node_modules/', '.setup/']
    })
  })

  it('refuses a symlink the cage planted in place of the listing', async () => {
    const secret = path.join(dir, 'secret')
    await writeFile(secret, '?? a\0')
    await symlink(secret, path.join(dir, 'status'))
    await expect(readLeftovers(dir)).rejects.toThrow(/ELOOP|symbolic/)
  })

  it('refuses a FIFO in place of the listing without waiting on it', async () => {
    execFileSync('mkfifo', [path.join(dir, 'status')])
    await expect(readLeftovers(dir)).rejects.toThrow(/not a regular file/)
  })

  it('refuses a missing listing (the check did not run) and one past its cap', async () => {
    await expect(readLeftovers(dir)).rejects.toThrow(/ENOENT/)
    await writeFile(path.join(dir, 'status'), Buffer.alloc(4 * 1024 * 1024 + 1, 0x41))
    await expect(readLeftovers(dir)).rejects.toThrow(/at most/)
  })

  it('refuses what git does not write', () => {
    expect(() => parseStatus('?? a\nb')).toThrow(/end with a NUL/)
    expect(() => parseStatus('garbage\0')).toThrow(/git does not write/)
    expect(() => parseStatus('R  new\0')).toThrow(/inside a rename/)
  })

  it('reads a real git status: changed, deleted, renamed, untracked, ignored left out', async () => {
    git(dir, 'init', '-q')
    await writeFile(path.join(dir, '.gitignore'), '*.log\n')
    for (const f of ['a.txt', 'b.txt', 'c.txt', 'new\nline.txt'])
      await writeFile(path.join(dir, f), f)
    git(dir, 'add', '-A')
    git(dir, 'commit', '-qm', 'base')
    await writeFile(path.join(dir, 'a.txt'), 'changed')
    await rm(path.join(dir, 'b.txt'))
    git(dir, 'mv', 'c.txt', 'd.txt')
    await writeFile(path.join(dir, 'new\nline.txt'), 'changed')
    await mkdir(path.join(dir, 'node_modules', 'x'), { recursive: true })
    await writeFile(path.join(dir, 'node_modules', 'x', 'i.js'), '')
    await writeFile(path.join(dir, 'top.txt'), '')
    await writeFile(path.join(dir, 'debug.log'), '')
    const left = parseStatus(git(dir, ...STATUS_ARGS))
    expect(left.untracked.sort()).toEqual(['node_modules/', 'top.txt'])
    expect(left.tracked.sort()).toEqual(['"new\\nline.txt"', 'a.txt', 'b.txt', 'c.txt -> d.txt'])
  })

  it('quotes a name as git does, so no newline reaches the log', () => {
    expect(quotedPath('plain/name.txt')).toBe('plain/name.txt')
    expect(quotedPath('a\nb')).toBe('"a\\nb"')
    expect(quotedPath('tab\t"q"\\')).toBe('"tab\\t\\"q\\"\\\\"')
    expect(quotedPath('é')).toBe('"\\303\\251"')
  })

  it('runs the setup command from the environment, never spliced into its own text', () => {
    expect(SETUP_CHECK).toContain('sh -c "$FLEET_SETUP"')
    expect(SETUP_CHECK).toContain('"$FLEET_SETUP_OUT/status"')
    expect(SETUP_CHECK.match(/\bg status\b/g)).toHaveLength(1)
    expect(SETUP_CHECK).not.toContain('ls-files')
  })
})

describe('a file a cage wrote', () => {
  let dir: string
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'fleet-cage-file-'))
  })
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true })
  })

  it('keeps its tail past the cap when asked, else refuses it', () => {
    const file = path.join(dir, 'log')
    writeFileSync(file, 'head-' + 'x'.repeat(100) + '-tail')
    expect(readCageFile(file, 5, { tail: true })).toBe('-tail')
    expect(() => readCageFile(file, 5)).toThrow(/at most 5 bytes/)
    expect(readCageFile(file, 1000)).toMatch(/^head-x+-tail$/)
  })
})
