/**
 * The whole offline world of an end-to-end test: the scripted model server, a git remote that
 * checks the token, the GitHub API mock, and a workspace laid out as actions/checkout leaves it.
 * Every action run goes through `stack.run()`, which ends with the leak scan (demo/leaks.ts):
 * a scenario cannot run the action without it.
 */
import { mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import {
  makeWorkspace,
  startGitRemote,
  type GitRemote,
  gitTestEnv,
  type WorkspaceOptions
} from './git-remote.js'
import { MockGit } from './github-git.js'
import { startGitHubMock, type GitHubMock, type GitHubMockOptions } from './github-mock.js'
import { startModelServer, type ModelServer, type ModelServerOptions } from './model-server.js'
import { runAction, type RunActionResult } from './run-action.js'
import { sandboxSupport } from './sandbox.js'
import { assertNoLeaks } from './leaks.js'
import { removeTree } from '../src/process/remove-tree.js'

export const GITHUB_TOKEN = 'ghs_FleetE2eToken0123456789abcdef'
/**
 * A token with only `contents: read`, as a job with `permissions: contents: read` gets: the remote
 * lets it fetch and refuses its pushes, the API mock refuses its writes, both as GitHub does.
 */
export const READ_TOKEN = 'ghs_FleetE2eReadOnly0123456789abcd'
export const MODEL_KEY = 'sk-fleet-e2e-model-key-0123456789'
export const OWNER = 'acme'
export const REPO = 'widgets'

export interface Stack {
  model: ModelServer
  git: GitRemote
  github: GitHubMock
  workspace: string
  cloneUrl: string
  /** The git HOME of every run (its .gitconfig pins git's behaviour). */
  home: string
  /**
   * Where this machine's workers run: the action's default, sandbox, or process where the kernel
   * cannot make the sandbox's namespaces (said once, with the reason).
   */
  isolation: 'sandbox' | 'process'
  /** Runs `node dist/index.js` as the runner would, then scans everything for leaked secrets. */
  run(opts: {
    inputs?: Record<string, string>
    eventName?: string
    payload?: object
    env?: Record<string, string>
    timeoutMs?: number
    signalAfterMs?: { signal: NodeJS.Signals; ms: number }
    /** Hears the action's stdout as it comes. */
    onStdout?: (text: string) => void
    /** Run the action as this (non-root) user; the caller gives them the workspace and home. */
    user?: { uid: number; gid: number }
  }): Promise<RunActionResult>
  close(): Promise<void>
}

export interface StackOptions {
  files?: Record<string, string>
  model?: ModelServerOptions
  github?: Partial<GitHubMockOptions>
  /**
   * PRs' heads read from the git remote, and merges made in it (the landing train): the API mock
   * answers as GitHub does about a PR's branch. Unset: PR heads are as seeded.
   */
  pullsFromGit?: boolean
  /** How the checkout is left; actions/checkout's default (the token in .git/config) unless set. */
  workspace?: Pick<WorkspaceOptions, 'credentials'>
}

let warned = false

/** The stand-ins: the scripted model, the git remote with the repository, the GitHub mock. */
async function startServices(opts: StackOptions) {
  const model = await startModelServer({ acceptKeys: [MODEL_KEY], ...opts.model })
  const git = await startGitRemote({ token: GITHUB_TOKEN, tokens: { [READ_TOKEN]: 'read' } })
  const github = await startGitHubMock({
    owner: OWNER,
    repo: REPO,
    defaultBranch: 'main',
    token: GITHUB_TOKEN,
    tokens: { [READ_TOKEN]: 'read' },
    ...opts.github
  })
  const cloneUrl = await git.createRepo(`${OWNER}/${REPO}`, {
    files: opts.files ?? {
      'README.md': '# widgets\n',
      'package.json': '{"name":"widgets","private":true}\n'
    }
  })
  if (opts.pullsFromGit) github.state.git = new MockGit(git.repoPath(`${OWNER}/${REPO}`))
  const workspace = await makeWorkspace(cloneUrl, GITHUB_TOKEN, opts.workspace)
  return { model, git, github, cloneUrl, workspace }
}

/** The sandbox where this machine can make one; else isolation: process, said once. */
async function scenarioIsolation(): Promise<'sandbox' | 'process'> {
  const support = await sandboxSupport()
  if (!support.ok && !warned) {
    warned = true
    console.warn(
      `e2e: no sandbox on this machine (${support.reason}); scenarios run in isolation: process`
    )
  }
  return support.ok ? 'sandbox' : 'process'
}

export async function startStack(opts: StackOptions = {}): Promise<Stack> {
  const home = await mkdtemp(path.join(tmpdir(), 'fleet-e2e-home-'))
  const { model, git, github, cloneUrl, workspace } = await startServices(opts)
  const isolation = await scenarioIsolation()
  const fallback: Record<string, string> = isolation === 'sandbox' ? {} : { isolation: 'process' }
  const runs: RunActionResult[] = []
  const stack: Stack = {
    model,
    git,
    github,
    workspace,
    cloneUrl,
    home,
    isolation,
    async run(r) {
      const result = await runAction({
        inputs: {
          'github-token': GITHUB_TOKEN,
          'api-key': MODEL_KEY,
          'base-url': model.url,
          'max-parallel': '2',
          retries: 'delay-seconds: 0.2',
          ...fallback,
          ...r.inputs
        },
        eventName: r.eventName ?? 'workflow_dispatch',
        payload: r.payload ?? {
          inputs: {},
          ref: 'refs/heads/main',
          repository: { full_name: `${OWNER}/${REPO}` }
        },
        workspace,
        repository: `${OWNER}/${REPO}`,
        serverUrl: git.url.replace(/\/$/, ''),
        apiUrl: github.url,
        env: { ...(gitTestEnv(home) as Record<string, string>), ...r.env },
        timeoutMs: r.timeoutMs ?? 240_000,
        signalAfterMs: r.signalAfterMs,
        onStdout: r.onStdout,
        user: r.user
      })
      runs.push(result)
      // The action's last step (main.ts exitIfHeld) says so when something kept it running after
      // its run: a handle left open, which would hang a real job until its timeout.
      const held = /^::warning::the run was over, yet .*$/m.exec(result.stdout)
      if (held) throw new Error(`the action was held after its run: ${held[0]}`)
      await assertNoLeaks(stack, result)
      return result
    },
    async close() {
      await Promise.allSettled([model.close(), git.close(), github.close()])
      // The runs' temp dirs hold what their workers left in their cages (a hostile one's too).
      await removeTree(home)
      await removeTree(workspace)
      for (const r of runs) await removeTree(r.runnerTemp)
    }
  }
  return stack
}

/** The `results` output, parsed. */
export interface ResultEntry {
  id: string
  status: string
  branch: string | null
  'pr-number': number | null
  'pr-url': string | null
  turns: number
  'duration-ms': number
  usage: {
    input_tokens: number
    output_tokens: number
    cache_read_input_tokens: number
    cache_creation_input_tokens: number
  }
  error: string | null
  model: string | null
  attempts: number
  'cost-usd'?: number | null
  /** From the task's start to its first worker's start (its files and setup); null without one. */
  'worker-start-ms'?: number | null
}

export function results(run: RunActionResult): ResultEntry[] {
  const raw = run.outputs.results
  if (raw === undefined)
    throw new Error(`no results output; stderr: ${run.stderr}\nstdout: ${run.stdout.slice(-3000)}`)
  return JSON.parse(raw) as ResultEntry[]
}

export function byId(run: RunActionResult): Map<string, ResultEntry> {
  return new Map(results(run).map(r => [r.id, r]))
}
