import path from 'node:path'
import { type Child, exitCodeOf, type Ran, run, startChild } from '../process.js'

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
  'maintenance.auto=false',
  // No attributes from the runner user's own file: only the repository's can name a driver.
  'core.attributesFile=/dev/null'
].flatMap(setting => ['-c', setting])

/**
 * Config keys that name a program an attribute can select (`filter=`, `diff=`, `merge=` in a
 * .gitattributes a worker wrote): clean, smudge and process filters, textconv and external diff
 * drivers, merge drivers. Each one set in the repository's config is emptied on the command line
 * (driverOff): an emptied filter is skipped, an emptied diff or merge driver fails the command
 * instead of running anything. Diffs are also made with --no-ext-diff --no-textconv (DIFFING).
 */
const DRIVER_KEYS =
  '^(filter\\..+\\.(clean|smudge|process|required)|diff\\..+\\.(textconv|command)|merge\\..+\\.driver|diff\\.external)$'

/** The subcommands that would run a textconv or external diff driver, and their switch to not. */
const DIFFING = new Set(['diff', 'log', 'show', 'whatchanged', 'format-patch'])
const NO_DRIVERS = ['--no-ext-diff', '--no-textconv']

/**
 * Subcommands that run no driver: they read or write config, refs, object names and packs, never a
 * file's contents (`remote update` fetches, which runs none either). Nothing to list: one git
 * process less each.
 */
const NO_ATTRIBUTES = new Set([
  'init',
  'ls-remote',
  'config',
  'remote',
  'rev-parse',
  'update-ref',
  'symbolic-ref',
  'count-objects',
  'index-pack'
])

/** The first word that is not a `-c key=value` pair: the subcommand. */
function subcommandAt(args: string[]): number {
  let i = 0
  while (args[i] === '-c') i += 2
  return i
}

/** `args` with diffing subcommands told to run no driver. */
function withoutDiffDrivers(args: string[]): string[] {
  const at = subcommandAt(args)
  if (!DIFFING.has(args[at] ?? '')) return args
  return [...args.slice(0, at + 1), ...NO_DRIVERS, ...args.slice(at + 1)]
}

/** A driver key emptied; a key `-c` cannot carry (a subsection with `=`) is refused instead. */
function driverOff(key: string): string[] {
  if (key.includes('=') || key.includes('\n'))
    throw new Error(
      `the repository's config names a driver '${key}' that cannot be switched off; its git commands are refused`
    )
  return key.endsWith('.required') ? ['-c', `${key}=false`] : ['-c', `${key}=`]
}

/** No system or global config: a runner's `~/.gitconfig` is not the action's to trust. */
export const HARDENED_ENV = {
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_TERMINAL_PROMPT: '0',
  GCM_INTERACTIVE: 'never',
  GIT_ATTR_NOSYSTEM: '1'
} as const

/**
 * Every git command the action runs (a unit test fails if src/ starts git any other way). Config
 * that could run a program is switched off on the command line (HARDENED, and the drivers the
 * repository's config names: driverOff): work trees are written by workers, and a hook, fsmonitor,
 * filter or diff driver they planted must never run with the action's credentials.
 */
export class Git {
  /** The repository's driver keys (DRIVER_KEYS), read once: see drivers(). */
  private driverKeys?: Promise<string[]>

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

  /**
   * A work tree a cage may have written (a task's worktree), with its git dir named: git then
   * discovers nothing there, so a `.git` a worker rewrote, or a repository it made inside, is
   * never read. `gitDir` is the action's own (the worktree's admin dir in the fleet's clone, read
   * when the action made the worktree). The ceiling is a belt: with GIT_DIR set git looks nowhere.
   */
  tree(workTree: string, gitDir: string): Git {
    return new Git(workTree, {
      ...this.env,
      GIT_DIR: gitDir,
      GIT_WORK_TREE: workTree,
      GIT_CEILING_DIRECTORIES: path.dirname(workTree)
    })
  }

  /**
   * tree() for an admin dir the action has just made and that holds no config of its own: its
   * git reads this repository's config alone, so the driver keys this Git read (or knows to be
   * none) are its too, with no git process to list them again.
   */
  madeTree(workTree: string, gitDir: string): Git {
    const made = this.tree(workTree, gitDir)
    made.driverKeys = this.driverKeys
    return made
  }

  async exec(
    args: string[],
    opts: { env?: Record<string, string>; allowFailure?: boolean; stdin?: string | Uint8Array } = {}
  ): Promise<GitResult> {
    const { full, env } = await this.command(args, opts.env)
    const result = await run('git', full, { cwd: this.dir, env, stdin: opts.stdin })
    if (args[subcommandAt(args)] === 'config') this.driverKeys = undefined
    if (result.exitCode !== 0 && !opts.allowFailure) throw new GitError(args, result)
    return result
  }

  /** A command whose output is bytes (`pack-objects --stdout`): all of it, or a GitError. */
  async bytes(args: string[], stdin: string): Promise<Buffer> {
    const { full, env } = await this.command(args)
    const child = startChild('git', full, { cwd: this.dir, env, stdin, hunt: false })
    const chunks: Buffer[] = []
    child.stdout?.on('data', (chunk: Buffer) => chunks.push(chunk))
    const ended = await child.result
    const result = { ...ended, exitCode: exitCodeOf(ended) }
    if (result.exitCode !== 0) throw new GitError(args, result)
    return Buffer.concat(chunks)
  }

  /**
   * A command kept running for requests on its stdin (`update-ref --stdin`: ref-writer.ts),
   * started as exec's are; it ends when its stdin does.
   */
  async keep(args: string[]): Promise<Child> {
    const { full, env } = await this.command(args)
    return startChild('git', full, { cwd: this.dir, env, holdStdin: true, hunt: false })
  }

  /** The command line every git command runs with (HARDENED, the drivers off), and its environment. */
  private async command(args: string[], extra?: Record<string, string>) {
    const env = { ...this.env, ...extra }
    const keys = NO_ATTRIBUTES.has(args[subcommandAt(args)] ?? '')
      ? []
      : await this.drivers(env, !!(extra?.GIT_DIR ?? extra?.GIT_WORK_TREE))
    return { full: [...HARDENED, ...keys.flatMap(driverOff), ...withoutDiffDrivers(args)], env }
  }

  /**
   * The driver keys set in the repository's config, read once per Git (one git process less per
   * command): its git dir is the action's own, never one a cage can write, so its config changes
   * only through this wrapper, and a `config` command here reads it again. A command whose own
   * environment names another git dir reads that one's.
   */
  private drivers(env: NodeJS.ProcessEnv, elsewhere: boolean): Promise<string[]> {
    const read = async () => {
      const args = [...HARDENED, 'config', '-z', '--name-only', '--get-regexp', DRIVER_KEYS]
      const r = await run('git', args, { cwd: this.dir, env })
      // 1: none set. Worse (no repository yet, a config git cannot parse): the command meets it too.
      if (r.exitCode > 1) return undefined
      return r.stdout.split('\0').filter(Boolean)
    }
    if (elsewhere) return read().then(keys => keys ?? [])
    this.driverKeys ??= read().then(keys => {
      if (!keys) this.driverKeys = undefined
      return keys ?? []
    })
    return this.driverKeys
  }

  /**
   * Its config is the action's own, made by `init` and written since through this wrapper with no
   * driver key (the fleet's clone): no command lists them until a `config` command changes it.
   */
  namesNoDriver(): void {
    this.driverKeys = Promise.resolve([])
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
