// Issue 26: one way to stop a child. The run's signal and the timeout end the whole group the same
// way (SIGTERM, SIGKILL one grace period later), the result says how it ended, and what the child
// left running (a setsid'd, double-forked daemon; one that keeps forking) is dead by the time its
// result is in, without polling for it.
import { execFileSync } from 'node:child_process'
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  huntAllChildren,
  KILL_GRACE_MS,
  run,
  runChild,
  startChild,
  STRAY_MARKER
} from '../../src/process.js'
import {
  environOf,
  findStrays,
  type ProcReader,
  startTicks,
  statFields
} from '../../src/process/hunt.js'

const ENV = { PATH: process.env.PATH ?? '/usr/bin:/bin' }
let dir: string
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'fleet-process-'))
})
afterAll(() => rm(dir, { recursive: true, force: true }))

/** The state letter of a process, or undefined when it is gone or a zombie (dead, unreaped). */
async function alive(pid: number): Promise<string | undefined> {
  const stat = await readFile(`/proc/${pid}/stat`, 'latin1').catch(() => undefined)
  const state = stat?.slice(stat.lastIndexOf(')') + 2).split(' ')[0]
  return state && state !== 'Z' && state !== 'X' ? state : undefined
}

/** Resolves once `pid` is gone (a SIGKILLed process is listed until it is next scheduled). */
async function gone(pid: number, ms = 30_000): Promise<string | undefined> {
  const until = Date.now() + ms
  let state = await alive(pid)
  while (state && Date.now() < until) {
    await new Promise(r => setTimeout(r, 20))
    state = await alive(pid)
  }
  return state
}

/** Shell: wait until process $1 leads a session of its own (setsid has run), so a group kill misses it. */
const OWN_SESSION = (pid: string) =>
  `while [ "$(cut -d' ' -f6 /proc/${pid}/stat)" != "${pid}" ]; do sleep 0.01; done`

/** Shell: wait until `file` lists at least `n` pids. */
const UNTIL_PIDS = (file: string, n: number) =>
  `while [ "$(cat ${file} 2>/dev/null | wc -l)" -lt ${n} ]; do sleep 0.01; done`

async function pidsIn(file: string): Promise<number[]> {
  const text = await readFile(file, 'utf8').catch(() => '')
  return text.split(/\s+/).filter(Boolean).map(Number)
}

/** Resolves once `file` holds at least `n` pids: a condition, not a fixed wait. */
async function written(file: string, n = 1): Promise<number[]> {
  for (;;) {
    const pids = await pidsIn(file)
    if (pids.length >= n) return pids
    await new Promise(r => setTimeout(r, 20))
  }
}

describe("a run's stop", () => {
  it('ends the group with SIGTERM, and the result says it was cancelled and why', async () => {
    const stop = new AbortController()
    const ready = path.join(dir, 'cancel.ready')
    const child = startChild('sh', ['-c', `sleep 30 & echo $! > ${ready}; wait`], {
      env: ENV,
      signal: stop.signal
    })
    const [sleeper = 0] = await written(ready)
    stop.abort('the run was cancelled')
    const r = await child.result
    expect(r).toMatchObject({
      cancelled: 'the run was cancelled',
      signal: 'SIGTERM',
      exitCode: null,
      timedOut: false
    })
    // The shell's own child, in its group, went with it.
    expect(await alive(sleeper)).toBeUndefined()
  })

  it('a child that ignores SIGTERM is killed one grace period later', async () => {
    const stop = new AbortController()
    const ready = path.join(dir, 'stubborn.ready')
    const child = startChild('sh', ['-c', `trap '' TERM; echo $$ > ${ready}; sleep 30 & wait`], {
      env: ENV,
      signal: stop.signal
    })
    await written(ready)
    const at = Date.now()
    stop.abort('the run was cancelled')
    const r = await child.result
    expect(r.signal).toBe('SIGKILL')
    expect(r.cancelled).toBe('the run was cancelled')
    expect(Date.now() - at).toBeGreaterThanOrEqual(KILL_GRACE_MS - 50)
  })

  it('starts nothing once the run is stopped', async () => {
    const stop = new AbortController()
    stop.abort('the run was cancelled')
    const ran = path.join(dir, 'never-ran')
    const r = await runChild('sh', ['-c', `touch ${ran}`], { env: ENV, signal: stop.signal })
    expect(r).toMatchObject({ cancelled: 'the run was cancelled', exitCode: null, signal: null })
    await expect(readFile(ran)).rejects.toThrow(/ENOENT/)
  })

  it('a timeout ends it the same way: SIGTERM, then SIGKILL after the same grace', async () => {
    const r = await runChild('sh', ['-c', "trap '' TERM; sleep 30 & wait"], {
      env: ENV,
      timeoutMs: 200
    })
    expect(r).toMatchObject({ timedOut: true, signal: 'SIGKILL' })
    expect(r.cancelled).toBeUndefined()
    expect(r.durationMs).toBeGreaterThanOrEqual(200 + KILL_GRACE_MS - 50)
  })

  it('calls onStop once, before the group is signalled, saying why', async () => {
    const stop = new AbortController()
    const whys: string[] = []
    const child = startChild('sleep', ['30'], {
      env: ENV,
      signal: stop.signal,
      timeoutMs: 60_000,
      onStop: why => whys.push(why)
    })
    stop.abort('x')
    await child.result
    expect(whys).toEqual(['cancel'])
  })
})

