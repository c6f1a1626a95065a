import { lstatSync, mkdirSync, renameSync, writeFileSync } from 'node:fs'
import { chmod, copyFile, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises'
import path from 'node:path'
import pLimit from 'p-limit'
import type { View } from '../domain.js'
import { runOk } from '../process.js'
import { removeTree } from '../process/remove-tree.js'
import { describeError } from '../errors.js'
import { serialIn } from './lock.js'
import { type Borrowed, borrowObjects } from './borrow.js'
import { type WorkspaceLayer, workspaceLayer } from './workspace-view.js'
import { authEnv, Git } from './git.js'
import { Coalescer } from './coalesce.js'
import { pushInOneRequest } from './receive-pack.js'
import { RefReader, RefWriter } from './ref-writer.js'
import { markUnchanged } from './fsmonitor.js'

/** A push's verdict on one branch. */
export type PushResult = { ok: true } | { ok: false; reason: string }

interface OpenOptions {
  dir: string
  remoteUrl: string
  token?: string
  env?: NodeJS.ProcessEnv
}

export interface Worktree extends AsyncDisposable {
  dir: string
  git: Git
  branch: string
  /** The commit the worker started from: "no changes" means HEAD is still here. */
  startSha: string
  /** Its admin dir in the fleet's clone (where a stale index.lock would be), read once at the start. */
  gitDir: string
  /** Leaves the worktree on disk when disposed: its work could not be committed, so it stays. */
  keep(): void
  /** Where its files are on the host once kept: the worktree, or a view's private layer. */
  keptAt: string
  /**
   * Set when the task's files are a copy-on-write view (cage/views.ts) of the run's shared
   * checkout of `startSha`: `dir` is then an empty mount point on the host, and only a cage that
   * mounts the view sees the files. The host never reads them.
   */
  view?: View
}

/** The run's one read-only base of a start commit's views: its files, its index, what hides. */
interface ViewBase {
  dir: string
  index: string
  hide?: string
  /** Its index marks every file unchanged (git/fsmonitor.ts markUnchanged), for the views' git. */
  fsmonitor?: boolean
}

/** The checkout's HEAD, named in the fleet's clone while its first fetch runs (see borrow). */
const BORROWED_REF = 'refs/fleet-borrowed/checkout'

/** A clone's base branch, and what it borrowed from the checkout (how many objects it fetched). */
type Filled = { base: string; borrowed?: Borrowed & { fetched: number; noFetch?: boolean } }

/**
 * The fleet's own clone, made fresh in the runner's temp dir. Workers get worktrees of this clone,
 * never of the checkout: its config holds no credential (actions/checkout persists the token in
 * the checkout's .git/config, which every worktree of it shares). Credentials reach git only in
 * the environment of the fetch and push commands.
 */
export class FleetRepo {
  /**
   * Worktree adds, prunes and removes, one at a time: each reads every worktree's admin dir, and
   * one half-written by a concurrent add fails it ("failed to read .git/worktrees/x/commondir").
   */

  private serial<T>(step: () => Promise<T>): Promise<T> {
    return serialIn(this.git.dir, step)
  }

  /** The run's read-only checkouts of a start commit, one per commit (see view). */
  private readonly checkouts = new Map<string, Promise<ViewBase>>()

  /** The workspace's checkout and its HEAD, read by borrow: a view's base when it is the start's. */
  private workspace?: { dir: string; head: string }

  /**
   * The ref the run's tasks start at and its commit, written there by the clone or read by
   * prepareStart: each view or worktree of that ref starts at it, with no `rev-parse` of its own
   * (one git process less per task). Cleared when a fetch may move origin's refs (refetch).
   */
  private prepared?: { ref: string; sha: Promise<string> }
  /**
   * The check that the workspace's checkout can be the lower layer of its HEAD's views
   * (workspaceLayer), begun by borrow, before the clone's fetch if any, when the run may show it:
   * by the first task it is done, or nearly (on 100,000 files it took 0.8 s after the clone before).
   */
  private workspaceCheck?: Promise<{ layer: WorkspaceLayer | { why: string }; ms: number }>

  /** Where the run's notes go (which base the tasks' views show, and why). */
  log?: (message: string) => void

  /**
   * Its history is cut, as the checkout's it borrowed: every fetch is then at depth 1 (the tips
   * alone, less what the clone has), so no branch's history comes with it.
   */
  private shallow = false

  /** The clone's refs written through one git process kept open (ref-writer.ts). */
  readonly refs: RefWriter

  /** The clone's refs read through one git process kept open (ref-writer.ts). */
  private readonly reader: RefReader

  /** The base branch the clone was made for: its tracking ref is what a push's pack is thin on. */
  private base?: string

  private constructor(
    readonly git: Git,
    readonly remoteUrl: string,
    private readonly token: string | undefined,
    private readonly env: NodeJS.ProcessEnv
  ) {
    this.refs = new RefWriter(git)
    this.reader = new RefReader(git)
  }

  private static async open(opts: OpenOptions): Promise<FleetRepo> {
    const env = opts.env ?? process.env
    await rm(opts.dir, { recursive: true, force: true })
    await mkdir(opts.dir, { recursive: true })
    const git = Git.create(opts.dir, env)
    await git.exec(['init', '--quiet'])
    return new FleetRepo(git, opts.remoteUrl, opts.token, env)
  }

  /** Its config: written while the checkout's objects are linked in (borrow), which it does not touch. */
  private async configure(): Promise<void> {
    // Per-worktree config: what a task's setup left is excluded in that worktree alone.
    await this.git.exec(['config', 'extensions.worktreeConfig', 'true'])
    await this.git.exec(['remote', 'add', 'origin', this.remoteUrl])
  }

  /**
   * Pushes in one request are tried until one gets no report to read (a CA of the runner's own,
   * a remote that wants its refs asked for first): from then on, for the rest of the run, `git
   * push` alone, and the run's log says why once.
   */
  private oneRequest = true

  /**
   * `branches` pushed in one request (receive-pack.ts): those that landed. A git command of its
   * own that fails (the pack, the refs) leaves every branch to git push, which meets the same
   * trouble and words it.
   */
  private async pushInOne(
    branches: string[],
    leases?: Map<string, string | undefined>
  ): Promise<Set<string>> {
    if (!this.oneRequest) return new Set()
    const target = { url: this.remoteUrl, token: this.token, env: this.env }
    const refs = { writer: this.refs, reader: this.reader, base: this.base }
    const pushed = await pushInOneRequest(this.git, refs, target, branches, leases).catch(
      (error: unknown) => ({ landed: new Set<string>(), why: describeError(error) })
    )
    if (pushed.why !== undefined) {
      this.oneRequest = false
      this.log?.(
        `push: a push in one request got no answer to read (${pushed.why}); git push does this run's pushes`
      )
    }
    return pushed.landed
  }

  private auth(): Record<string, string> {
    return authEnv(this.remoteUrl, this.token, this.env)
  }

  /**
   * The fleet's clone of the base branch (the remote's default when none is given) and of those
   * work branches that exist. The listing needs no repository, so it runs while the clone's
   * repository is made: one round trip to the remote off the way to the first worker.
   */
  static async clone(
    opts: OpenOptions & {
      base?: string
      branches: string[]
      /** The workspace's checkout, whose objects the clone borrows (borrow.ts): never its config. */
      checkout?: string
      /** The work reads the tips' files and no history (the planner): fetched at depth 1 always. */
      tipsOnly?: boolean
      /**
       * The tasks' views may show the checkout itself (isolation: sandbox): the check that they
       * can is begun as soon as its objects are borrowed, beside the fetch (workspaceCheck).
       */
      checkoutViews?: boolean
    }
  ): Promise<{ repo: FleetRepo } & Filled> {
    const env = opts.env ?? process.env
    await mkdir(path.dirname(opts.dir), { recursive: true })
    const lister = Git.create(path.dirname(opts.dir), env)
    const auth = authEnv(opts.remoteUrl, opts.token, env)
    // The clone's steps that do not wait on each other run side by side (docs/performance.md):
    // the listing beside the clone's making, its config beside the borrowed objects' linking.
    const [listed, [repo, borrowed]] = await Promise.all([
      listRemote(
        lister,
        opts.remoteUrl,
        [...(opts.base ? [opts.base] : []), ...opts.branches],
        auth
      ),
      FleetRepo.open(opts).then(async r => {
        const [, borrowed] = await Promise.all([r.configure(), r.borrow(opts.checkout)])
        // Its config is the action's own, just written: no command needs to list drivers in it.
        r.git.namesNoDriver()
        if (opts.checkoutViews) r.checkWorkspace()
        if (opts.tipsOnly) r.shallow = true
        return [r, borrowed] as const
      })
    ])
    const filled = await repo.fill(listed, borrowed, opts.base, opts.branches)
    repo.base = filled.base
    return { repo, ...filled }
  }

  /** The clone's base and work branches, from the listing: fetched, or at the borrowed checkout. */
  private async fill(
    listed: string,
    borrowed: Borrowed | undefined,
    base: string | undefined,
    branches: string[]
  ): Promise<Filled> {
    if (!borrowed) return { base: await this.fetchListed(listed, base, branches) }
    const noFetch = this.atCheckout(listed, base, branches)
    if (noFetch) {
      const ref = `refs/remotes/origin/${noFetch.branch}`
      // Through the clone's kept writer: its one git start, which the first task's writes reuse.
      await this.refs.set([{ ref, sha: noFetch.sha }])
      // Its tasks start at the commit just written there: prepareStart need not read it.
      this.prepared = { ref, sha: Promise.resolve(noFetch.sha) }
      return { base: noFetch.branch, borrowed: { ...borrowed, fetched: 0, noFetch: true } }
    }
    const fetched = await this.fetchBorrowing(listed, base, branches)
    return { base: fetched.base, borrowed: { ...borrowed, fetched: fetched.fetched } }
  }

  /**
   * fetchListed into a clone with borrowed objects: counted before and after (what it fetched),
   * the checkout's HEAD a ref while it runs, so the remote sends only what the clone lacks.
   */
  private async fetchBorrowing(
    listed: string,
    base: string | undefined,
    branches: string[]
  ): Promise<{ base: string; fetched: number }> {
    const head = this.workspace?.head
    const [before] = await Promise.all([
      this.objectCount(),
      head && this.git.exec(['update-ref', BORROWED_REF, head], { allowFailure: true })
    ])
    const branch = await this.fetchListed(listed, base, branches)
    const [after] = await Promise.all([
      this.objectCount(),
      head && this.git.exec(['update-ref', '-d', BORROWED_REF], { allowFailure: true })
    ])
    return { base: branch, fetched: after - before }
  }

  /**
   * When the remote's base is the borrowed checkout's HEAD and no work branch exists yet (a new
   * batch right after actions/checkout), the clone already holds all a fetch would bring: origin's
   * base ref is then that commit, with no fetch (a round trip and three processes off the way to
   * the first worker). Its history is the checkout's, whole or cut at the same boundary. Answers
   * the base's name and commit, or undefined when a fetch is needed.
   */
  private atCheckout(
    listed: string,
    base: string | undefined,
    branches: string[]
  ): { branch: string; sha: string } | undefined {
    const branch = baseOf(listed, base)
    const head = this.workspace?.head
    if (!branch || !head || listedBranches(listed, branches).length > 0) return undefined
    const ref = base ? `refs/heads/${base}` : 'HEAD'
    const sha = listed
      .split('\n')
      .map(line => line.split('\t'))
      .find(([id = '', name]) => name === ref && /^[0-9a-f]{40,64}$/.test(id))?.[0]
    return sha === head ? { branch, sha } : undefined
  }

  /**
   * The checkout's objects, linked in; its HEAD is named while a fetch runs (clone), so the remote
   * sends only what the clone lacks. When its history is cut (`fetch-depth: 1`), the clone takes the
   * checkout's boundary as its own `.git/shallow` and stays shallow: its fetches are then at depth
   * 1 (fetchArgs), so the base's history is never fetched; only what the work needs (deepen).
   * Not when its objects are partial (a `filter:` checkout): the fetch would then claim objects the
   * clone does not have, so it brings the base's history whole, as without a checkout.
   */
  private async borrow(checkout: string | undefined): Promise<Borrowed | undefined> {
    if (!checkout) return undefined
    const dotGit = path.join(this.git.dir, '.git')
    const borrowed = await borrowObjects(checkout, path.join(dotGit, 'objects'))
    if (!borrowed) return undefined
    // A cut history whose boundary or HEAD could not be read: fetched whole, the note says why.
    if (!borrowed.head || borrowed.partial || borrowed.shallow?.length === 0)
      return { ...borrowed, ...(borrowed.shallow ? { shallow: [] } : {}) }
    if (borrowed.shallow) {
      await writeFile(path.join(dotGit, 'shallow'), `${borrowed.shallow.join('\n')}\n`)
      this.shallow = true
    }
    this.workspace = { dir: path.resolve(checkout), head: borrowed.head }
    return borrowed
  }

  /** `git fetch` of these branches into origin's refs; at depth 1 when the clone is shallow. */
  private fetchArgs(branches: string[]): string[] {
    return [
      'fetch',
      '--quiet',
      '--no-tags',
      ...(this.shallow ? ['--depth=1'] : []),
      'origin',
      ...branches.map(b => `+refs/heads/${b}:refs/remotes/origin/${b}`)
    ]
  }

  /**
   * In a shallow clone, `sha` made an ancestor of origin's `branch` if the remote has it so:
   * `branch`'s history deepened step by step (deepen) until it is. True when it is an ancestor.
   * A whole clone fetches nothing.
   */
  async reach(sha: string, branch: string): Promise<boolean> {
    const ref = `refs/remotes/origin/${branch}`
    return this.deepen([branch], `${sha.slice(0, 12)} is not on ${branch}'s cut history`, () =>
      this.succeeds(['merge-base', '--is-ancestor', sha, ref])
    )
  }

  /**
   * In a shallow clone, origin's `base` and `branch` given the commit they share (a merge base),
   * which keep-fresh and the train merge from: both histories deepened step by step (deepen)
   * until it is in the clone, and no further. True when they share one. A whole clone fetches
   * nothing.
   */
  async meet(base: string, branch: string): Promise<boolean> {
    const refs = [base, branch].map(b => `refs/remotes/origin/${b}`)
    // A branch not fetched (not on the remote) has no history to deepen.
    if (!(await this.remoteSha(base)) || !(await this.remoteSha(branch))) return false
    return this.deepen(
      [base, branch],
      `${branch} and ${base} share no commit in the cut history`,
      () => this.succeeds(['merge-base', ...refs])
    )
  }

  /**
   * Until `done`, these branches' histories deepened a step at a time: 8 commits, then 4 times as
   * many each time, at most 6 steps, then whole (the reason in the log); only in a shallow clone.
   */
  private async deepen(
    branches: string[],
    why: string,
    done: () => Promise<boolean>
  ): Promise<boolean> {
    if (await done()) return true
    if (!this.shallow) return false
    // A tip cut where an earlier step brought its parents (the next PR on the same fork): no fetch.
    await this.rejoin()
    if (await done()) return true
    // No ref moves (--refmap= and no destination): the tips read before stay the ones worked on.
    const specs = branches.map(b => `refs/heads/${b}`)
    const named = branches.join(' and ')
    for (let step = 0, depth = 8, total = 0; step <= 6; step++, total += depth, depth *= 4) {
      const deepen = step < 6 ? `--deepen=${depth}` : '--unshallow'
      this.log?.(
        `shallow clone: ${why}: ${step < 6 ? `deepening ${named} by ${depth} commits` : `fetching their whole history (deepened by ${total} commits, still none)`}`
      )
      await this.git.exec(
        ['fetch', '--quiet', '--no-tags', '--refmap=', deepen, 'origin', ...specs],
        {
          env: this.auth(),
          allowFailure: true
        }
      )
      if (await done()) return true
    }
    return false
  }

  private async succeeds(args: string[]): Promise<boolean> {
    return (await this.git.exec(args, { allowFailure: true })).exitCode === 0
  }

  /** Objects in the clone, loose and packed (`git count-objects`): what a fetch added. */
  private async objectCount(): Promise<number> {
    const out = await this.git.out(['count-objects', '-v'])
    const field = (name: string) => Number(new RegExp(`^${name}: (\\d+)$`, 'm').exec(out)?.[1] ?? 0)
    return field('count') + field('in-pack')
  }

  /** Fetches the base branch and those of the work branches that exist; returns the base. */
  private async fetchListed(
    listed: string,
    base: string | undefined,
    branches: string[]
  ): Promise<string> {
    const branch = baseOf(listed, base)
    if (!branch)
      throw new Error(`could not read the default branch of ${this.remoteUrl}; set base-branch`)
    const existing = listedBranches(listed, branches)
    await this.git.exec(this.fetchArgs([branch, ...existing]), { env: this.auth() })
    await this.rejoin()
    return branch
  }

  /** Fetches these branches again: the base after the landing train merged a PR into it. */
  async refetch(branches: string[]): Promise<void> {
    this.prepared = undefined
    await this.git.exec(this.fetchArgs(branches), { env: this.auth() })
    await this.rejoin()
  }

  /**
   * A fetch at depth 1 marks every tip it names as cut (`.git/shallow`), even one whose parents
   * the clone has (the base one merge moved on, a branch deepened before): each such tip is
   * joined to its history again, so no deepen fetches what the clone already holds. A parent
   * present is whole down to its own cut: git keeps it so, and the borrowed checkout's cut is
   * the clone's.
   */
  private async rejoin(): Promise<void> {
    if (!this.shallow) return
    const file = path.join(this.git.dir, '.git', 'shallow')
    const cut = (await readFile(file, 'utf8').catch(() => '')).split('\n').filter(Boolean)
    // Each cut commit's own parents (its object, not the clone's cut view of it), read together;
    // then one rev-list says which of all those parents the clone has.
    const limit = pLimit(4)
    const parentsOf = await Promise.all(
      cut.map(sha =>
        limit(async () => {
          const header = (await this.git.out(['cat-file', 'commit', sha])).split('\n\n')[0] ?? ''
          return [...header.matchAll(/^parent ([0-9a-f]+)$/gm)].map(m => m[1] ?? '')
        })
      )
    )
    const all = [...new Set(parentsOf.flat())]
    if (all.length === 0) return
    const listed = await this.git.exec(['rev-list', '--no-walk', '--ignore-missing', ...all], {
      allowFailure: true
    })
    const have = new Set(listed.stdout.split('\n').filter(Boolean))
    const joined = new Set(
      cut.filter((_, i) => {
        const parents = parentsOf[i] ?? []
        return parents.length > 0 && parents.every(p => have.has(p))
      })
    )
    if (joined.size === 0) return
    const left = cut.filter(sha => !joined.has(sha))
    if (left.length) await writeFile(file, `${left.join('\n')}\n`)
    else await rm(file, { force: true })
  }

  remoteSha(branch: string): Promise<string | undefined> {
    return this.git.tryRevParse(`refs/remotes/origin/${branch}`)
  }

  /**
   * A worktree on `branch`, reset to `startRef`; removed when disposed (the branch ref stays).
   * Made as `git worktree add` makes one (its admin dir's HEAD, commondir and gitdir, the tree's
   * `.git` file), with two git processes side by side instead of its four in turn: `update-ref`
   * of the branch, and `read-tree -u --reset` writing the files and the index into an admin dir
   * the clone does not list yet. It is renamed into `.git/worktrees/` whole, so no git command
   * ever reads it half-made, and only that rename waits for the clone's other worktree steps.
   */
  async worktree(id: string, branch: string, startRef: string): Promise<Worktree> {
    const dir = path.join(this.git.dir, '..', 'worktrees', id)
    const gitDir = path.join(this.git.dir, '.git', 'worktrees', id)
    // Beside `worktrees/`, so commondir's `../..` is the clone's .git from either place.
    const making = path.join(this.git.dir, '.git', 'fleet-worktrees', id)
    const startSha = await this.startOf(startRef)
    // What an earlier run left at these paths goes through the thread pool (it may be a whole
    // tree); the few small files are written at once, not a trip through the pool each.
    await Promise.all(
      [dir, making].filter(d => lstatSync(d, { throwIfNoEntry: false })).map(removeTree)
    )
    for (const d of [dir, making, path.dirname(gitDir)]) mkdirSync(d, { recursive: true })
    writeFileSync(path.join(making, 'HEAD'), `ref: refs/heads/${branch}\n`)
    writeFileSync(path.join(making, 'commondir'), '../..\n')
    writeFileSync(path.join(making, 'gitdir'), `${path.join(dir, '.git')}\n`)
    writeFileSync(path.join(dir, '.git'), `gitdir: ${gitDir}\n`)
    await Promise.all([
      this.refs.set([{ ref: `refs/heads/${branch}`, sha: startSha }]),
      this.git.madeTree(dir, making).exec(['read-tree', '-u', '--reset', startSha])
    ]).catch(async (error: unknown) => {
      await rm(making, { recursive: true, force: true })
      throw error
    })
    await this.serial(async () => {
      // A lost worktree's admin dir of the same id goes first (what `worktree add --force` takes).
      if (lstatSync(gitDir, { throwIfNoEntry: false }))
        await rm(gitDir, { recursive: true, force: true })
      renameSync(making, gitDir)
    })
    // From here on the tree is a cage's to write: git is told where its git dir is, never finds it.
    const git = this.git.tree(dir, gitDir)
    const serial = this.serial.bind(this)
    let kept = false
    return {
      dir,
      git,
      branch,
      startSha,
      gitDir,
      keptAt: dir,
      keep: () => {
        kept = true
      },
      async [Symbol.asyncDispose]() {
        if (kept) return
        await removeWorktree(serial, dir, gitDir)
      }
    }
  }

  /**
   * The run's one base of `sha`'s views, made once: the workspace's own checkout, when it is
   * exactly `sha`'s files and nothing else and `workspace` allows (a view that can hide its
   * `.git`: workspace-view.ts), else the run's own checkout (checkoutOf).
   */
  private checkout(sha: string, owner?: string, workspace = false): Promise<ViewBase> {
    let made = this.checkouts.get(sha)
    if (!made) {
      made = this.serial(async () => {
        const ws = workspace && !owner ? await this.workspaceBase(sha) : undefined
        if (ws) return ws
        const base = await this.checkoutOf(sha, owner)
        // A container's view (`owner`) is not shown its layer: its git looks at every file.
        return owner ? base : { ...base, fsmonitor: await this.markUnchanged(base) }
      })
      this.checkouts.set(sha, made)
    }
    return made
  }

  /** The base's index refreshed once with fsmonitor marks (git/fsmonitor.ts); the log says so. */
  private async markUnchanged(base: ViewBase): Promise<boolean> {
    const started = Date.now()
    const marked = await markUnchanged(this.git, base.dir, base.index)
    this.log?.(
      marked
        ? `task files: the views' index marked unchanged in ${Date.now() - started} ms: a cage's git looks at the paths its view's layer holds, not at every file`
        : `task files: the views' index could not be marked unchanged: a cage's git looks at every file`
    )
    return marked
  }

  /**
   * Begins the check that the workspace's checkout, at its HEAD, can be a view's lower layer
   * (once; its outcome kept for workspaceBase). Its commands are short and bounded, and a failure
   * is an outcome (`why`), never a rejection.
   */
  private checkWorkspace(): void {
    const ws = this.workspace
    if (!ws || this.workspaceCheck) return
    const started = Date.now()
    const into = path.join(this.git.dir, '..', 'workspace')
    this.workspaceCheck = workspaceLayer(this.git, ws.dir, ws.head, into).then(
      layer => ({ layer, ms: Date.now() - started }),
      (error: unknown) => ({
        layer: {
          why: `it could not be checked: ${error instanceof Error ? error.message : String(error)}`
        },
        ms: Date.now() - started
      })
    )
  }

  /** The workspace's checkout as `sha`'s base, or undefined (the note says why not). */
  private async workspaceBase(sha: string): Promise<ViewBase | undefined> {
    const ws = this.workspace
    if (!ws) return undefined
    const early = this.workspaceCheck !== undefined
    if (ws.head === sha) this.checkWorkspace()
    const waited = Date.now()
    const { layer, ms } =
      ws.head === sha && this.workspaceCheck
        ? await this.workspaceCheck
        : { layer: { why: `its HEAD is not the start commit ${sha.slice(0, 12)}` }, ms: 0 }
    const waitMs = Date.now() - waited
    if ('why' in layer) {
      this.log?.(
        `task files: views of the run's own checkout: the workspace's is not used (${layer.why})`
      )
      return undefined
    }
    const when = early ? `, begun with the clone, waited for ${waitMs} ms` : ''
    this.log?.(
      `task files: views of the workspace's checkout, its .git hidden (checked in ${ms} ms${when}: the start commit's files, nothing untracked or ignored; its index marked unchanged, so a cage's git looks at the paths its view's layer holds, not at every file)`
    )
    return layer
  }

  /**
   * The run's own checkout of `sha` (`git worktree add --detach`), never written again: every
   * task starting there sees it through a view of its own. Its index carries the stat data a
   * task's git reuses, so a task's first `git status` reads no file contents. `owner`
   * (uid:gid): the user the views' writes are made as, when not the action's (a container's user
   * under a root action): an overlay copies a file up with its owner, so the checkout is that
   * user's, and its index is refreshed once so the changed ctimes cost no cage a re-read.
   */
  private async checkoutOf(sha: string, owner?: string): Promise<ViewBase> {
    const dir = path.join(this.git.dir, '..', 'checkouts', sha)
    await rm(dir, { recursive: true, force: true })
    await this.git.exec(['worktree', 'add', '--quiet', '--force', '--detach', dir, sha])
    const admin = await worktreeGitDir(dir)
    if (owner) await ownCheckout(this.git.at(dir), { dir, admin, owner })
    return { dir, index: path.join(admin, 'index') }
  }

  /**
   * Reads the commit the run's tasks on `startRef` start at, once, now (beside the model
   * gateway's opening), unless the clone has just written it there (a clone at the checkout's
   * HEAD): their views and worktrees then start there with no read of their own.
   */
  prepareStart(startRef: string): Promise<string> {
    if (this.prepared?.ref === startRef) return this.prepared.sha
    const sha = this.commitAt(startRef)
    this.prepared = { ref: startRef, sha }
    return sha
  }

  /** The commit a task on `startRef` starts at: the one prepareStart read, else read now. */
  private startOf(startRef: string): Promise<string> {
    return this.prepared?.ref === startRef ? this.prepared.sha : this.commitAt(startRef)
  }

  /** The commit `ref` names now. */
  private commitAt(ref: string): Promise<string> {
    return this.git.out(['rev-parse', '--verify', `${ref}^{commit}`])
  }

  /**
   * Starts the base of `startRef`'s views now (checkout): called as the run opens, beside its
   * model gateway. Settles when the base is made or has failed; a failure is met by the first
   * view, which awaits the same promise.
   */
  prepareViews(
    startRef: string,
    opts: { owner?: string; workspace?: boolean } = {}
  ): Promise<void> {
    const made = this.prepareStart(startRef).then(sha =>
      this.checkout(sha, opts.owner, opts.workspace)
    )
    return made.then(
      () => undefined,
      () => undefined
    )
  }

  /**
   * A task's files as a copy-on-write view of the run's shared checkout of `startRef` (instead of
   * a worktree of its own: starting one costs the same whatever the repository's size). `branch`
   * is set to the start; the task's own index (copied from the checkout's, stat data and all) and
   * the view's private layer live in the task's host dir. Removed when disposed unless kept.
   * `owner`: see checkoutOf; `workspace`: the view may show the workspace's checkout (checkout).
   */
  async view(
    id: string,
    branch: string,
    startRef: string,
    opts: { owner?: string; workspace?: boolean } = {}
  ): Promise<Worktree> {
    const startSha = await this.startOf(startRef)
    const base = await this.checkout(startSha, opts.owner, opts.workspace)
    const root = path.join(this.git.dir, '..', 'views', id)
    const dir = path.join(this.git.dir, '..', 'worktrees', id)
    const view: View = {
      lower: base.dir,
      ...(base.hide ? { hide: base.hide } : {}),
      at: dir,
      upper: path.join(root, 'upper'),
      work: path.join(root, 'work'),
      ...(base.fsmonitor ? { fsmonitor: true } : {})
    }
    const gitDir = path.join(root, 'admin')
    await Promise.all([root, dir].map(removeTree))
    await Promise.all([dir, view.upper, view.work, gitDir].map(d => mkdir(d, { recursive: true })))
    await copyFile(base.index, path.join(gitDir, 'index'))
    await this.refs.set([{ ref: `refs/heads/${branch}`, sha: startSha }])
    let kept = false
    return {
      dir,
      // The host sees an empty mount point here, and its admin dir holds only an index: a git
      // command on it fails rather than look anywhere else.
      git: this.git.tree(dir, gitDir),
      branch,
      startSha,
      gitDir,
      keptAt: view.upper,
      view,
      keep: () => {
        kept = true
      },
      async [Symbol.asyncDispose]() {
        if (kept) return
        // overlayfs leaves work/work with mode 000: opened first so it can be removed.
        await chmod(path.join(view.work, 'work'), 0o700).catch(() => undefined)
        await Promise.all([root, dir].map(removeTree))
      }
    }
  }

  /**
   * Pushes `branch` with a lease: the remote must still be where we last saw it (absent = must
   * not exist), so a concurrent human push is never overwritten. In one request where it can be
   * (receive-pack.ts), else, or when that did not land it, by `git push`.
   */
  async push(branch: string, expected: string | undefined): Promise<PushResult> {
    const landed = await this.pushInOne([branch], new Map([[branch, expected]]))
    if (landed.has(branch)) return { ok: true }
    const ref = `refs/heads/${branch}`
    const result = await this.pushRefs([ref], [`${ref}:${expected ?? ''}`])
    if (result.exitCode === 0) return { ok: true }
    return { ok: false, reason: pushFailureReason(result.stderr + result.stdout) }
  }

  /** The tasks' branches, pushed together when they finish together (pushLanded). */
  private readonly landings = new Coalescer<PushResult>(branches => this.pushMany(branches))

  /**
   * Pushes a task's branch with a lease on where the clone last saw it on the remote (its
   * remote-tracking ref; none: it must not exist there), so a person's push is never overwritten.
   * While one such push is in flight, the branches of tasks that finish meanwhile wait and go
   * together in the next one (Coalescer): one round trip for them all, one lease a branch, and
   * each branch's verdict its own.
   */
  pushLanded(branch: string): Promise<PushResult> {
    return this.landings.submit(branch)
  }

  /**
   * These branches in one request to the remote where that can be done (receive-pack.ts), and
   * those it did not land (refused, or no answer to read) by `git push` (pushByGit).
   */
  private async pushMany(branches: string[]): Promise<Map<string, PushResult>> {
    const landed = await this.pushInOne(branches)
    const verdicts = await this.pushByGit(branches.filter(b => !landed.has(b)))
    for (const branch of landed) verdicts.set(branch, { ok: true })
    return verdicts
  }

  /**
   * One `git push` of these branches, each with its lease (git reads `refs/remotes/origin/<b>`
   * itself: no process to read it first). A branch the porcelain lists as pushed or up to date
   * landed. Of several, one that did not is pushed again alone for its own verdict: a remote that
   * refuses the whole push for one branch's sake (a pre-receive hook) fails that branch alone.
   */
  private async pushByGit(branches: string[]): Promise<Map<string, PushResult>> {
    if (branches.length === 0) return new Map()
    const refs = branches.map(b => `refs/heads/${b}`)
    // Each lease as git reads it itself, from refs/remotes/origin/<b>.
    const result = await this.pushRefs(refs, refs)
    const listed = listedRefs(result.stdout)
    const verdicts = new Map<string, PushResult>()
    const whole = (): PushResult => ({
      ok: false,
      reason: pushFailureReason(result.stderr + result.stdout)
    })
    for (const branch of branches) {
      const landed = listed.get(`refs/heads/${branch}`)
      if (landed) verdicts.set(branch, { ok: true })
      // Not listed at all: the push failed before any ref's verdict (the remote unreachable, the
      // token refused), the same for every branch in it; alone, its reason is the push's.
      else if (landed === undefined || branches.length === 1) verdicts.set(branch, whole())
    }
    const again = branches.filter(b => !verdicts.has(b))
    for (const [branch, verdict] of await Promise.all(
      again.map(async b => [b, (await this.pushByGit([b])).get(b)] as const)
    ))
      if (verdict) verdicts.set(branch, verdict)
    return verdicts
  }

  /** One `git push --porcelain` of these refs to the same names on origin, with these leases. */
  private pushRefs(refs: string[], leases: string[]) {
    return this.git.exec(
      [
        'push',
        '--porcelain',
        ...leases.map(lease => `--force-with-lease=${lease}`),
        'origin',
        ...refs.map(ref => `${ref}:${ref}`)
      ],
      { env: this.auth(), allowFailure: true }
    )
  }

  /** Keeps a branch's commits where a person can get them back: a bundle file and a local ref. */
  async preserve(branch: string, base: string, file: string): Promise<void> {
    await mkdir(path.dirname(file), { recursive: true })
    await this.git.exec(['update-ref', `refs/fleet-preserved/${branch}`, `refs/heads/${branch}`])
    await this.git.exec([
      'bundle',
      'create',
      '--quiet',
      file,
      `refs/heads/${branch}`,
      `^refs/remotes/origin/${base}`
    ])
  }
}

/** Worktrees disposed of in this process: each one's removal gets names of its own. */
let removals = 0

/**
 * What `worktree remove --force` does, with no git process. The admin dir leaves git's list in one
 * rename, while no other worktree step of the clone's reads the admin dirs (`serial`); the files
 * are renamed away too (the id may be made again at once). Both are then removed outside the
 * clone's lock: on a big repository that is seconds no other task's fetch or worktree waits for.
 * One that cannot be renamed (gone already: a worker may remove its own tree) is removed where it
 * is, under the lock, as before.
 */
async function removeWorktree(
  serial: <T>(step: () => Promise<T>) => Promise<T>,
  dir: string,
  gitDir: string
): Promise<void> {
  const away = `.gone-${++removals}`
  // Beside the admin dirs' staging dir (worktree()'s `making`), outside git's list.
  const staging = path.join(path.dirname(path.dirname(gitDir)), 'fleet-worktrees')
  const moves: [string, string][] = [
    [dir, `${dir}${away}`],
    [gitDir, path.join(staging, `${path.basename(gitDir)}${away}`)]
  ]
  const gone = await serial(() =>
    Promise.all(
      moves.map(([from, to]) =>
        rename(from, to).then(
          () => to,
          () => removeTree(from).then(() => undefined)
        )
      )
    )
  )
  const renamed = gone.filter((d): d is string => d !== undefined)
  await Promise.all(renamed.map(removeTree))
}

/**
 * A linked worktree's admin dir, from the `.git` file git writes in it (`gitdir: <path>`, relative
 * to the worktree under `worktree.useRelativePaths`).
 */
async function worktreeGitDir(dir: string): Promise<string> {
  const text = await readFile(path.join(dir, '.git'), 'utf8')
  const at = /^gitdir: (.+)$/m.exec(text)?.[1]
  if (!at) throw new Error(`${dir}/.git does not name the worktree's git dir`)
  return path.resolve(dir, at)
}

/** The base: the one given, else the remote's default branch as its listing names it. */
function baseOf(listed: string, base: string | undefined): string | undefined {
  return base ?? /^ref: refs\/heads\/(\S+)\s+HEAD/m.exec(listed)?.[1]
}

/** Those of `branches` the remote's listing names. */
function listedBranches(listed: string, branches: string[]): string[] {
  return branches.filter(b => listed.includes(`\trefs/heads/${b}\n`))
}

/** The remote's HEAD and which of `branches` exist: one round trip (`remote`: a name or a URL). */
async function listRemote(
  git: Git,
  remote: string,
  branches: string[],
  env: Record<string, string>
): Promise<string> {
  const args = ['ls-remote', '--symref', remote, 'HEAD', ...branches.map(b => `refs/heads/${b}`)]
  return (await git.exec(args, { env })).stdout
}

/**
 * The destination refs a `git push --porcelain` lists (`<flag>\t<src>:<dst>\t<summary>`), each
 * true when it landed (updated, created, forced, up to date) and false when refused (`!`).
 */
export function listedRefs(porcelain: string): Map<string, boolean> {
  const listed = new Map<string, boolean>()
  for (const line of porcelain.split('\n')) {
    const m = /^([ +*=!-])\t[^\t:]*:([^\t]+)\t/.exec(line)
    if (m?.[2]) listed.set(m[2], m[1] !== '!')
  }
  return listed
}

/** The remote's own words for a rejected push, as one sentence. */
export function pushFailureReason(output: string): string {
  const lines = output.split('\n').map(l => l.replace(/\s+/g, ' ').trim())
  const remote = lines
    .filter(l => l.startsWith('remote:'))
    .map(l => l.replace(/^remote:\s*/, ''))
    .filter(Boolean)
  if (lines.some(l => /refusing to allow .* to create or update workflow/i.test(l))) {
    return 'the push touches .github/workflows/ and the token may not change workflows (it needs the workflow scope or permission)'
  }
  // Not a refusal: the remote was down or unreachable. The URL is left out; git names it already.
  const unreachable = lines
    .map(l => /^fatal: unable to access '[^']*': (.*)$/.exec(l)?.[1])
    .find(Boolean)
  if (unreachable) {
    return `the push could not reach the remote: ${unreachable}${remote.length ? ` (${remote.join(' ')})` : ''}`
  }
  // Porcelain's "!<TAB>src:dst<TAB>[rejected] (reason)": the bracketed verdict is the part to read.
  const rejected = lines.map(l => /\[(?:remote )?rejected\].*$/.exec(l)?.[0]).find(Boolean)
  if (rejected && /\(stale info\)/.test(rejected)) {
    return 'the push was rejected: the branch changed on the remote after it was fetched (someone else pushed to it), so it was not overwritten'
  }
  // git's closing "error: failed to push some refs" says nothing the lines above do not.
  const fatal =
    rejected || remote.length
      ? undefined
      : lines.find(l => l.startsWith('fatal:') || l.startsWith('error:'))
  const parts = [remote.join(' '), rejected, fatal].filter(Boolean)
  return `the push was rejected: ${parts.join(' — ') || 'no reason given by the remote'}`
}

/**
 * A checkout given to the user a cage writes its view as (`chown -R -h`: a link is re-owned, never
 * what it points at), then its index refreshed, with the git dir named (the checkout is no longer
 * the action's own, and git refuses to discover a repository in another user's directory).
 */
async function ownCheckout(git: Git, c: { dir: string; admin: string; owner: string }) {
  await runOk('chown', ['-R', '-h', c.owner, '--', c.dir], { env: { PATH: '/usr/bin:/bin' } })
  // Only the stat data is refreshed (the contents are the commit's): a failure costs time, not truth.
  await git.exec(['update-index', '-q', '--refresh'], {
    env: { GIT_DIR: c.admin, GIT_WORK_TREE: c.dir },
    allowFailure: true
  })
}
