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
import { loggingGit, git as runGit, subcommandOf } from '../support/git.js'

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

/**
 * A repository whose own config and .gitattributes name a clean and smudge filter, a textconv, an
 * external diff and a merge driver, each a program that writes a marker file: what a worker could
 * leave if the action's git ever read its repository. A branch `side` conflicts with HEAD.
 */
function driverRepo() {
  const root = mkdtempSync(path.join(tmpdir(), 'fleet-gitwrap-drivers-'))
  const marker = path.join(root, 'ran')
  const repo = path.join(root, 'repo')
  const ident = ['-c', 'user.name=t', '-c', 'user.email=t@example.com']
  const program = path.join(root, 'evil.sh')
  writeFileSync(program, `#!/bin/sh\necho "$0 $*" >> '${marker}'\ncat\n`, { mode: 0o755 })
  sh(root, ['init', '-q', '--initial-branch=main', repo])
  writeFileSync(path.join(repo, '.gitattributes'), '* filter=evil diff=evil merge=evil\n')
  writeFileSync(path.join(repo, 'a.txt'), 'a\n')
  sh(repo, ['add', '.'])
  sh(repo, [...ident, 'commit', '-qm', 'one'])
  sh(repo, ['checkout', '-q', '-b', 'side'])
  writeFileSync(path.join(repo, 'a.txt'), 'side\n')
  sh(repo, [...ident, 'commit', '-qam', 'side'])
  sh(repo, ['checkout', '-q', 'main'])
  writeFileSync(path.join(repo, 'a.txt'), 'main\n')
  sh(repo, [...ident, 'commit', '-qam', 'main'])
  // Configured last: only the commands under test can meet them.
  for (const [key, value] of [
    ['filter.evil.clean', program],
    ['filter.evil.smudge', program],
    ['filter.evil.required', 'true'],
    ['diff.evil.textconv', program],
    ['diff.evil.command', program],
    ['merge.evil.driver', `${program} %O %A %B`],
    ['diff.external', program]
  ] as const)
    sh(repo, ['config', key, value])
  writeFileSync(path.join(repo, 'a.txt'), 'changed\n')
  return { repo, marker, ident }
}

