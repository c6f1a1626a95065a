// The worker's bounds, retries and failure sentences, proven through dist/ and the real claude CLI.
import { execFile } from 'node:child_process'
import { readdir, readFile, readlink } from 'node:fs/promises'
import path from 'node:path'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { useStack } from '../support/scenario.js'
import type { RunActionResult } from '../../demo/run-action.js'
import { byId, OWNER, REPO } from '../../demo/stack.js'
import { task, writeThenDone } from './faults-support.js'

const exec = promisify(execFile)

/** The run's own directory under RUNNER_TEMP: cages, transcripts, worktrees. */
async function fleetDir(run: RunActionResult): Promise<string> {
  const base = path.join(run.runnerTemp, 'fleet-worker')
  const entries = (await readdir(base)).filter(e => /^\d+-\d+$/.test(e))
  if (entries.length !== 1 || !entries[0])
    throw new Error(`expected one run dir in ${base}: ${entries.join(', ')}`)
  return path.join(base, entries[0])
}

/** Live processes whose command line mentions `needle` (the ps line itself excluded). */
async function processesMentioning(needle: string): Promise<string[]> {
  const { stdout } = await exec('ps', ['-eo', 'pid,args'])
  return stdout.split('\n').filter(line => line.includes(needle) && !/\bps -eo\b/.test(line))
}

/** `/proc/<pid>/stat` of a process still running (zombies count as gone), else undefined. */
async function running(pid: number): Promise<string | undefined> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => undefined)
  return stat && !/^\d+ \(.*\) Z /.test(stat) ? stat : undefined
}

const STUCK =
  'readlink /proc/self/ns/pid > "$HOME/pidns"; tail -f /dev/null & echo $! > "$HOME/child.pid"; (setsid tail -f /dev/null & echo $! > "$HOME/daemon.pid"); wait'

/** Host processes in the given PID namespace (`pid:[inode]`). */
async function inNamespace(ns: string): Promise<number[]> {
  const pids = (await readdir('/proc')).filter(n => /^\d+$/.test(n))
  const found = await Promise.all(
    pids.map(async p =>
      (await readlink(`/proc/${p}/ns/pid`).catch(() => '')) === ns ? Number(p) : 0
    )
  )
  return found.filter(p => p > 0)
}

describe('per-worker timeout', () => {
  const stack = useStack()

  it('stops a worker whose endpoint never answers, and one stuck in a tool, with nothing left behind', async () => {
    const tasks = [
      task('hang', { steps: writeThenDone('never.txt'), hang: true }),
      // The tool leaves a child in the worker's process group and a daemon in a session of its
      // own (out of the group's reach), and records both pids so the test can check they died.
      task('stuck', {
        steps: [{ tool: 'Bash', input: { command: STUCK, timeout: 600_000 } }, { text: 'never' }]
      })
    ]
    const run = await stack.run({
      // 30 s: long enough for the stuck worker to reach its tool on a loaded machine (a claude
      // start there takes seconds), so the test does not race the timeout.
      inputs: { tasks: JSON.stringify(tasks), 'timeout-minutes': '0.5', 'max-parallel': '2' }
    })
    expect(run.exitCode, run.stdout).not.toBe(0)
    // Far below the CLI's own patience (a 10-minute request timeout, retries over minutes).
    expect(run.durationMs).toBeLessThan(120_000)

    const out = byId(run)
    for (const id of ['hang', 'stuck']) {
      const r = out.get(id)
      expect(r?.status, `${id}: ${r?.error}`).toBe('timed-out')
      expect(r?.error).toMatch(/timeout-minutes \(0\.5\)/)
      expect(r?.attempts).toBe(1)
      // 30 s budget, then SIGTERM and 2 s more to SIGKILL, the hunt, the commit: never minutes.
      expect(r?.['duration-ms']).toBeGreaterThanOrEqual(30_000)
      expect(r?.['duration-ms']).toBeLessThan(60_000)
    }
    expect(stack.model.requestsFor('hang').every(r => r.outcome === 'hang')).toBe(true)
    expect(stack.github.state.pulls).toEqual([])

    const dir = await fleetDir(run)
    expect(await processesMentioning(dir)).toEqual([])
    const home = path.join(dir, 'workers', 'stuck.1', 'home')
    const ns = (await readFile(path.join(home, 'pidns'), 'utf8')).trim()
    if (stack.isolation === 'sandbox') {
      // Its pids are its own namespace's: the proof is that no process is left in that namespace.
      expect(ns).not.toBe(await readlink('/proc/self/ns/pid'))
      const left = await Promise.all((await inNamespace(ns)).map(running))
      expect(left.filter(Boolean)).toEqual([])
      return
    }
    for (const file of ['child.pid', 'daemon.pid']) {
      const pid = Number(await readFile(path.join(home, file), 'utf8'))
      expect(pid).toBeGreaterThan(0)
      expect(await running(pid), `the worker's ${file} outlived it`).toBeUndefined()
    }
  })
})

