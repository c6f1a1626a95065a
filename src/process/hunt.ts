/**
 * The stray hunt: after a child exits, whatever it left running is found in /proc and killed,
 * round after round, until its process group is empty and a round finds nothing. A tool that
 * started a daemon in a new session (`setsid cmd &`, a double fork) has left the group, so the
 * group kill misses it; it still inherits the child's environment, and so the marker variable
 * (src/process.ts STRAY_MARKER) that names the child. Linux only (/proc). What it cannot reach:
 * a process that wipes its environment (`env -i`) and leaves the group, or one of another user
 * (sudo resets the environment): the sandbox's PID namespace and the container bound those.
 * Only the environments of processes started no earlier than the child are read (`since`): a
 * descendant is forked after its ancestor, and an older process never inherited the marker.
 */
import { closeSync, openSync, readdirSync, readFileSync, readSync } from 'node:fs'
import { setTimeout as sleep } from 'node:timers/promises'

/** Errors that say the action ran short, not that the process is gone: look again. */
const SHORT = new Set(['EMFILE', 'ENFILE', 'EAGAIN', 'ENOMEM'])

/**
 * A /proc file's bytes; undefined when it cannot be read (the process is gone, or not ours), and
 * `unsure` called when that was for want of descriptors or memory. Read at once, not through the
 * thread pool: /proc's files are the kernel's, never a disk's, and `readFile` costs four trips
 * through the pool a file. Measured on 60 environments: 1.0-1.9 ms read at once, against 4.7-11.9
 * ms through the pool, on an idle machine (the pool's queue is longer under a batch).
 */
function readNow(file: string, unsure: () => void): Buffer | undefined {
  try {
    return readFileSync(file)
  } catch (error) {
    if (SHORT.has((error as NodeJS.ErrnoException).code ?? '')) unsure()
    return undefined
  }
}

const readProc = (file: string, unsure: () => void) => Promise.resolve(readNow(file, unsure))

/** Reads a /proc file: its bytes, or undefined (calling `unsure` when that was for want of means). */
export type ProcReader = (file: string, unsure: () => void) => Promise<Buffer | undefined>

/** How often, and how far apart, an empty environment is read again: exec may be under way. */
const EXEC_TRIES = 20
const EXEC_PAUSE_MS = 10
/** A process started this recently may be inside the exec that follows its fork. */
const YOUNG_MS = 5_000
/** Linux's USER_HZ: the unit of a process's start time in /proc/<pid>/stat. */
const TICKS_PER_S = 100

/**
 * A process's environment. One caught inside exec reads empty until the kernel has laid out its
 * new environment, which holds the marker again: under load, 300 processes started at once had
 * one or two caught so in one pass of every dozen (measured), and they looked unmarked. So an
 * empty environment is read again, a few times, a little apart, when exec may be under way: the
 * process is young (exec follows fork), or its arguments read empty too. An old process with
 * arguments and no environment was started with none (`env -i`): nothing to find, and no wait.
 * Still empty with empty arguments after the tries: the pass is `unsure`.
 */
export async function environOf(
  pid: string,
  unsure: () => void,
  young: boolean,
  read: ProcReader = readProc
): Promise<Buffer | undefined> {
  for (let tries = 1; ; tries++) {
    const env = await read(`/proc/${pid}/environ`, unsure)
    if (!env || env.length > 0) return env
    const cmdline = await read(`/proc/${pid}/cmdline`, unsure)
    const inExec = cmdline?.length === 0
    if (!inExec && !young) return env
    if (tries >= EXEC_TRIES) {
      if (inExec) unsure()
      return env
    }
    await sleep(EXEC_PAUSE_MS)
  }
}

/**
 * Signals a whole process group. ESRCH (the group is gone) is what we wanted and answers false;
 * anything else (EPERM) is logged to stderr with its cause, never thrown from a timer where nothing
 * could catch it.
 */
export function signalGroup(pid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pid, signal)
    return true
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH')
      console.error(`could not send ${signal} to process group ${pid}:`, error)
    return false
  }
}

/** Whom a hunt is after: a process group, and the processes whose environment holds a marker. */
export interface HuntTarget {
  /** The group's id: its leader's pid. */
  group?: number
  /** The marker's value: STRAY_MARKER=<marker> exactly. */
  marker?: string
  /** Or every value starting with this (the whole action's children). */
  prefix?: string
  /** The marker variable's name. */
  variable?: string
  /**
   * When the hunted child (or the action, for its children) started: /proc/<pid>/stat's start
   * time, in clock ticks since boot (startTicks). Processes started before it are not its
   * descendants, so their environments are not read: on a busy runner most of /proc.
   */
  since?: number
}

/**
 * A process's start time in clock ticks since boot (/proc/<pid>/stat's 22nd field), read at once
 * (a few bytes of the kernel's, no memory of the process read); undefined when it cannot be read.
 * Read right after the spawn: the child is not reaped before the event loop runs again.
 */
export function startTicks(pid: number | 'self' | undefined): number | undefined {
  if (pid === undefined) return undefined
  try {
    const ticks = statFields(readFileSync(`/proc/${pid}/stat`, 'latin1')).startTicks
    return Number.isFinite(ticks) ? ticks : undefined
  } catch {
    return undefined
  }
}