describe('the stray hunt', () => {
  it('kills a setsid, double-forked daemon before the result is in', async () => {
    const pids = path.join(dir, 'daemon.pids')
    // The shell exits once the daemon is running (its pid written, not after a fixed time); the
    // daemon is a grandchild in a session of its own.
    const script = `setsid sh -c '(sleep 300 & echo $! >> ${pids}) &' ; ${UNTIL_PIDS(pids, 1)}; exit 0`
    const r = await runChild('sh', ['-c', script], { env: ENV })
    expect(r.exitCode).toBe(0)
    const [daemon = 0] = await pidsIn(pids)
    expect(daemon).toBeGreaterThan(0)
    expect(await alive(daemon), 'the daemon outlived the hunt').toBeUndefined()
  })

  it('kills a daemon that keeps forking new daemons while it is hunted', async () => {
    const pids = path.join(dir, 'spawner.pids')
    const spawner = `while :; do setsid sleep 300 & echo $! >> ${pids}; sleep 0.01; done`
    // The shell exits once the spawner has made a few daemons, and is still making more.
    const script = `setsid sh -c '${spawner}' & ${UNTIL_PIDS(pids, 3)}; exit 0`
    const r = await runChild('sh', ['-c', script], { env: ENV })
    expect(r.exitCode).toBe(0)
    const all = await pidsIn(pids)
    expect(all.length).toBeGreaterThan(1)
    const left = (await Promise.all(all.map(async p => ((await alive(p)) ? p : 0)))).filter(Boolean)
    expect(left, 'sleepers left alive').toEqual([])
  })

  it("leaves another child's processes alone", async () => {
    const ready = path.join(dir, 'other.ready')
    const other = startChild('sh', ['-c', `echo $$ > ${ready}; sleep 30`], { env: ENV })
    const [otherPid = 0] = await written(ready)
    await runChild('sh', ['-c', '(setsid sleep 300 &); exit 0'], { env: ENV })
    // The second child's hunt did not touch it; it is ended here by its own group.
    expect(await alive(otherPid)).toBeDefined()
    process.kill(-(other.pid ?? 0), 'SIGKILL')
    expect((await other.result).signal).toBe('SIGKILL')
  })

  it('the action-wide hunt kills what a short command left behind', async () => {
    const pids = path.join(dir, 'short.pids')
    // run() (a short command) kills its group when it exits, but not a new session: that is
    // left for the hunt the action runs as it ends.
    const script = `setsid sleep 300 & d=$!; echo $d > ${pids}; ${OWN_SESSION('$d')}; exit 0`
    const r = await run('sh', ['-c', script], { env: ENV })
    expect(r.exitCode).toBe(0)
    const [daemon = 0] = await written(pids)
    expect(await alive(daemon)).toBeDefined()
    expect(await huntAllChildren()).toBeGreaterThanOrEqual(1)
    expect(await gone(daemon)).toBeUndefined()
  })

  it('finds a process by its marker in /proc/<pid>/environ, and not a different marker', async () => {
    const ready = path.join(dir, 'marked.ready')
    const child = startChild('sh', ['-c', `echo $$ > ${ready}; sleep 30`], { env: ENV })
    const [pid = 0] = await written(ready)
    // The shell and its sleep both carry it.
    expect((await findStrays({ marker: child.marker, variable: STRAY_MARKER })).pids).toContain(pid)
    expect(await findStrays({ marker: `${child.marker}0`, variable: STRAY_MARKER })).toEqual({
      pids: [],
      unsure: false
    })
    process.kill(-pid, 'SIGKILL')
    await child.result
  })

  it('reads no environment of a process started before `since`: it cannot descend from the child', async () => {
    const ready = path.join(dir, 'older.ready')
    const child = startChild('sh', ['-c', `echo $$ > ${ready}; sleep 30`], { env: ENV })
    const [pid = 0] = await written(ready)
    const born = startTicks(pid)
    expect(born).toBeGreaterThan(0)
    const marked = { marker: child.marker, variable: STRAY_MARKER }
    // From its own start it is found; from a tick after, it is older and not looked at.
    expect((await findStrays({ ...marked, since: born })).pids).toContain(pid)
    expect((await findStrays({ ...marked, since: (born ?? 0) + 1 })).pids).not.toContain(pid)
    // Its group is still found whatever its age: the group is not read from the environment.
    expect((await findStrays({ group: pid, since: (born ?? 0) + 1 })).pids).toContain(pid)
    process.kill(-pid, 'SIGKILL')
    await child.result
  })

  it("reads a stat line's state, group and start after the last ')': a name may hold both", () => {
    // A process may name itself anything (prctl PR_SET_NAME): here "a) R 1 (b", which would shift
    // every field read from the first ')'.
    const line = '4242 (a) R 1 (b) S 1 777 777 0 -1 4194560 96 0 0 0 0 0 0 0 20 0 1 0 123456 2 3\n'
    expect(statFields(line)).toEqual({ state: 'S', group: 777, startTicks: 123456 })
  })
})