describe('the Git wrapper runs no program an attribute selects', () => {
  it('plain git runs the filter, textconv and diff drivers: the attack is real', () => {
    const { repo, marker } = driverRepo()
    sh(repo, ['status', '--porcelain'])
    sh(repo, ['diff'])
    expect(readFileSync(marker, 'utf8')).toMatch(/evil\.sh/)
  })

  it('status, diff, log -p, show, add, commit, reset --hard, checkout and merge through the wrapper run none', async () => {
    const { repo, marker, ident } = driverRepo()
    const git = Git.create(repo)
    expect(await git.hasUncommitted()).toBe(true)
    const diff = await git.exec(['diff'])
    // The diff is still made, by git itself: the drivers are skipped, not the command.
    expect(diff.stdout).toMatch(/-main\n\+changed/)
    await git.exec(['log', '-p', '-2'])
    await git.exec(['show', 'HEAD'])
    await git.exec(['diff', 'HEAD~1', 'HEAD'])
    await git.exec(['add', 'a.txt'])
    await git.exec([...ident, 'commit', '-qm', 'changed'])
    await git.exec(['reset', '-q', '--hard', 'HEAD~1'])
    await git.exec(['checkout', '-q', 'side'])
    await git.exec(['checkout', '-q', 'main'])
    // The merge driver is emptied: the merge fails instead of running it.
    const merge = await git.exec([...ident, 'merge', '--no-edit', 'side'], { allowFailure: true })
    expect(merge.exitCode).not.toBe(0)
    expect(existsSync(marker)).toBe(false)
  })

  it('a driver configured through the wrapper after its first command is switched off too', async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'fleet-gitwrap-later-'))
    const marker = path.join(root, 'ran')
    const git = Git.create(root)
    await git.exec(['init', '-q'])
    writeFileSync(path.join(root, '.gitattributes'), '* filter=late\n')
    writeFileSync(path.join(root, 'a.txt'), 'a\n')
    await git.exec(['status', '--porcelain'])
    await git.exec(['config', 'filter.late.clean', `touch '${marker}'; cat`])
    await git.exec(['add', 'a.txt'])
    expect(existsSync(marker)).toBe(false)
    // Plain git would have run it.
    sh(root, ['add', '--renormalize', 'a.txt'])
    expect(existsSync(marker)).toBe(true)
  })

  it('a worktree given its git dir by tree() reads neither a rewritten .git nor the repository it names', async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'fleet-gitwrap-tree-'))
    const main = path.join(root, 'main')
    const wt = path.join(root, 'wt')
    sh(root, ['init', '-q', '--initial-branch=main', main])
    writeFileSync(path.join(main, 'a.txt'), 'a\n')
    sh(main, ['add', '.'])
    sh(main, ['-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'one'])
    sh(main, ['worktree', 'add', '-q', '-b', 'task', wt])
    const gitDir = sh(wt, ['rev-parse', '--absolute-git-dir']).trim()
    // As a cage would: a repository of its own whose config runs a program, and .git pointing there.
    const { repo: planted, marker } = driverRepo()
    sh(planted, ['config', 'core.fsmonitor', path.join(path.dirname(marker), 'evil.sh')])
    writeFileSync(path.join(wt, '.git'), `gitdir: ${planted}/.git\n`)
    writeFileSync(path.join(wt, '.gitattributes'), '* filter=evil diff=evil\n')
    writeFileSync(path.join(wt, 'a.txt'), 'changed\n')
    // Through discovery, the wrapper lands in the planted repository (its branch, not the task's).
    expect(await Git.create(wt).out(['rev-parse', '--abbrev-ref', 'HEAD'])).toBe('main')
    const git = Git.create(main).tree(wt, gitDir)
    expect(await git.out(['rev-parse', '--abbrev-ref', 'HEAD'])).toBe('task')
    const status = await git.exec(['status', '--porcelain', '--untracked-files=all'])
    expect(status.stdout).toBe(' M a.txt\n?? .gitattributes\n')
    await git.exec(['diff'])
    await git.exec(['reset', '-q', '--hard'])
    expect(existsSync(marker)).toBe(false)
  })
})

describe('the Git wrapper lists the drivers only where a command could run one', () => {
  /** A Git whose every git process is logged; `ran()` gives the subcommands since last asked. */
  function logged() {
    const root = mkdtempSync(path.join(tmpdir(), 'fleet-gitwrap-count-'))
    const repo = path.join(root, 'repo')
    sh(root, ['init', '-q', '--initial-branch=main', repo])
    writeFileSync(path.join(repo, 'a.txt'), 'a\n')
    sh(repo, ['add', '.'])
    sh(repo, ['-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'one'])
    const { bin, calls } = loggingGit(root)
    const git = Git.create(repo, { ...process.env, PATH: `${bin}:${process.env.PATH}` })
    return { git, ran: () => calls().map(subcommandOf) }
  }

  it('rev-parse, update-ref, symbolic-ref and count-objects start one git process each', async () => {
    const { git, ran } = logged()
    await git.exec(['rev-parse', 'HEAD', '--absolute-git-dir'])
    await git.exec(['update-ref', 'refs/x', 'HEAD'])
    await git.exec(['symbolic-ref', 'HEAD'])
    await git.exec(['count-objects', '-v'])
    expect(ran()).toEqual(['rev-parse', 'update-ref', 'symbolic-ref', 'count-objects'])
    // A command that reads files lists the drivers first, once per Git.
    await git.exec(['status', '--porcelain'])
    await git.exec(['status', '--porcelain'])
    expect(ran()).toEqual(['config', 'status', 'status'])
  })

  it('a config the action just made names no driver: nothing listed, until a config command', async () => {
    const { git, ran } = logged()
    git.namesNoDriver()
    await git.exec(['status', '--porcelain'])
    expect(ran()).toEqual(['status'])
    await git.exec(['config', 'user.name', 't'])
    await git.exec(['status', '--porcelain'])
    expect(ran()).toEqual(['config', 'config', 'status'])
  })
})
