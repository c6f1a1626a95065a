// The clone's refs written through one `git update-ref --stdin` kept open (git/ref-writer.ts),
// with real git: the refs land as `git update-ref` would set them (reflog included), one process
// serves many transactions, and a refusal, a dead process or a forged line is handled. Refs read
// through one `git cat-file --batch-check` kept open (RefReader): as they are when asked.
import { describe, expect, it, vi } from 'vitest'
import { Git, GitError } from '../../src/git/git.js'
import { RefReader, RefWriter } from '../../src/git/ref-writer.js'
import type { Child, ChildResult } from '../../src/process.js'
import { letGoAll } from '../../src/git/kept.js'
import { baseRepo, commitFile, git } from '../support/git.js'

/** A writer on a fresh repository, each process it starts recorded. */
function writer() {
  const { fleet, start } = baseRepo('fleet-ref-writer-')
  commitFile(fleet, 'b.txt', 'second')
  const next = git(fleet, 'rev-parse', 'HEAD')
  const repo = Git.create(fleet)
  const started: Child[] = []
  const keep = repo.keep.bind(repo)
  vi.spyOn(repo, 'keep').mockImplementation(async args => {
    const child = await keep(args)
    started.push(child)
    return child
  })
  return { fleet, start, next, refs: new RefWriter(repo), started }
}

/** The ref's commit, or '' where there is none. */
const read = (dir: string, ref: string) => git(dir, 'for-each-ref', '--format=%(objectname)', ref)

describe('RefWriter', () => {
  it("holds the action's process alive only while a set is answered, so an action done exits at once", async () => {
    const w = writer()
    const holding = () =>
      process.getActiveResourcesInfo().filter(r => r === 'ProcessWrap' || r === 'PipeWrap').length
    // First in the file: no other test's child is still ending and changes the count meanwhile.
    const before = holding()
    await w.refs.set([{ ref: 'refs/heads/fleet/h', sha: w.start }])
    // Idle: the process is still there (the next set uses it), and holds nothing.
    expect(w.started[0]?.pid).toBeDefined()
    expect(holding()).toBe(before)
    await w.refs.set([{ ref: 'refs/heads/fleet/h', sha: w.next }])
    expect(w.started).toHaveLength(1)
    expect(holding()).toBe(before)
    w.refs.close()
  })

  it("stays while idle: a worker's minutes between two sets cost no git start", async () => {
    const w = writer()
    await w.refs.set([{ ref: 'refs/heads/fleet/i', sha: w.start }])
    await new Promise(resolve => setTimeout(resolve, 2500))
    await w.refs.set([{ ref: 'refs/heads/fleet/i', sha: w.next }])
    expect(w.started).toHaveLength(1)
    expect(read(w.fleet, 'refs/heads/fleet/i')).toBe(w.next)
    w.refs.close()
  })

  it('sets refs as git update-ref does, many transactions through one process', async () => {
    const w = writer()
    await w.refs.set([{ ref: 'refs/heads/fleet/a', sha: w.start }])
    await w.refs.set([
      { ref: 'refs/heads/fleet/a', sha: w.next },
      { ref: 'refs/remotes/origin/fleet/a', sha: w.start }
    ])
    expect(read(w.fleet, 'refs/heads/fleet/a')).toBe(w.next)
    expect(read(w.fleet, 'refs/remotes/origin/fleet/a')).toBe(w.start)
    // git wrote them: the branch's reflog has both moves.
    expect(git(w.fleet, 'reflog', '--format=%H', 'refs/heads/fleet/a').split('\n')).toEqual([
      w.next,
      w.start
    ])
    expect(w.started).toHaveLength(1)
    w.refs.close()
  })

  it('answers sets made at once in turn, each landed', async () => {
    const w = writer()
    const ids = Array.from({ length: 20 }, (_, i) => i)
    await Promise.all(ids.map(i => w.refs.set([{ ref: `refs/heads/fleet/t${i}`, sha: w.next }])))
    for (const i of ids) expect(read(w.fleet, `refs/heads/fleet/t${i}`)).toBe(w.next)
    expect(w.started).toHaveLength(1)
    w.refs.close()
  })

  it("fails a set git refuses with git's words, and the next set starts a new process", async () => {
    const w = writer()
    const missing = '0123456789012345678901234567890123456789'
    const refused = w.refs.set([{ ref: 'refs/heads/fleet/x', sha: missing }])
    await expect(refused).rejects.toThrow(GitError)
    await expect(refused).rejects.toThrow(/nonexistent object 0123456789/)
    expect(read(w.fleet, 'refs/heads/fleet/x')).toBe('')
    await w.refs.set([{ ref: 'refs/heads/fleet/x', sha: w.start }])
    expect(read(w.fleet, 'refs/heads/fleet/x')).toBe(w.start)
    expect(w.started).toHaveLength(2)
    w.refs.close()
  })

  it('replaces a process that died while idle, losing no set', async () => {
    const w = writer()
    await w.refs.set([{ ref: 'refs/heads/fleet/y', sha: w.start }])
    process.kill(w.started[0]?.pid ?? 0, 'SIGKILL')
    await w.started[0]?.result
    await w.refs.set([{ ref: 'refs/heads/fleet/y', sha: w.next }])
    expect(read(w.fleet, 'refs/heads/fleet/y')).toBe(w.next)
    expect(w.started).toHaveLength(2)
    w.refs.close()
  })

  it('is let go with every other kept process as the action ends: it exits by itself, not killed', async () => {
    const w = writer()
    const reader = new RefReader(Git.create(w.fleet))
    await w.refs.set([{ ref: 'refs/heads/fleet/g', sha: w.start }])
    await reader.read(['refs/heads/fleet/g'])
    const ends: ChildResult[] = []
    void w.started[0]?.result.then(r => ends.push(r))
    await letGoAll()
    // Ended before letGoAll returned, as git ends at its stdin's end.
    expect(ends).toEqual([expect.objectContaining({ exitCode: 0, signal: null })])
  })

  it('lets its process go on close(): it exits with its stdin ended', async () => {
    const w = writer()
    await w.refs.set([{ ref: 'refs/heads/fleet/z', sha: w.start }])
    w.refs.close()
    const ended = await w.started[0]?.result
    expect(ended?.exitCode).toBe(0)
  })

  it('refuses a line that would be a second command (a ref or object with a newline or space)', async () => {
    const w = writer()
    for (const forged of [
      { ref: `refs/heads/fleet/a\nupdate refs/heads/main ${w.next}`, sha: w.start },
      { ref: 'refs/heads/fleet/a', sha: `${w.start}\ndelete refs/heads/main` },
      { ref: 'refs/heads/fleet/a b', sha: w.start },
      { ref: 'HEAD', sha: w.start }
    ])
      await expect(w.refs.set([forged])).rejects.toThrow(/not a ref update the action makes/)
    expect(read(w.fleet, 'refs/heads/main')).toBe(w.next)
    expect(read(w.fleet, 'refs/heads/fleet/a')).toBe('')
    expect(w.started).toHaveLength(0)
  })
})

