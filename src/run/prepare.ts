/**
 * Preparing a run's workers, once, for every path that runs one (the fleet, the planner, a merge
 * turn that brings a fleet PR up to date): the model key, the skills, the cage (the isolation's
 * preflight), the worker binary and where to push. Each piece is made on first need and kept, so
 * a goal's planner and its fleet share one preflight and one binary.
 */
import path from 'node:path'
import type { Config } from '../config.js'
import type { RunContext } from '../context.js'
import { InputError } from '../errors.js'
import { Git, withoutUserinfo } from '../git/git.js'
import type { Io } from '../io.js'
import { findOnPath, resolveClaude, type VersionProbe } from '../worker/install.js'
import { type Isolation, prepareIsolation } from '../cage/isolation.js'
import { resolveSkills } from '../worker/skills.js'

/** What every worker of a run needs before the first starts. */
export interface WorkerSetup {
  apiKey: string
  skills: string[]
  isolation: Isolation
  /** The claude the workers run (the image's own in a container). */
  claude: string
  remoteUrl: string
}

/** Where to push: the checkout's origin (without any credential in it), else the repository on the server. */
async function remoteUrlOf(ctx: RunContext): Promise<string> {
  const got = await Git.create(ctx.workspace).exec(['remote', 'get-url', 'origin'], {
    allowFailure: true
  })
  const origin = got.exitCode === 0 ? got.stdout.trim() : ''
  return withoutUserinfo(origin) || `${ctx.serverUrl}/${ctx.owner}/${ctx.repo}.git`
}

export class Preparation {
  #isolation?: Promise<Isolation>
  #claude?: Promise<string>

  constructor(
    private readonly run: {
      config: Config
      ctx: RunContext
      io: Io
      env: NodeJS.ProcessEnv
      apiKey?: string
    }
  ) {}

  /** The model key, or an error naming the input; `who` says which worker asked (the planner). */
  apiKey(who = ''): string {
    if (!this.run.apiKey)
      throw new InputError(
        'api-key',
        `no model key${who}: pass a repository secret, e.g. api-key: \${{ secrets.ANTHROPIC_API_KEY }}`
      )
    return this.run.apiKey
  }

  /** Where the run pushes. Read anew each time: one git process. */
  remoteUrl(): Promise<string> {
    return remoteUrlOf(this.run.ctx)
  }

  /**
   * The cage before any worker or model request: the sandbox's preflight (which fails closed with
   * one sentence naming the fix, never falling back to process), or the warning that process is none.
   */
  isolation(): Promise<Isolation> {
    this.#isolation ??= this.#prepareIsolation()
    return this.#isolation
  }

  async #prepareIsolation(binary?: string): Promise<Isolation> {
    const { config, io, env } = this.run
    const isolation = await prepareIsolation(config, {
      host: env,
      log: io.info,
      group: io.group,
      binary
    })
    if (isolation.warning) io.warning(isolation.warning)
    return isolation
  }

  /** The claude the workers run, checked to start in the cage. */
  claude(): Promise<string> {
    this.#claude ??= this.#prepareClaude()
    return this.#claude
  }

  async #prepareClaude(): Promise<string> {
    const { config, ctx, io, env } = this.run
    const isolation = await this.isolation()
    const resolve = (version?: VersionProbe) =>
      io.group('Worker binary', () =>
        resolveClaude({
          claudePath: config.claudePath,
          pathVar: env.PATH,
          host: env,
          installDir: path.join(ctx.runnerTemp, 'fleet-worker-claude'),
          log: io.info,
          version
        })
      )
    return (await isolation.claude(resolve, io.info)).file
  }

  /** The binary resolveClaude will find without installing, else none (the sandbox checks it early). */
  async #binaryBeside(): Promise<string | undefined> {
    const { config, env } = this.run
    // As resolveClaude reads them: claude-path as given (empty: installed), else the PATH's.
    if (config.claudePath !== undefined) return config.claudePath || undefined
    return findOnPath('claude', env.PATH)
  }

  /**
   * Everything a fleet's workers need, in the order a failure is best found. `beside` is called
   * with where the run pushes once the model key and the skills are found, and runs while the
   * cage is checked and the worker binary probed (the fleet's clone, which needs neither); when
   * one of those fails, what it began is let finish before the failure is thrown.
   */
  async workers(beside?: (remoteUrl: string) => Promise<unknown>): Promise<WorkerSetup> {
    // Read beside the steps below (it never throws): one git process off the way to the first worker.
    const remoteUrl = this.remoteUrl()
    const apiKey = this.apiKey()
    const skills = await resolveSkills(this.run.config.skills, this.run.ctx.workspace)
    // Its failure is the caller's to meet where it awaits it: here only waited for, never thrown
    // (a rejection no one handles yet would end the process).
    const begun = beside ? remoteUrl.then(beside).catch(() => undefined) : undefined
    try {
      // The workers' binary, when it is already on the runner (or named), checked in the sandbox
      // beside the preflight's probes (docs/performance.md); installing one waits, as before.
      this.#isolation ??= this.#binaryBeside().then(binary => this.#prepareIsolation(binary))
      const isolation = await this.isolation()
      const claude = await this.claude()
      return { apiKey, skills, isolation, claude, remoteUrl: await remoteUrl }
    } catch (error) {
      await begun
      throw error
    }
  }
}
