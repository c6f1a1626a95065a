// The mock's view of the repository's git remote (a bare repository on disk): what GitHub reads
// from git for a pull request (its head, whether it merges, whether it is behind) and the commits
// GitHub itself makes (a merge, a squash, a rebase, "Update branch"). Synchronous on purpose: the
// mock's route handlers are, and each call is a few milliseconds of plumbing.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'

export type MergeMethod = 'merge' | 'squash' | 'rebase'

export interface Identity {
  name: string
  email: string
}

const GITHUB: Identity = { name: 'GitHub', email: 'noreply@github.com' }

export class MockGit {
  private readonly env: NodeJS.ProcessEnv

  constructor(readonly dir: string) {
    this.env = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: dir,
      LC_ALL: 'C',
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_DIR: dir
    }
  }

  private run(args: string[], env: NodeJS.ProcessEnv = {}): { ok: boolean; out: string } {
    try {
      const out = execFileSync('git', args, {
        env: { ...this.env, ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
        encoding: 'utf8'
      })
      return { ok: true, out: out.trim() }
    } catch (error) {
      const out = (error as { stdout?: string }).stdout ?? ''
      return { ok: false, out: out.trim() }
    }
  }

  private must(args: string[], env: NodeJS.ProcessEnv = {}): string {
    const r = this.run(args, env)
    if (!r.ok) throw new Error(`mock git ${args.join(' ')} failed: ${r.out}`)
    return r.out
  }

  /** The branch's commit, or undefined when the branch does not exist. */
  sha(branch: string): string | undefined {
    const r = this.run(['rev-parse', '--verify', '--quiet', `refs/heads/${branch}^{commit}`])
    return r.ok && r.out ? r.out : undefined
  }

  isAncestor(older: string, newer: string): boolean {
    return this.run(['merge-base', '--is-ancestor', older, newer]).ok
  }

  /** The tree of merging `theirs` into `ours`, or undefined on a conflict. */
  private mergedTree(ours: string, theirs: string, mergeBase?: string): string | undefined {
    const r = this.run([
      'merge-tree',
      '--write-tree',
      ...(mergeBase ? [`--merge-base=${mergeBase}`] : []),
      ours,
      theirs
    ])
    return r.ok ? r.out.split('\n')[0] : undefined
  }

  /** Whether the head merges into the base without a conflict (GitHub's `mergeable`). */
  mergeable(base: string, head: string): boolean {
    return this.mergedTree(base, head) !== undefined
  }

  private commitTree(
    tree: string,
    parents: string[],
    message: string,
    author: Identity,
    committer: Identity = GITHUB
  ): string {
    return this.must(
      ['commit-tree', tree, ...parents.flatMap(p => ['-p', p]), '-m', message],
      identityEnv(author, committer)
    )
  }

  /** Moves `branch` from `from` to `to`, refusing if it moved meanwhile. */
  private move(branch: string, to: string, from: string): void {
    this.must(['update-ref', `refs/heads/${branch}`, to, from])
  }

  /**
   * Lands `head` on `base` as GitHub's merge button does; the new base commit, or undefined when
   * it cannot (a conflict).
   */
  land(
    method: MergeMethod,
    at: { base: string; head: string; title: string; message: string; by: Identity }
  ): string | undefined {
    const baseSha = this.sha(at.base)
    const headSha = this.sha(at.head)
    if (!baseSha || !headSha) return undefined
    const landed =
      method === 'rebase'
        ? this.replay(baseSha, headSha, at.by)
        : this.combine(method, baseSha, headSha, at)
    if (landed) this.move(at.base, landed, baseSha)
    return landed
  }

  private combine(
    method: 'merge' | 'squash',
    baseSha: string,
    headSha: string,
    at: { title: string; message: string; by: Identity }
  ): string | undefined {
    const tree = this.mergedTree(baseSha, headSha)
    if (!tree) return undefined
    const message = at.message ? `${at.title}\n\n${at.message}` : at.title
    // GitHub authors a squash as the PR's author would; the merger here, which is all tests read.
    const parents = method === 'merge' ? [baseSha, headSha] : [baseSha]
    return this.commitTree(tree, parents, message, at.by)
  }

  /**
   * Each commit of the head since the base, cherry-picked onto the base in a scratch worktree
   * (merge commits dropped), GitHub as committer; undefined on a conflict.
   */
  private replay(baseSha: string, headSha: string, by: Identity): string | undefined {
    const commits = this.must(['rev-list', '--reverse', '--no-merges', `${baseSha}..${headSha}`])
      .split('\n')
      .filter(Boolean)
    const scratch = mkdtempSync(path.join(tmpdir(), 'mock-rebase-'))
    const tree = path.join(scratch, 'tree')
    try {
      this.must(['worktree', 'add', '--quiet', '--detach', tree, baseSha])
      const inTree = { GIT_DIR: undefined, GIT_WORK_TREE: undefined }
      for (const c of commits) {
        const r = this.runIn(
          tree,
          ['cherry-pick', '--allow-empty', '--keep-redundant-commits', c],
          {
            ...inTree,
            GIT_COMMITTER_NAME: by.name,
            GIT_COMMITTER_EMAIL: by.email
          }
        )
        if (!r.ok) return undefined
      }
      return this.runIn(tree, ['rev-parse', 'HEAD'], inTree).out
    } finally {
      this.run(['worktree', 'remove', '--force', tree])
      rmSync(scratch, { recursive: true, force: true })
    }
  }

  private runIn(cwd: string, args: string[], env: NodeJS.ProcessEnv): { ok: boolean; out: string } {
    try {
      const merged: NodeJS.ProcessEnv = { ...this.env, ...env }
      for (const [k, v] of Object.entries(merged)) if (v === undefined) delete merged[k]
      const out = execFileSync('git', args, {
        cwd,
        env: merged,
        stdio: ['ignore', 'pipe', 'pipe'],
        encoding: 'utf8'
      })
      return { ok: true, out: out.trim() }
    } catch (error) {
      return { ok: false, out: String((error as { stderr?: string }).stderr ?? '') }
    }
  }

  /** "Update branch": the base merged into the head by GitHub; undefined on a conflict. */
  updateBranch(head: string, base: string, by: Identity): string | undefined {
    const headSha = this.sha(head)
    const baseSha = this.sha(base)
    if (!headSha || !baseSha) return undefined
    const tree = this.mergedTree(headSha, baseSha)
    if (!tree) return undefined
    const merged = this.commitTree(
      tree,
      [headSha, baseSha],
      `Merge branch '${base}' into ${head}`,
      by
    )
    this.move(head, merged, headSha)
    return merged
  }
}

function identityEnv(author: Identity, committer: Identity): NodeJS.ProcessEnv {
  return {
    GIT_AUTHOR_NAME: author.name,
    GIT_AUTHOR_EMAIL: author.email,
    GIT_COMMITTER_NAME: committer.name,
    GIT_COMMITTER_EMAIL: committer.email
  }
}
