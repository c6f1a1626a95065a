/**
 * The spend ledger on GitHub: one JSON-lines file on a branch of its own that nobody merges,
 * appended by compare-and-swap. Each append is one commit on top of the tip just read, pushed
 * without force: when another run (a matrix shard, a concurrent workflow) appended first, the
 * push is refused, and the append reads the ledger again and goes on top of it. So no entry is
 * lost, and `contents: write` is all it needs. The credential is scoped to each command.
 */
import { mkdir, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { authEnv, Git, GitError } from '../git/git.js'
import {
  type Entry,
  LEDGER_FILE,
  LedgerError,
  ledgerLines,
  ledgerName,
  parseLedger
} from './entry.js'

export interface LedgerPlace {
  /** The repository's git URL, without credentials. */
  remoteUrl: string
  /** Read access is enough to read; appending needs contents: write. */
  token?: string
  branch: string
  /** A fresh directory of the action's, for a bare repository of the ledger alone. */
  dir: string
  env?: NodeJS.ProcessEnv
  author: { name: string; email: string }
  log?: (message: string) => void
}

/** What the ledger holds at one tip (none: the branch does not exist yet). */
export interface LedgerRead {
  tip?: string
  entries: Entry[]
  text: string
}

const README = `# Fleet Worker's spend ledger

\`${LEDGER_FILE}\` holds one JSON line per task a Fleet Worker run ran: when (\`at\`, UTC), the run,
the task, its status, its cost in USD (\`cost\`) and tokens, its model, how it was started
(\`trigger\`, \`user\`) and its PR. The action appends to it (one commit per append, never forced)
and checks its daily and monthly spend caps against it. Do not merge this branch; to reset the
caps, delete it (see the action's docs/budgets.md).
`

/** Attempts at an append before giving up: each lost race means another run's append landed. */
const ATTEMPTS = 12

const sleep = (ms: number) => new Promise(resolve => setTimeout(resolve, ms))

export class LedgerBranch {
  private constructor(
    private readonly git: Git,
    private readonly place: LedgerPlace,
    private readonly auth: Record<string, string>
  ) {}

  static async open(place: LedgerPlace): Promise<LedgerBranch> {
    await mkdir(place.dir, { recursive: true })
    const git = Git.create(place.dir, place.env ?? process.env)
    await git.exec(['init', '--quiet', '--bare', '.'])
    return new LedgerBranch(
      git,
      place,
      authEnv(place.remoteUrl, place.token, place.env ?? process.env)
    )
  }

  private get ref() {
    return `refs/heads/${this.place.branch}`
  }

  /** The branch's tip on the remote, or undefined when it does not exist. */
  private async remoteTip(): Promise<string | undefined> {
    const out = await this.git.exec(['ls-remote', this.place.remoteUrl, this.ref], {
      env: this.auth
    })
    const line = out.stdout.split('\n').find(l => l.endsWith(`\t${this.ref}`))
    return line?.split('\t')[0]
  }

  /** The branch the remote's HEAD names (the repository's default branch), when it says. */
  async defaultBranch(): Promise<string | undefined> {
    const out = await this.git.exec(['ls-remote', '--symref', this.place.remoteUrl, 'HEAD'], {
      env: this.auth
    })
    return /^ref: refs\/heads\/(\S+)\tHEAD$/m.exec(out.stdout)?.[1]
  }

  /** The ledger as the remote holds it now; a LedgerError when it is not a ledger. */
  async read(): Promise<LedgerRead> {
    const tip = await this.remoteTip()
    if (!tip) return { entries: [], text: '' }
    await this.git.exec(
      [
        'fetch',
        '--quiet',
        '--no-tags',
        '--depth=1',
        this.place.remoteUrl,
        `+${this.ref}:refs/ledger/tip`
      ],
      { env: this.auth }
    )
    const fetched = await this.git.out(['rev-parse', 'refs/ledger/tip'])
    const blob = await this.git.exec(['cat-file', 'blob', `${fetched}:${LEDGER_FILE}`], {
      allowFailure: true
    })
    if (blob.exitCode !== 0)
      throw new LedgerError(
        `${ledgerName(this.place.branch)} is missing: branch ${this.place.branch} exists but holds no ${LEDGER_FILE}, so spend caps cannot be checked (delete the branch to reset the ledger, see docs/budgets.md)`
      )
    return { tip: fetched, text: blob.stdout, entries: parseLedger(blob.stdout, this.place.branch) }
  }

  /**
   * Appends the entries on top of the ledger's current tip; a refused push (someone appended
   * first) reads again and retries. Returns the ledger after the append.
   */
  async append(entries: readonly Entry[], message: string): Promise<LedgerRead> {
    let last: unknown
    for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
      const now = await this.read()
      const text = `${now.text}${now.text === '' || now.text.endsWith('\n') ? '' : '\n'}${ledgerLines(entries)}`
      const commit = await this.commit(text, now.tip, message)
      const pushed = await this.git.exec(
        ['push', '--quiet', this.place.remoteUrl, `${commit}:${this.ref}`],
        { env: this.auth, allowFailure: true }
      )
      if (pushed.exitCode === 0) return { tip: commit, text, entries: [...now.entries, ...entries] }
      last = new GitError(['push'], pushed)
      // Lost the race only if the tip moved; else the push was refused for its own reason.
      if ((await this.remoteTip()) === now.tip) throw last
      this.place.log?.(
        `${ledgerName(this.place.branch)}: another run appended first; appending on top of it (attempt ${attempt + 1})`
      )
      await sleep(50 + Math.random() * 150 * attempt)
    }
    throw new Error(
      `${ledgerName(this.place.branch)}: ${ATTEMPTS} appends in a row lost the race to other runs`,
      { cause: last }
    )
  }

  /** One commit holding the ledger's new text, on top of `parent` (an orphan root without one). */
  private async commit(text: string, parent: string | undefined, message: string): Promise<string> {
    const work = path.join(this.place.dir, 'append')
    await mkdir(work, { recursive: true })
    const file = path.join(work, LEDGER_FILE)
    await writeFile(file, text)
    const index = { GIT_INDEX_FILE: path.join(work, 'index') }
    const blob = await this.git.out(['hash-object', '-w', file])
    await this.git.exec(parent ? ['read-tree', parent] : ['read-tree', '--empty'], { env: index })
    if (!parent) {
      const readme = path.join(work, 'README.md')
      await writeFile(readme, README)
      const readmeBlob = await this.git.out(['hash-object', '-w', readme])
      await this.git.exec(
        ['update-index', '--add', '--cacheinfo', `100644,${readmeBlob},README.md`],
        {
          env: index
        }
      )
    }
    await this.git.exec(['update-index', '--add', '--cacheinfo', `100644,${blob},${LEDGER_FILE}`], {
      env: index
    })
    const tree = (await this.git.exec(['write-tree'], { env: index })).stdout.trim()
    const { name, email } = this.place.author
    const who = {
      GIT_AUTHOR_NAME: name,
      GIT_AUTHOR_EMAIL: email,
      GIT_COMMITTER_NAME: name,
      GIT_COMMITTER_EMAIL: email
    }
    const args = ['commit-tree', tree, ...(parent ? ['-p', parent] : []), '-m', message]
    return (await this.git.exec(args, { env: who })).stdout.trim()
  }
}