describe('RefReader', () => {
  it('reads refs as git resolves them, each time as they are then, through one process', async () => {
    const w = writer()
    const reader = new RefReader(Git.create(w.fleet))
    const keep = vi.spyOn(Git.prototype, 'keep')
    const names = ['refs/heads/main', 'refs/remotes/origin/fleet/none']
    expect(await reader.read(names)).toEqual(
      new Map([
        [names[0], w.next],
        [names[1], undefined]
      ])
    )
    // Moved by another process, then packed away from its loose file: read as it is now.
    git(w.fleet, 'update-ref', 'refs/heads/main', w.start)
    expect((await reader.read(['refs/heads/main'])).get('refs/heads/main')).toBe(w.start)
    git(w.fleet, 'pack-refs', '--all')
    git(w.fleet, 'update-ref', 'refs/remotes/origin/fleet/none', w.next)
    expect(await reader.read(names)).toEqual(
      new Map([
        [names[0], w.start],
        [names[1], w.next]
      ])
    )
    expect(keep).toHaveBeenCalledTimes(1)
    keep.mockRestore()
    reader.close()
  })

  it('refuses a name git would read as more than a ref, before any process starts', async () => {
    const w = writer()
    const repo = Git.create(w.fleet)
    const keep = vi.spyOn(repo, 'keep')
    const reader = new RefReader(repo)
    for (const forged of [
      'refs/heads/main\nrefs/heads/other',
      'refs/heads/main^{tree}',
      'refs/heads/main@{1}',
      'refs/heads/main~1',
      'refs/heads/main:a.txt',
      'refs/heads/x..refs/heads/main',
      'HEAD'
    ])
      await expect(reader.read([forged])).rejects.toThrow(/not a ref the action reads/)
    expect(keep).not.toHaveBeenCalled()
  })
})
