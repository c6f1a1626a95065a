// Git as the tests run it: none of the machine's system or global config, a fixed author and
// committer, so a test's commits and what git prints do not depend on who runs it.
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'

export const GIT_ENV = {
  ...process.env,
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 'w',
  GIT_AUTHOR_EMAIL: 'w@example.com',
  GIT_COMMITTER_NAME: 'w',
  GIT_COMMITTER_EMAIL: 'w@example.com'
}

/** Runs git in `cwd` with GIT_ENV; its output, trimmed. Throws (with stderr) when git fails. */
export const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', args, { cwd, env: GIT_ENV, encoding: 'utf8', stdio: 'pipe' }).trim()

/** git with `input` on its stdin (a fast-import stream); its output, trimmed. Throws as `git`. */
export const gitWithInput = (cwd: string, input: string, ...args: string[]): string =>
  execFileSync('git', args, { cwd, env: GIT_ENV, encoding: 'utf8', input, stdio: 'pipe' }).trim()

/** A temp folder holding `fleet`, a repository on main with one commit (a.txt): its start commit. */
export function baseRepo(prefix: string): { root: string; fleet: string; start: string } {
  const root = mkdtempSync(path.join(tmpdir(), prefix))
  const fleet = path.join(root, 'fleet')
  git(root, 'init', '-q', '-b', 'main', fleet)
  writeFileSync(path.join(fleet, 'a.txt'), 'a\n')
  git(fleet, 'add', '.')
  git(fleet, 'commit', '-qm', 'base')
  return { root, fleet, start: git(fleet, 'rev-parse', 'HEAD') }
}

/** Writes `name` (its stem and a newline) in `dir` and commits it alone with `message`. */
export function commitFile(dir: string, name: string, message: string): void {
  writeFileSync(path.join(dir, name), `${name.replace(/\..*$/, '')}\n`)
  git(dir, 'add', name)
  git(dir, 'commit', '-qm', message)
}

/**
 * A `git` that logs each call's arguments (one line, joined by spaces), then runs the real git:
 * put `bin` first on PATH. `calls()` reads the calls logged since it was last asked.
 */
export function loggingGit(dir: string): { bin: string; calls: () => string[] } {
  const bin = path.join(dir, 'logging-git')
  const log = path.join(dir, 'git-calls.log')
  const real = git(dir, '--exec-path')
  mkdirSync(bin, { recursive: true })
  writeFileSync(
    path.join(bin, 'git'),
    `#!/bin/sh\necho "$*" >> '${log}'\nexec '${real}/git' "$@"\n`,
    { mode: 0o755 }
  )
  const calls = () => {
    const lines = existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean) : []
    rmSync(log, { force: true })
    return lines
  }
  return { bin, calls }
}

/** A logged call's git subcommand: its first word after any `-c name=value`. */
export function subcommandOf(call: string): string {
  const words = call.split(' ')
  let i = 0
  while (words[i] === '-c') i += 2
  return words[i] ?? ''
}
