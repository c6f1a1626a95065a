import { type Ran, run } from '../process.js'

export type GitResult = Ran

export class GitError extends Error {
  override name = 'GitError'
  constructor(
    readonly args: string[],
    readonly result: GitResult
  ) {
    super(
      `git ${args[0] ?? ''} failed (${result.exitCode}): ${result.stderr.trim().split('\n').slice(-3).join(' ')}`
    )
  }
}

/**
 * What git needs from the environment, and nothing else: the action's own environment holds
 * INPUT_GITHUB-TOKEN, GITHUB_TOKEN, ACTIONS_* and the model key, and a git process's environment
 * can be read by any process of the same user (/proc/<pid>/environ). GIT_* stays (the runner's and
 * a test's config, e.g. GIT_CONFIG_COUNT), as do the proxy and certificate settings.
 */
const GIT_ENV =
  /^(?:PATH|HOME|USER|LOGNAME|SHELL|LANG|LANGUAGE|LC_\w+|TZ|TMPDIR|TERM|GIT_\w+|SSH_AUTH_SOCK|GNUPGHOME|SSL_CERT_FILE|SSL_CERT_DIR|CURL_CA_BUNDLE|(?:HTTPS?|NO|ALL)_PROXY|(?:https?|no|all)_proxy|XDG_CONFIG_HOME)$/

export function gitEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([name]) => GIT_ENV.test(name)))
}

/**
 * What every git command of the action is told on its command line. A repository's own config
 * may come from a worker (a nested repository in a work tree, a clone it wrote): nothing in it may
 * run a program as the runner user. Hooks go nowhere, fsmonitor is off, submodules are never
 * recursed into (git would read their config: `core.fsmonitor`, `filter.<x>.clean`), and only the
 * transports the action uses are allowed: http(s) for the remote, file for local clones and
 * bundle files, ssh for a local run whose origin is an ssh URL (its config is the user's own).
 * No auto-maintenance (gc) after a fetch or commit either: one more git process each time, on a
 * repository that lives for one run.
 */
export const HARDENED = [
  'core.hooksPath=/dev/null',
  'core.fsmonitor=false',
  'submodule.recurse=false',
  'diff.ignoreSubmodules=all',
  'protocol.allow=never',
  'protocol.http.allow=always',
  'protocol.https.allow=always',
  'protocol.file.allow=always',
  'protocol.ssh.allow=always',
  'maintenance.auto=false'
].flatMap(setting => ['-c', setting])

/** No system or global config: a runner's `~/.gitconfig` is not the action's to trust. */
export const HARDENED_ENV = {
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_TERMINAL_PROMPT: '0',
  GCM_INTERACTIVE: 'never'
} as const

/**
 * Every git command the action runs (a unit test fails if src/ starts git any other way). Config
 * that could run a program is switched off on the command line (HARDENED): work trees are written
 * by workers, and a hook, fsmonitor or filter they planted must never run with the action's
 * credentials.
 */
export class Git {
  private constructor(
    readonly dir: string,
    private readonly env: NodeJS.ProcessEnv
  ) {}

  static create(dir: string, env: NodeJS.ProcessEnv = process.env): Git {
    return new Git(dir, { ...gitEnv(env), ...HARDENED_ENV })
  }

  at(dir: string): Git {
    return new Git(dir, this.env)
  }

  async exec(
    args: string[],
    opts: { env?: Record<string, string>; allowFailure?: boolean } = {}
  ): Promise<GitResult> {
    const full = [...HARDENED, ...args]
    const result = await run('git', full, { cwd: this.dir, env: { ...this.env, ...opts.env } })
    if (result.exitCode !== 0 && !opts.allowFailure) throw new GitError(args, result)
    return result
  }

  async out(args: string[]): Promise<string> {
    return (await this.exec(args)).stdout.trim()
  }

  async tryRevParse(ref: string): Promise<string | undefined> {
    const r = await this.exec(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`], {
      allowFailure: true
    })
    return r.exitCode === 0 ? r.stdout.trim() : undefined
  }

  async hasUncommitted(): Promise<boolean> {
    const args = ['status', '--porcelain', '--untracked-files=all', '--ignore-submodules=all']
    return (await this.out(args)) !== ''
  }
}

/**
 * Credentials for one command, through git's environment config (never argv, never a file):
 * `http.<origin>/.extraheader` as actions/checkout sets it.
 */
export function authEnv(
  remoteUrl: string,
  token: string | undefined,
  base: NodeJS.ProcessEnv
): Record<string, string> {
  if (!token || !/^https?:/.test(remoteUrl)) return {}
  const index = Number(base.GIT_CONFIG_COUNT ?? 0) || 0
  const basic = tokenForms(token)[1] ?? ''

  return {
    GIT_CONFIG_COUNT: String(index + 1),
    [`GIT_CONFIG_KEY_${index}`]: `http.${new URL(remoteUrl).origin}/.extraheader`,
    [`GIT_CONFIG_VALUE_${index}`]: `AUTHORIZATION: basic ${basic}`
  }
}

/**
 * A remote URL with any `user:token@` removed: the fleet's clone is where workers read, and its
 * credential comes from the command's environment (authEnv) instead.
 */
export function withoutUserinfo(url: string): string {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) return url
  try {
    const parsed = new URL(url)
    if (!parsed.username && !parsed.password) return url
    parsed.username = ''
    parsed.password = ''
    return parsed.href
  } catch {
    return url
  }
}

/** Every form a token takes on its way to git: itself and authEnv's basic-auth header value. */
export function tokenForms(token: string | undefined): string[] {
  if (!token) return []
  return [token, Buffer.from(`x-access-token:${token}`).toString('base64')]
}
