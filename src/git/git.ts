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
 * Every git command the action runs. Hooks are switched off on the command line: worktrees are
 * written by workers, and a hook they planted must never run with the action's credentials.
 */
export class Git {
  private constructor(
    readonly dir: string,
    private readonly env: NodeJS.ProcessEnv
  ) {}

  static create(dir: string, env: NodeJS.ProcessEnv = process.env): Git {
    return new Git(dir, { ...gitEnv(env), GIT_TERMINAL_PROMPT: '0', GCM_INTERACTIVE: 'never' })
  }

  at(dir: string): Git {
    return new Git(dir, this.env)
  }

  async exec(
    args: string[],
    opts: { env?: Record<string, string>; allowFailure?: boolean } = {}
  ): Promise<GitResult> {
    // No auto-maintenance (gc) after a fetch or commit: one more git process each time, on a
    // repository that lives for one run.
    const full = ['-c', 'core.hooksPath=/dev/null', '-c', 'maintenance.auto=false', ...args]
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
    return (await this.out(['status', '--porcelain', '--untracked-files=all'])) !== ''
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
