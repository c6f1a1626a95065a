// Shared pieces of the fault and abuse scenarios (faults*.test.ts, abuse.test.ts): scripted tasks,
// the orphan check, and waiting on what the servers have seen.
import { execFile } from 'node:child_process'
import { randomInt } from 'node:crypto'
import { existsSync } from 'node:fs'
import { readdir, readFile } from 'node:fs/promises'
import path from 'node:path'
import { promisify } from 'node:util'
import pLimit from 'p-limit'
import { expect } from 'vitest'
import { type Script, script, type Step } from '../../demo/model-server.js'
import type { RunActionResult } from '../../demo/run-action.js'

const exec = promisify(execFile)

/**
 * A `sleep` no other test (or engineer) on this machine runs: 300.<random digits> seconds. The
 * orphan check looks for its command line, and test files run two at a time.
 */
export const uniqueSleep = () => `sleep 300.${randomInt(100_000, 999_999)}`

/** A task playing `s` under the model key `id`. */
export const task = (id: string, s: Omit<Script, 'key'>, extra: object = {}) => ({
  id,
  prompt: `Task ${id}.\n${script({ key: id, ...s })}`,
  ...extra
})

export const write = (file: string, content = `${file}\n`): Step => ({
  tool: 'Write',
  input: { file_path: file, content }
})

export const bash = (command: string): Step => ({ tool: 'Bash', input: { command } })

export const writeThenDone = (file: string): Step[] => [write(file), { text: `Wrote ${file}.` }]

/** Live processes whose command line mentions `needle` (the ps line itself excluded). */
export async function processesMentioning(needle: string): Promise<string[]> {
  const { stdout } = await exec('ps', ['-eo', 'pid,args'])
  return stdout.split('\n').filter(line => line.includes(needle) && !/\bps -eo\b/.test(line))
}

/**
 * Live processes the run started, found as the action's stray hunt finds them: by the marker
 * (`FLEET_WORKER_RUN`) every child of the action carries and every descendant inherits, even a
 * daemon that left its group with setsid and a double fork. The run's own RUNNER_TEMP in the same
 * environment (its HOME, TMPDIR or config dir) tells this run's apart from another suite's.
 */
export async function markedSurvivors(runnerTemp: string): Promise<string[]> {
  const pids = (await readdir('/proc')).filter(name => /^\d+$/.test(name))
  // A few at a time: all of /proc at once can run out of descriptors (EMFILE), and a process
  // whose environment could not be read would look unmarked.
  const limit = pLimit(16)
  const found = await Promise.all(
    pids.map(pid =>
      limit(async () => {
        const environ = await readFile(`/proc/${pid}/environ`, 'latin1').catch(() => '')
        if (!environ.includes('FLEET_WORKER_RUN=') || !environ.includes(runnerTemp)) return ''
        const stat = await readFile(`/proc/${pid}/stat`, 'latin1').catch(() => '')
        // A zombie is dead, only waiting to be reaped.
        const state = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0]
        if (!stat || state === 'Z' || state === 'X') return ''
        const cmdline = await readFile(`/proc/${pid}/cmdline`, 'latin1').catch(() => '')
        return `${pid} ${cmdline.replaceAll('\0', ' ').trim()}`
      })
    )
  )
  return found.filter(Boolean)
}

/**
 * No process of the run is left: none carries the run's stray marker (markedSurvivors), and none
 * mentions RUNNER_TEMP or a needle on its command line (every worker's argv names its settings
 * file under RUNNER_TEMP).
 */
export async function expectNoOrphans(run: RunActionResult, ...needles: string[]): Promise<void> {
  await expect
    .poll(() => markedSurvivors(run.runnerTemp), {
      message: 'processes left carrying the run marker',
      timeout: 30_000,
      interval: 200
    })
    .toEqual([])
  for (const needle of [run.runnerTemp, ...needles]) {
    // A SIGKILL is delivered when the process is next scheduled, so on a busy machine a killed
    // process may still be listed for a moment; an orphan (a `sleep 300`, a worker) stays for good.
    await expect
      .poll(() => processesMentioning(needle), {
        message: `processes left mentioning ${needle}`,
        timeout: 30_000,
        interval: 200
      })
      .toEqual([])
  }
}

/** The run's own directory under RUNNER_TEMP: cages, transcripts, worktrees, preserved bundles. */
export async function fleetDir(run: RunActionResult): Promise<string> {
  const base = path.join(run.runnerTemp, 'fleet-worker')
  const entries = (await readdir(base)).filter(e => /^\d+-\d+$/.test(e))
  if (entries.length !== 1 || !entries[0])
    throw new Error(`expected one run dir in ${base}: ${entries.join(', ')}`)
  return path.join(base, entries[0])
}

/**
 * What a run's sandbox cages left of their clones under its `workers` dir: a clone moved aside
 * for its teardown (`<cage>.fleet-sbx-*`), or one still in its cage dir. None once every teardown
 * ended. Also how many cage dirs were read, so a check cannot pass on an empty dir.
 */
export async function clonesLeft(workers: string): Promise<{ cages: number; left: string[] }> {
  const entries = await readdir(workers)
  const left = entries.filter(
    c => c.includes('fleet-sbx-') || existsSync(path.join(workers, c, 'git'))
  )
  return { cages: entries.length, left }
}

export async function waitFor(what: string, ok: () => boolean, timeoutMs = 180_000): Promise<void> {
  const end = Date.now() + timeoutMs
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await new Promise(resolve => setTimeout(resolve, 20))
  }
}

/**
 * When each entry of a growing list (a mock's request log) was first seen, sampled every 20 ms:
 * the mocks do not stamp their requests, and a wait of seconds needs no finer clock.
 */
export function arrivals(list: readonly unknown[]): { times: number[]; stop: () => void } {
  const times: number[] = []
  const timer = setInterval(() => {
    while (times.length < list.length) times.push(Date.now())
  }, 20)
  return { times, stop: () => clearInterval(timer) }
}

async function environOf(pid: string): Promise<string> {
  return `\0${await readFile(`/proc/${pid}/environ`, 'latin1').catch(() => '')}`
}

/** Pids whose command line contains `args` and whose environment contains `env` (Linux /proc). */
export async function pidsWith(args: string, env: string): Promise<number[]> {
  const pids = (await readdir('/proc')).filter(n => /^\d+$/.test(n))
  const found: number[] = []
  for (const pid of pids) {
    const cmdline = (await readFile(`/proc/${pid}/cmdline`, 'latin1').catch(() => '')).replace(
      /\0/g,
      ' '
    )
    if (cmdline.includes(args) && (await environOf(pid)).includes(env)) found.push(Number(pid))
  }
  return found
}

/**
 * Signals the action running in `workspace`, as the runner does on a cancel: the node process
 * with that GITHUB_WORKSPACE (workers never get the variable; the action's git children are git).
 */
export async function signalAction(workspace: string, signal: NodeJS.Signals): Promise<void> {
  const pids = await pidsWith(process.execPath, `\0GITHUB_WORKSPACE=${workspace}\0`)
  if (pids.length !== 1)
    throw new Error(`expected one action process in ${workspace}: ${pids.join(', ')}`)
  process.kill(pids[0] ?? 0, signal)
}

export async function waitForAsync(
  what: string,
  ok: () => Promise<boolean>,
  timeoutMs = 180_000
): Promise<void> {
  const end = Date.now() + timeoutMs
  while (!(await ok())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await new Promise(resolve => setTimeout(resolve, 50))
  }
}
