import type { Git } from './git.js'
import { KeptGit } from './kept.js'

const ANSWER = ['start: ok', 'prepare: ok', 'commit: ok']

/** A full ref name as the action writes them: no space, no line break. */
const REF = /^refs\/\S+$/
/** One to read: nor anything git would read as more than a name (`..`, `@{`, `^`, `~`, `:`). */
const NAME = /^refs\/(?!.*(?:\.\.|@\{))[^\s~^:?*[\\]+$/
const SHA = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/

/**
 * A repository's refs set through one `git update-ref --stdin` kept open (kept.ts), not one git
 * start per write: each set() is one transaction (start, its updates, prepare, commit). Git still
 * writes the refs (its locks, reflogs and ref storage). A transaction git refuses ends that
 * process: the set() fails with git's words, as `git update-ref` would.
 */
export class RefWriter {
  private readonly kept: KeptGit

  constructor(git: Git) {
    this.kept = new KeptGit(git, ['update-ref', '--stdin'])
  }

  /** Each ref set to its object, in one transaction. */
  async set(updates: ReadonlyArray<{ ref: string; sha: string }>): Promise<void> {
    for (const { ref, sha } of updates)
      if (!REF.test(ref) || !SHA.test(sha))
        throw new Error(`not a ref update the action makes: '${ref}' to '${sha}'`)
    const request = ['start', ...updates.map(u => `update ${u.ref} ${u.sha}`), 'prepare', 'commit']
    await this.kept.ask(`${request.join('\n')}\n`, ANSWER.length, answer => {
      if (answer.join('\n') !== ANSWER.join('\n'))
        throw new Error(`git update-ref --stdin answered '${answer.join(' / ')}'`)
    })
  }

  /** Lets the process go now: the next set() starts another. */
  close(): void {
    void this.kept.close()
  }
}

/**
 * A repository's refs read through one `git cat-file --batch-check` kept open (kept.ts), not a
 * `for-each-ref` or `rev-parse` start per read. Git resolves each name as it is asked, from the
 * ref storage as it is then (a ref another process moved meanwhile reads as moved).
 */
export class RefReader {
  private readonly kept: KeptGit

  constructor(git: Git) {
    this.kept = new KeptGit(git, ['cat-file', '--batch-check=%(objectname)'])
  }

  /** Each full ref name's object, or undefined where the ref does not exist. */
  async read(refs: readonly string[]): Promise<Map<string, string | undefined>> {
    for (const ref of refs)
      if (!NAME.test(ref)) throw new Error(`not a ref the action reads: '${ref}'`)
    if (refs.length === 0) return new Map()
    const answer = await this.kept.ask(`${refs.join('\n')}\n`, refs.length)
    return new Map(refs.map((ref, i) => [ref, SHA.test(answer[i] ?? '') ? answer[i] : undefined]))
  }

  /** Lets the process go now: the next read() starts another. */
  close(): void {
    void this.kept.close()
  }
}
