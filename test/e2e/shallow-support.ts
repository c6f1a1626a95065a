// Shared pieces of the shallow-checkout e2e files (clone-borrow, shallow-landing): a long history
// on the remote's main made in one process, a commit on main the checkout lacks, and the objects
// the git remote stand-in sent, counted from its packs' headers.
import { execFileSync } from 'node:child_process'
import { OWNER, REPO, type Stack } from '../../demo/stack.js'

const FULL = `${OWNER}/${REPO}`

export const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: { PATH: process.env.PATH, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' }
  }).trim()

/** A commit on the remote's main that the checkout does not have: one new file. */
export function pushToMain(stack: Stack, file: string): string {
  const bare = stack.git.repoPath(FULL)
  const blob = execFileSync('git', ['hash-object', '-w', '--stdin'], {
    cwd: bare,
    input: `${file}\n`,
    encoding: 'utf8'
  }).trim()
  const base = git(bare, 'rev-parse', 'refs/heads/main')
  const entries = git(bare, 'ls-tree', base)
  const tree = execFileSync('git', ['mktree'], {
    cwd: bare,
    input: `${entries}\n100644 blob ${blob}\t${file}\n`,
    encoding: 'utf8'
  }).trim()
  const env = {
    ...process.env,
    GIT_AUTHOR_NAME: 'Someone',
    GIT_AUTHOR_EMAIL: 'someone@example.com',
    GIT_COMMITTER_NAME: 'Someone',
    GIT_COMMITTER_EMAIL: 'someone@example.com'
  }
  const commit = execFileSync('git', ['commit-tree', tree, '-p', base, '-m', `Add ${file}`], {
    cwd: bare,
    env,
    encoding: 'utf8'
  }).trim()
  git(bare, 'update-ref', 'refs/heads/main', commit, base)
  return commit
}

/**
 * `n` more commits on the remote's main (one process: git fast-import), each changing one of 20
 * files under history/; returns the new tip.
 */
export function history(stack: Stack, n: number): string {
  const bare = stack.git.repoPath(FULL)
  const base = git(bare, 'rev-parse', 'refs/heads/main')
  const data = (text: string) => `data ${Buffer.byteLength(text)}\n${text}\n`
  let stream = ''
  for (let i = 1; i <= n; i++) {
    stream += `commit refs/heads/main\nmark :${i}\ncommitter Someone <someone@example.com> ${1_700_000_000 + i} +0000\n`
    stream += data(`History ${i}`)
    stream += i === 1 ? `from ${base}\n` : `from :${i - 1}\n`
    stream += `M 100644 inline history/f${i % 20}.txt\n${data(`${i}\n`)}`
  }
  execFileSync('git', ['fast-import', '--quiet'], { cwd: bare, input: stream })
  return git(bare, 'rev-parse', 'refs/heads/main')
}

/** A side branch from `back` commits before `tip`, one new file, merged into main: the merge. */
export function mergeOld(stack: Stack, tip: string, back: number): string {
  const bare = stack.git.repoPath(FULL)
  const fork = git(bare, 'rev-parse', `${tip}~${back}`)
  const data = (text: string) => `data ${Buffer.byteLength(text)}\n${text}\n`
  const who = 'committer Someone <someone@example.com> 1800000000 +0000\n'
  const stream =
    `commit refs/heads/side\nmark :1\n${who}${data('Side')}from ${fork}\nM 100644 inline side.txt\n${data('side\n')}` +
    `commit refs/heads/main\nmark :2\n${who}${data('Merge side')}from ${tip}\nmerge :1\nM 100644 inline side.txt\n${data('side\n')}`
  execFileSync('git', ['fast-import', '--quiet'], { cwd: bare, input: stream })
  return git(bare, 'rev-parse', 'refs/heads/main')
}

/** The objects in every pack the remote sent since request `from` (the packs' own headers). */
export const objectsSent = (stack: Stack, from: number) =>
  stack.git.requests.slice(from).reduce((sum, r) => sum + (r.objects ?? 0), 0)
