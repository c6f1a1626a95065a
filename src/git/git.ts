import { execFile } from 'node:child_process'

export interface GitResult {
  exitCode: number
  stdout: string
  stderr: string
}

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
 * Every git command the action runs. Hooks are switched off on the command line: worktrees are
 * written by workers, and a hook they planted must never run with the action's credentials.
 */
export class Git {
  private constructor(
    readonly dir: string,
    private readonly env: NodeJS.ProcessEnv
  ) {}

  static create(dir: string, env: NodeJS.ProcessEnv = process.env): Git {
    return new Git(dir, { ...env, GIT_TERMINAL_PROMPT: '0', GCM_INTERACTIVE: 'never' })
  }

  at(dir: string): Git {
    return new Git(dir, this.env)
  }

  async exec(
    args: string[],
    opts: { env?: Record<string, string>; allowFailure?: boolean } = {}
  ): Promise<GitResult> {
    const full = ['-c', 'core.hooksPath=/dev/null', ...args]
    const result = await new Promise<GitResult>(resolve => {
      execFile(
        'git',
        full,
        { cwd: this.dir, env: { ...this.env, ...opts.env }, maxBuffer: 64 * 1024 * 1024 },
        (error, stdout, stderr) => {
          const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0
          resolve({ exitCode: code, stdout, stderr })
        }
      )
    })
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
  const basic = Buffer.from(`x-access-token:${token}`).toString('base64')
  return {
    GIT_CONFIG_COUNT: String(index + 1),
    [`GIT_CONFIG_KEY_${index}`]: `http.${new URL(remoteUrl).origin}/.extraheader`,
    [`GIT_CONFIG_VALUE_${index}`]: `AUTHORIZATION: basic ${basic}`
  }
}
