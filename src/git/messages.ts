/**
 * A worker's own commit messages, made harmless before they are pushed: a `Fixes #1` a worker
 * writes would close that issue when its PR is merged. The commits are replayed in the fleet's
 * clone (commit-tree: same trees, authors and dates, messages mapped); the worker's work is the
 * same, only the words that would act are broken. Nothing is rewritten when nothing needs it.
 */
import type { Git } from './git.js'

export interface Commit {
  sha: string
  tree: string
  parents: string[]
  author: [string, string, string]
  committer: [string, string, string]
  message: string
}

/** A commit's fields as `git log --format` prints them, NUL-separated (a message holds no NUL). */
export const FIELDS = ['%H', '%T', '%P', '%an', '%ae', '%ad', '%cn', '%ce', '%cd', '%B'].join(
  '%x00'
)

/** One commit from the ten fields FIELDS prints, in order. */
export function commitOf(fields: string[]): Commit {
  const [sha = '', tree = '', parents = '', an = '', ae = '', ad = '', cn = '', ce = '', cd = ''] =
    fields
  return {
    sha,
    tree,
    parents: parents.split(' ').filter(Boolean),
    author: [an, ae, ad],
    committer: [cn, ce, cd],
    message: fields[9] ?? ''
  }
}

function parse(out: string): Commit[] {
  return out
    .split('\x1e')
    .map(record => record.replace(/^\n/, ''))
    .filter(Boolean)
    .map(record => commitOf(record.split('\0')))
}

function logOf(repo: Git, start: string, head: string): Promise<string> {
  return repo.out([
    'log',
    `--format=${FIELDS}%x1e`,
    '--date=raw',
    '--reverse',
    '--topo-order',
    `${start}..${head}`
  ])
}

/**
 * Replays start..head with `map` applied to each message; returns the new head (or head).
 * `known`: those commits already read (oldest first, parents before children), e.g. by the
 * check's own `log` (git/sealed.ts): no second read of the history.
 */
export async function rewriteMessages(
  repo: Git,
  start: string,
  head: string,
  map: (message: string) => string,
  known?: Commit[]
): Promise<string> {
  const commits = known ?? parse(await logOf(repo, start, head))
  if (commits.every(c => map(c.message) === c.message)) return head
  const moved = new Map<string, string>()
  let last = head
  for (const c of commits) {
    const parents = c.parents.flatMap(p => ['-p', moved.get(p) ?? p])
    const [an, ae, ad] = c.author
    const [cn, ce, cd] = c.committer
    const env = {
      GIT_AUTHOR_NAME: an,
      GIT_AUTHOR_EMAIL: ae,
      GIT_AUTHOR_DATE: ad,
      GIT_COMMITTER_NAME: cn,
      GIT_COMMITTER_EMAIL: ce,
      GIT_COMMITTER_DATE: cd
    }
    const made = await repo.exec(
      ['commit-tree', c.tree, ...parents, '-m', map(c.message).replace(/\n+$/, '')],
      { env }
    )
    last = made.stdout.trim()
    moved.set(c.sha, last)
  }
  return moved.get(head) ?? last
}
