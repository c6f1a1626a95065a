// The spawner (src/process/spawner.ts): once it is ready, run() starts its commands through it,
// and a command ends exactly as it would have started by the action itself.
import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type ChildOptions, exitCodeOf, huntAllChildren, run, runChild } from '../../src/process.js'
import { SPAWNER_DELAY_MS } from '../../src/process/spawner.js'

/** The pid of the process that started a short command: the spawner, once it is ready. */
async function starter(): Promise<number> {
  return Number((await run('sh', ['-c', 'echo $PPID'], { env: {} })).stdout.trim())
}

/** Waits until run() goes through the spawner; its pid. */
async function spawnerPid(): Promise<number> {
  for (let i = 0; i < 300; i++) {
    const pid = await starter()
    if (pid !== process.pid) return pid
    await new Promise(resolve => setTimeout(resolve, 20))
  }
  throw new Error('run() never went through the spawner')
}

const environOf = (pid: number) =>
  readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').filter(Boolean)

describe('the spawner', () => {
  let pid = 0
  let waited = 0
  beforeAll(async () => {
    // The first command of this process: the action starts it itself, and the spawner's start
    // is set for a second later.
    const first = Date.now()
    expect(await starter()).toBe(process.pid)
    pid = await spawnerPid()
    waited = Date.now() - first
  })
  afterAll(() => huntAllChildren())

  it("starts a second after the run's first short command, not with it", () => {
    expect(waited).toBeGreaterThanOrEqual(SPAWNER_DELAY_MS)
  })

  it('is a process of its own whose environment holds PATH and its stray marker alone', () => {
    expect(pid).not.toBe(process.pid)
    const names = environOf(pid).map(v => v.slice(0, v.indexOf('=')))
    // and node's own two, naming the channel to the action
    const node = ['NODE_CHANNEL_FD', 'NODE_CHANNEL_SERIALIZATION_MODE']
    expect(names.sort()).toEqual(['FLEET_WORKER_RUN', ...node, 'PATH'])
  })

  it('ends each command as the action would have: same code, signal, output, start error', async () => {
    const cases: [string, string[], Partial<ChildOptions>][] = [
      ['sh', ['-c', 'echo out; echo err >&2; exit 3'], {}],
      ['sh', ['-c', 'kill -SEGV $$'], {}],
      ['/nonexistent/fleet-tool', [], {}],
      ['sh', ['-c', 'cat; printf é%.0s 1 2 3 4 5'], { stdin: 'in\n', maxOutput: 4 }],
      ['sh', ['-c', 'pwd; env | sort'], { cwd: '/tmp', env: { ONLY: '1' } }]
    ]
    for (const [file, args, opts] of cases) {
      const through = await run(file, args, {
        env: opts.env ?? {},
        cwd: opts.cwd,
        stdin: opts.stdin,
        maxBuffer: opts.maxOutput
      })
      const direct = await runChild(file, args, {
        env: opts.env ?? {},
        cwd: opts.cwd,
        stdin: opts.stdin,
        maxOutput: opts.maxOutput ?? 64 * 1024 * 1024,
        hunt: false
      })
      const same = (r: typeof direct) => ({
        signal: r.signal,
        timedOut: r.timedOut,
        startError: r.startError,
        // Each child's marker is its own.
        stdout: r.stdout.replace(/FLEET_WORKER_RUN=\S+/, 'FLEET_WORKER_RUN=…')
      })
      const command = `${file} ${args.join(' ')}`
      expect(same(through), command).toEqual(same(direct))
      // run() words an end that has no exit code of its own (a signal, no start) on stderr.
      expect(through.exitCode, command).toBe(exitCodeOf(direct))
      expect(through.stderr.startsWith(direct.stderr), command).toBe(true)
    }
    expect(await starter()).toBe(pid)
  })

  it('hands a command no descriptor the action would not (not the channel to the action)', async () => {
    const list = ['-c', 'ls /proc/$$/fd']
    const through = await run('sh', list, { env: {} })
    const direct = await runChild('sh', list, { env: {}, hunt: false })
    expect(through.stdout.split('\n')).toContain('2')
    expect(through.stdout).toBe(direct.stdout)
  })

  it("stops a command at its timeout, and at the run's cancel, from the action", async () => {
    const timed = await run('sleep', ['5'], { timeoutMs: 100, env: {} })
    expect(timed).toMatchObject({ timedOut: true, signal: 'SIGTERM', exitCode: 143 })
    const stop = new AbortController()
    setTimeout(() => stop.abort('the run was cancelled'), 100)
    const cancelled = await run('sleep', ['5'], { env: {}, signal: stop.signal })
    expect(cancelled).toMatchObject({ cancelled: 'the run was cancelled', signal: 'SIGTERM' })
    expect(cancelled.durationMs).toBeLessThan(4000)
    // A stop that comes before the spawner has said the pid still reaches the command.
    const early = new AbortController()
    const racing = run('sleep', ['5'], { env: {}, signal: early.signal })
    early.abort('stopped at once')
    expect(await racing).toMatchObject({ cancelled: 'stopped at once', signal: 'SIGTERM' })
  })
})

describe('a spawner that ends', () => {
  afterAll(() => huntAllChildren())

  it('ends the commands it had not answered as killed, and the next is started anyway', async () => {
    const pid = await spawnerPid()
    const file = `/tmp/fleet-spawner-${process.pid}`
    const running = run('sh', ['-c', `echo $$ > ${file}; exec sleep 30`], { env: {} })
    for (let i = 0; i < 200 && !readable(file); i++) await new Promise(r => setTimeout(r, 10))
    const sleeper = Number(readFileSync(file, 'utf8'))
    process.kill(pid, 'SIGKILL')
    const r = await running
    expect(r).toMatchObject({ signal: 'SIGKILL', exitCode: 137 })
    expect(r.stderr).toMatch(/the action's spawner ended \(SIGKILL\) before the command did/)
    // Its group was killed from the action.
    await new Promise(resolve => setTimeout(resolve, 100))
    expect(alive(sleeper)).toBe(false)
    expect((await run('sh', ['-c', 'echo ok'], { env: {} })).stdout).toBe('ok\n')
    // A new one takes over.
    const next = await spawnerPid()
    expect(next).not.toBe(pid)
  })

  it("is not counted among what the run left running by the action's final hunt", async () => {
    const pid = await spawnerPid()
    expect(await huntAllChildren()).toBe(0)
    expect(alive(pid)).toBe(false)
  })
})

function readable(file: string): boolean {
  try {
    return readFileSync(file, 'utf8').trim() !== ''
  } catch {
    return false
  }
}

/** Alive and not a zombie. */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1')
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z'
  } catch {
    return false
  }
}