/**
 * The fields of a /proc/<pid>/stat line that the hunt reads: pid (comm) state ppid pgrp ...
 * starttime (the 22nd field). comm may hold spaces and parentheses, so it reads from the last ')'.
 */
export function statFields(stat: string): { state: string; group: number; startTicks: number } {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return { state: fields[0] ?? '', group: Number(fields[2]), startTicks: Number(fields[19]) }
}

/** A /proc/<pid>/stat line's bytes at most (52 numeric fields and a 16-byte comm fit many times). */
const STAT_MAX = 4096
const statBuffer = Buffer.allocUnsafe(STAT_MAX)

/**
 * A /proc/<pid>/stat line, read at once into one small buffer: a pass of /proc reads one per
 * process, and `readFile` gave each a 64 KiB buffer (the file's size reads 0) and four trips
 * through the thread pool. Measured on 69 processes: 1-1.6 ms, against 9-18 ms (and about ten
 * times the CPU) for the promises' readFile. Undefined when it cannot be read, as readProc.
 */
function readStat(pid: string, unsure: () => void): string | undefined {
  let fd: number | undefined
  try {
    fd = openSync(`/proc/${pid}/stat`, 'r')
    const n = readSync(fd, statBuffer, 0, STAT_MAX, 0)
    return statBuffer.toString('latin1', 0, n)
  } catch (error) {
    if (SHORT.has((error as NodeJS.ErrnoException).code ?? '')) unsure()
    return undefined
  } finally {
    if (fd !== undefined) closeSync(fd)
  }
}

/** The process group of a live process (a zombie is dead: it only waits to be reaped), and when it started. */
function statOf(
  pid: string,
  unsure: () => void
): { group: number; startTicks: number } | undefined {
  const stat = readStat(pid, unsure)
  if (!stat) return undefined
  const { state, group, startTicks } = statFields(stat)
  if (state === 'Z' || state === 'X') return undefined
  return { group, startTicks }
}

/** Seconds since boot: what a process's start time counts from. */
function uptimeS(): number | undefined {
  try {
    return Number(readFileSync('/proc/uptime', 'latin1').split(' ')[0])
  } catch {
    return undefined
  }
}

/** The pids /proc lists (read at once, as every /proc file here), this process aside. */
function procPids(): string[] {
  try {
    return readdirSync('/proc').filter(n => /^\d+$/.test(n) && Number(n) !== process.pid)
  } catch {
    return []
  }
}

function needleOf(t: HuntTarget): Buffer | undefined {
  const name = t.variable ?? 'FLEET_WORKER_RUN'
  if (t.marker) return Buffer.from(`\0${name}=${t.marker}\0`)
  if (t.prefix) return Buffer.from(`\0${name}=${t.prefix}`)
  return undefined
}

/**
 * Live processes (this one aside) in the group or carrying the marker, in one pass of /proc.
 * `unsure`: some process's files could not be read for another reason than its end, so a pass
 * that found nothing proves nothing. The pass reads each file at once, one open at a time, and
 * awaits nothing but the rare environment read again (environOf): a process caught inside exec.
 */
export async function findStrays(t: HuntTarget): Promise<{ pids: number[]; unsure: boolean }> {
  const needle = needleOf(t)
  let unsure = false
  const doubt = () => (unsure = true)
  const now = uptimeS()
  const pids: number[] = []
  const waits: Promise<void>[] = []
  for (const name of procPids()) {
    const stat = statOf(name, doubt)
    if (stat === undefined) continue
    if (t.group !== undefined && stat.group === t.group) {
      pids.push(Number(name))
      continue
    }
    // No marker sought, or older than the child: not its descendant (NaN, unreadable, is read).
    if (!needle || (t.since !== undefined && stat.startTicks < t.since)) continue
    const young = now === undefined || now - stat.startTicks / TICKS_PER_S < YOUNG_MS / 1000
    const marked = (env: Buffer | undefined) => {
      if (env && Buffer.concat([Buffer.from('\0'), env]).includes(needle)) pids.push(Number(name))
    }
    const env = readNow(`/proc/${name}/environ`, doubt)
    if (env === undefined || env.length > 0) marked(env)
    else waits.push(environOf(name, doubt, young).then(marked))
  }
  await Promise.all(waits)
  return { pids, unsure }
}

function kill(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH')
      console.error(`could not kill stray process ${pid}:`, error)
  }
}

/**
 * Kills the group and the marked processes, and looks again, until a round finds nothing: a
 * process found while it forked has a child the next round sees, and a killed one is listed until
 * it is next scheduled. Gives up after `limitMs` (saying so on stderr) rather than hang a run on a
 * process it may not kill. Returns how many distinct processes it killed.
 */
export async function huntStrays(t: HuntTarget, limitMs = 10_000): Promise<number> {
  const end = Date.now() + limitMs
  const killed = new Set<number>()
  for (;;) {
    if (t.group !== undefined) signalGroup(t.group, 'SIGKILL')
    const { pids, unsure } = await findStrays(t)
    if (pids.length === 0 && !unsure) return killed.size
    for (const pid of pids) {
      kill(pid)
      killed.add(pid)
    }
    if (Date.now() > end) {
      console.error(
        pids.length > 0
          ? `stray processes still alive after ${limitMs} ms: ${pids.join(', ')}`
          : `could not read /proc to the end for ${limitMs} ms: strays may be left`
      )
      return killed.size
    }
    await sleep(20)
  }
}