describe('the run-wide deadline', () => {
  const stack = useStack()

  it('lets a started task finish, starts no task after it, and does not fail the step for that', async () => {
    // One at a time; each task takes over 32 s once started (two answers, each 16 s after its
    // request), the deadline is 30 s: whenever the first task starts before it (start-up under load
    // takes seconds), it ends after it, so the next one is decided past the deadline.
    const slow = { delayMs: 16_000 }
    const tasks = ['first', 'second', 'third'].map(id =>
      task(id, { steps: writeThenDone(`${id}.txt`), ...slow })
    )
    const run = await stack.run({
      inputs: { tasks: JSON.stringify(tasks), 'max-parallel': '1', 'deadline-minutes': '0.5' }
    })
    expect(run.exitCode, run.stdout).toBe(0)

    const out = byId(run)
    expect(out.get('first')?.status).toBe('pr-opened')
    for (const id of ['second', 'third']) {
      expect(out.get(id)?.status).toBe('not-started')
      expect(out.get(id)?.error).toMatch(/deadline \(timeouts: deadline\) before this task started/)
      expect(out.get(id)?.attempts).toBe(0)
      expect(stack.model.requestsFor(id)).toEqual([])
    }
    expect(
      Object.keys(await stack.git.branches(`${OWNER}/${REPO}`)).filter(b => b.startsWith('fleet/'))
    ).toEqual(['fleet/first'])
    expect(run.outputs.succeeded).toBe('1')
    expect(run.outputs.failed).toBe('0')
  })
})

describe('retries and failure sentences', () => {
  const stack = useStack()

  it('runs a worker again only after overload the gateway and the CLI could not absorb, and stops a worker at its max-turns', async () => {
    const tasks = [
      task('overloaded', {
        steps: writeThenDone('overloaded.txt'),
        faults: [{ status: 529, times: 12 }]
      }),
      task(
        'long',
        {
          steps: [
            { tool: 'Write', input: { file_path: 'partial.txt', content: 'half done\n' } },
            { tool: 'Bash', input: { command: 'echo step two' } },
            { tool: 'Bash', input: { command: 'echo step three' } },
            { text: 'Finished.' }
          ]
        },
        { 'max-turns': 2 }
      )
    ]
    const run = await stack.run({ inputs: { tasks: JSON.stringify(tasks), 'max-attempts': '3' } })
    expect(run.exitCode, run.stdout).not.toBe(0) // 'long' failed
    const out = byId(run)

    // The gateway tries each request max-attempts (3) times; the CLI sends it
    // CLAUDE_CODE_MAX_RETRIES=2 more times, so the first worker meets 9 of the 529s and gives up;
    // the action runs the worker again, whose first request's gateway retries absorb the last 3.
    const overloaded = out.get('overloaded')
    const requests = stack.model.requestsFor('overloaded')
    expect(requests.filter(r => r.outcome === 'fault').map(r => r.status)).toEqual(
      Array(12).fill(529)
    )
    expect(overloaded?.status, run.stdout).toBe('pr-opened')
    expect(overloaded?.attempts).toBe(2)
    expect(run.stdout).toMatch(
      /\[overloaded\] attempt 1 failed \(the model endpoint was overloaded \(529\)\); retrying/
    )
    expect(overloaded?.usage).toEqual(stack.model.usageFor('overloaded'))
    expect(overloaded?.usage.input_tokens).toBeGreaterThan(0)
    expect(await stack.git.readFile(`${OWNER}/${REPO}`, 'fleet/overloaded', 'overloaded.txt')).toBe(
      'overloaded.txt\n'
    )

    const long = out.get('long')
    expect(long?.status).toBe('failed')
    expect(long?.attempts).toBe(1)
    expect(long?.error).toMatch(/all 2 turns \(max-turns\)/)
    expect(long?.error).toMatch(/its partial work is on branch fleet\/long/)
    expect(await stack.git.readFile(`${OWNER}/${REPO}`, 'fleet/long', 'partial.txt')).toBe(
      'half done\n'
    )
    expect(stack.github.state.pulls.map(p => p.pull.head)).toEqual(['fleet/overloaded'])
    // Two answered turns, and never the third step.
    expect(
      stack.model
        .requestsFor('long')
        .filter(r => r.outcome === 'reply')
        .map(r => r.step)
    ).toEqual([0, 1])
  })

  it('fails at once, in one attempt, when the endpoint rejects the key (401)', async () => {
    const run = await stack.run({
      inputs: {
        tasks: JSON.stringify([task('badkey', { steps: writeThenDone('x.txt') })]),
        'api-key': 'sk-not-the-right-key-0000'
      }
    })
    expect(run.exitCode).not.toBe(0)
    const r = byId(run).get('badkey')
    expect(r?.status).toBe('failed')
    expect(r?.error).toMatch(/rejected the key \(401\)/)
    expect(r?.attempts).toBe(1)

    // What reached the server: only the CLI's own tries of one worker run (at most
    // CLAUDE_CODE_MAX_RETRIES + 1), all refused; and one transcript, so one worker process.
    const requests = stack.model.requestsFor('badkey')
    expect(requests.length).toBeGreaterThanOrEqual(1)
    expect(requests.length).toBeLessThanOrEqual(3)
    expect(requests.every(q => q.outcome === 'unauthorized' && q.status === 401)).toBe(true)
    const transcripts = await readdir(path.join(await fleetDir(run), 'transcripts'))
    expect(transcripts.filter(f => f.startsWith('badkey.')).sort()).toEqual([
      'badkey.1.jsonl',
      'badkey.1.requests.jsonl'
    ])
  })
})
