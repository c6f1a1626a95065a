// Git as the tests run it: none of the machine's system or global config, a fixed author and
// committer, so a test's commits and what git prints do not depend on who runs it.
import { execFileSync } from 'node:child_process'

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