describe('a stop that comes after the child ended', () => {
  it('does not call it cancelled, even while its pipes are still awaited', async () => {
    const stop = new AbortController()
    const marked = path.join(dir, 'late.marked')
    const unmarked = path.join(dir, 'late.unmarked')
    // The shell exits at once. One daemon carries the marker (the hunt kills it: proof the exit
    // was seen); one wipes its environment and holds stdout, so the result waits out the grace.
    const script = [
      `setsid sleep 300 & m=$!; echo $m > ${marked}`,
      `setsid env -i /bin/sleep 301 & u=$!; echo $u > ${unmarked}`,
      OWN_SESSION('$m'),
      OWN_SESSION('$u'),
      'exit 0'
    ].join('; ')
    const child = startChild('sh', ['-c', script], { env: ENV, signal: stop.signal })
    let settled = false
    void child.result.then(() => (settled = true))
    const [daemon = 0] = await written(marked)
    const [escaped = 0] = await written(unmarked)
    try {
      while (await alive(daemon)) await new Promise(r => setTimeout(r, 20))
      expect(settled, 'the result came before the cancel: nothing was tested').toBe(false)
      stop.abort('the run was cancelled')
      const r = await child.result
      expect(r.exitCode).toBe(0)
      expect(r.cancelled).toBeUndefined()
    } finally {
      process.kill(escaped, 'SIGKILL')
    }
  })

  it('finds every marked process when this process is short of file descriptors', async () => {
    // 300 marked sleeps, and this process's soft descriptor limit set (prlimit) to what it has
    // open plus 48: reading /proc for all of them at once ran out (EMFILE) and found almost none.
    const ready = path.join(dir, 'many.ready')
    const child = startChild(
      'sh',
      ['-c', `for i in $(seq 1 300); do sleep 60 & done; echo $$ > ${ready}; wait`],
      { env: ENV }
    )
    const [pid = 0] = await written(ready)
    const open = (await readdir('/proc/self/fd')).length
    const limit = (soft: string) =>
      execFileSync('prlimit', ['--pid', String(process.pid), `--nofile=${soft}:`])
    const soft = execFileSync('prlimit', [
      '--pid',
      String(process.pid),
      '--nofile',
      '-o',
      'SOFT',
      '--noheadings'
    ])
      .toString()
      .trim()
    limit(String(open + 48))
    try {
      const found = await findStrays({ marker: child.marker, variable: STRAY_MARKER })
      expect(found.pids.length).toBeGreaterThanOrEqual(301)
    } finally {
      limit(soft)
      process.kill(-pid, 'SIGKILL')
    }
    await child.result
  })

  it('reads an environment again while exec is still laying it out', async () => {
    // A process caught inside exec reads an empty environ for a moment, then its real one.
    let reads = 0
    const reader =
      (environs: string[], cmdline: string): ProcReader =>
      file => {
        if (file.endsWith('/cmdline')) return Promise.resolve(Buffer.from(cmdline))
        return Promise.resolve(Buffer.from(environs[Math.min(reads++, environs.length - 1)] ?? ''))
      }
    let unsure = false
    const doubt = () => (unsure = true)
    const midExec = await environOf('7', doubt, true, reader(['', '', 'A=1\0MARK=x\0'], 'sleep\0'))
    expect(midExec?.toString()).toBe('A=1\0MARK=x\0')
    expect(unsure).toBe(false)
    // An old process started with no environment (env -i): empty at once, and sure of it.
    reads = 0
    expect((await environOf('7', doubt, false, reader([''], 'sleep\0')))?.length).toBe(0)
    expect(reads).toBe(1)
    expect(unsure).toBe(false)
    // Empty arguments and environment every time, however old: exec still under way, so unsure.
    reads = 0
    await environOf('7', doubt, false, reader([''], ''))
    expect(reads).toBeGreaterThan(1)
    expect(unsure).toBe(true)
  })
})
