import type { MergeMethod, MergeReply, ReviewSeen } from '../github/merge.js'

/**
 * The landing train's decisions, pure: whose approval counts and whether it still holds, the merge
 * method, the order of the train, and what GitHub's refusal of a merge means for the PR.
 */

/** Whether the PR may land on its approvals, and if not, why (a sentence for the results). */
export type Approval = { ok: true; by: string[] } | { ok: false; reason: string }

/**
 * Each reviewer's standing review: the latest that approved, requested changes or was dismissed
 * (a plain comment changes nothing, as on GitHub).
 */
export function standingReviews(reviews: ReviewSeen[]): Map<string, ReviewSeen> {
  const standing = new Map<string, ReviewSeen>()
  const ordered = [...reviews].sort(
    (a, b) => a.submittedAt.localeCompare(b.submittedAt) || a.id - b.id
  )
  for (const r of ordered) {
    if (r.state === 'COMMENTED' || r.state === 'PENDING') continue
    standing.set(r.login, r)
  }
  return standing
}

const short = (sha: string) => sha.slice(0, 7)

/**
 * The action's own gate: only people with write access count (bots never); none of them may have
 * changes requested as their standing review; at least one approved this content — the head
 * itself, or a head the action's own updates from the base carried it from (`carried`). A worker's
 * turn after the approval is new content: the approval no longer counts.
 */
export function approvalOf(p: {
  reviews: ReviewSeen[]
  writers: ReadonlySet<string>
  head: string
  carried: readonly string[]
}): Approval {
  const standing = [...standingReviews(p.reviews).values()]
  const counted = standing.filter(r => !r.isBot && p.writers.has(r.login))
  const blocking = counted.filter(r => r.state === 'CHANGES_REQUESTED').map(r => r.login)
  if (blocking.length)
    return {
      ok: false,
      reason: `changes requested by ${blocking.join(', ')} (their latest review): it lands once they approve`
    }
  const approved = counted.filter(r => r.state === 'APPROVED')
  const current = approved.filter(r => r.commitId === p.head || p.carried.includes(r.commitId))
  if (current.length) return { ok: true, by: current.map(r => r.login) }
  if (approved.length)
    return {
      ok: false,
      reason: `approved by ${approved.map(r => `${r.login} at ${short(r.commitId)}`).join(', ')}, before a worker's turn changed the PR (now ${short(p.head)}): new content needs a new approval`
    }
  const others = standing.filter(r => r.state === 'APPROVED').map(r => r.login)
  if (others.length)
    return {
      ok: false,
      reason: `approved only by ${others.join(', ')}, without write access: only an approval by a person with write access counts`
    }
  return { ok: false, reason: 'no approval yet from a person with write access' }
}

export type MethodChoice = { ok: true; method: MergeMethod } | { ok: false; error: string }

/**
 * The merge method: the input when the repository allows it, else what it allows, squash first.
 * A setting the token cannot see (undefined) is taken as allowed: GitHub's answer judges.
 */
export function mergeMethodFor(
  asked: MergeMethod | undefined,
  allows: Record<MergeMethod, boolean | undefined>
): MethodChoice {
  const allowed = (m: MergeMethod) => allows[m] !== false
  const order: MergeMethod[] = ['squash', 'merge', 'rebase']
  if (asked) {
    if (allowed(asked)) return { ok: true, method: asked }
    const instead = order.filter(allowed)
    return {
      ok: false,
      error: `merge-method is ${asked}, which this repository does not allow (allow_${asked === 'merge' ? 'merge_commit' : `${asked}_merge`} is false); it allows ${instead.join(', ') || 'no merge method'}: set merge-method to one of them, or leave it empty`
    }
  }
  const method = order.find(allowed)
  return method
    ? { ok: true, method }
    : { ok: false, error: 'this repository allows no merge method (merge, squash or rebase)' }
}

/** A PR of the train as the order sees it: the files it changes against the base. */
export interface Carriage {
  number: number
  files: string[]
}

/**
 * The merge-order map's order: PRs that share no file with another first (oldest first, as
 * listed), then those sharing with the fewest others, so each merge disturbs the rest least.
 */
export function trainOrder<T extends Carriage>(prs: T[]): T[] {
  const partners = (pr: T) =>
    prs.filter(o => o.number !== pr.number && o.files.some(f => pr.files.includes(f))).length
  return prs
    .map((pr, i) => ({ pr, i, n: partners(pr) }))
    .sort((a, b) => a.n - b.n || a.i - b.i)
    .map(x => x.pr)
}

/** What GitHub's answer to the merge means for the PR. */
export type MergeVerdict =
  | { kind: 'merged'; sha: string }
  /** GitHub will not merge it now (checks, reviews, rules): it waits, with GitHub's reason. */
  | { kind: 'waiting'; reason: string; about: 'checks' | 'reviews' | 'queue' | 'other' }
  /** The head moved between the push and the merge (409): read again, the train goes on. */
  | { kind: 'head-moved'; reason: string }
  | { kind: 'failed'; reason: string }

export function readMergeReply(reply: MergeReply): MergeVerdict {
  if (reply.merged) return { kind: 'merged', sha: reply.sha }
  const said = `GitHub said (${reply.status}): ${reply.message}`
  if (reply.status === 409) return { kind: 'head-moved', reason: said }
  if (reply.status === 405) {
    const m = reply.message
    const about = /status check/i.test(m)
      ? 'checks'
      : /review/i.test(m)
        ? 'reviews'
        : /merge queue/i.test(m)
          ? 'queue'
          : 'other'
    return { kind: 'waiting', reason: said, about }
  }
  if (reply.status === 403)
    return {
      kind: 'failed',
      reason: `${said}; the token needs contents: write and pull-requests: write to merge`
    }
  return { kind: 'failed', reason: said }
}

/** The required checks that have not passed on a commit, by name. */
export const missingChecks = (required: string[], passed: string[]): string[] =>
  required.filter(c => !passed.includes(c))
