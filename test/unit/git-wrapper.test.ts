import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync
} from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { Git } from '../../src/git/git.js'
import { git as runGit } from '../support/git.js'

const SRC = path.join(__dirname, '..', '..', 'src')

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap(name => {
    const file = path.join(dir, name)
    if (statSync(file).isDirectory()) return name === 'demo' ? [] : sources(file)
    return file.endsWith('.ts') ? [file] : []
  })
}

// Any way of starting a child (process.ts's run/runOk, child_process, spawn.ts's spawnGroup) with
// git as the program, or git reached through a shell string run on the host.
const STARTS_GIT =
  /\b(?:run|runOk|runCommand|spawn|spawnSync|spawnGroup|spawnWorker|execFile|execFileSync|execSync|exec)\(\s*['"`]git['"`]/

describe('git is started only through the Git wrapper', () => {
  it('finds no other place in src/ that starts git', () => {
    const offenders = sources(SRC)
      .filter(file => !file.endsWith(path.join('git', 'git.ts')))
      .filter(file => STARTS_GIT.test(readFileSync(file, 'utf8')))
      .map(file => path.relative(SRC, file))
    expect(offenders).toEqual([])
  })

  it('the pattern catches the forms it is meant to', () => {
    for (const line of [
      "run('git', ['status'])",
      'runOk("git", args)',
      "spawn('git', ['fetch'], {})",
      'execFileSync(`git`, [])'
    ])
      expect(STARTS_GIT.test(line), line).toBe(true)
    expect(STARTS_GIT.test("run('npm', ['ci'])")).toBe(false)
  })
})

const sh = (cwd: string, args: string[]) => runGit(cwd, ...args)

/**
 * As a worker would leave it: a nested repository committed as a gitlink, whose own config runs a
 * program from git status (fsmonitor) or from a clean filter. The program writes a marker file.
 */
function hostileTree(kind: 'fsmonitor' | 'filter') {
  const root = mkdtempSync(path.join(tmpdir(), 'fleet-gitwrap-'))
  const marker = path.join(root, 'ran')
  const outer = path.join(root, 'outer')
  const nested = path.join(outer, 'nested')
  const ident = ['-c', 'user.name=t', '-c', 'user.email=t@example.com']
  sh(root, ['init', '-q', outer])
  sh(root, ['init', '-q', nested])
  writeFileSync(path.join(nested, 'a.txt'), 'a\n')
  if (kind === 'filter') writeFileSync(path.join(nested, '.gitattributes'), '*.txt filter=evil\n')
  sh(nested, ['add', '.'])
  sh(nested, [...ident, 'commit', '-qm', 'nested'])
  const program = path.join(root, 'evil.sh')
  writeFileSync(program, `#!/bin/sh\ntouch '${marker}'\ncat\n`, { mode: 0o755 })
  // Configured once committed: the driver is to run in the action's git, not in this set-up.
  sh(nested, ['config', kind === 'fsmonitor' ? 'core.fsmonitor' : 'filter.evil.clean', program])
  sh(outer, ['add', 'nested'])
  sh(outer, [...ident, 'commit', '-qm', 'gitlink'])
  // A change inside the nested repository: git status of the outer one would step into it.
  writeFileSync(path.join(nested, 'a.txt'), 'b\n')
  return { outer, marker }
}

describe('the Git wrapper runs no program a nested repository configures', () => {
  for (const kind of ['fsmonitor', 'filter'] as const) {
    it(`${kind}: plain git status runs it, the wrapper's does not`, async () => {
      const plain = hostileTree(kind)
      sh(plain.outer, ['status', '--porcelain'])
      // The attack is real: unhardened git runs the nested repository's program.
      expect(existsSync(plain.marker)).toBe(true)

      const hostile = hostileTree(kind)
      const git = Git.create(hostile.outer)
      await git.hasUncommitted()
      await git.exec(['diff', '--stat'])
      await git.exec(['status', '--porcelain'])
      // Not `add`: `git add --all` over a dirty gitlink still runs the nested filter whatever the
      // flags, which is why the action commits a task's files only inside its cage (worker/exit.ts).
      expect(existsSync(hostile.marker)).toBe(false)
    })
  }

  it('refuses transports the action does not use', async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'fleet-gitwrap-'))
    const git = Git.create(root)
    await git.exec(['init', '-q'])
    const r = await git.exec(['ls-remote', 'ext::sh -c touch% /tmp/x'], { allowFailure: true })
    expect(r.exitCode).not.toBe(0)
    expect(r.stderr).toMatch(/transport 'ext' not allowed/)
  })
})
