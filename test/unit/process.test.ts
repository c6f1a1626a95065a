// Issues 17 and 26: src/process.ts is the one way src/ runs a command to its end.
import { existsSync, readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { CommandError, run, runChild, runOk } from '../../src/process.js'

describe('run', () => {
  it('gives the exit code, stdout and stderr of a command that fails', async () => {
    const r = await run('sh', ['-c', 'echo out; echo err >&2; exit 3'], { env: {} })
    expect(r).toMatchObject({ exitCode: 3, signal: null, timedOut: false })
    expect(r).toMatchObject({ stdout: 'out\n', stderr: 'err\n' })
    expect(r.cancelled).toBeUndefined()
    expect(r.durationMs).toBeGreaterThanOrEqual(0)
  })

  it('a file that cannot start is exit 127 with the reason, not a throw', async () => {
    const r = await run('/nonexistent/fleet-tool', [], { env: {} })
    expect(r.exitCode).toBe(127)
    expect(r.startError).toMatch(/ENOENT/)
    expect(r.stderr).toMatch(/could not start: .*ENOENT/)
  })

  it('a command past its timeout is stopped with SIGTERM, and the result names it', async () => {
    const r = await run('sleep', ['5'], { timeoutMs: 100, env: {} })
    expect(r).toMatchObject({ timedOut: true, signal: 'SIGTERM', exitCode: 143 })
    expect(r.stderr).toMatch(/sleep 5: stopped at its timeout/)
  })

  it('the signal that ended a command is its own field, not exit 1', async () => {
    const r = await run('sh', ['-c', 'kill -SEGV $$'], { env: {} })
    expect(r).toMatchObject({ signal: 'SIGSEGV', exitCode: 139, timedOut: false })
    expect(r.stderr).toMatch(/killed by SIGSEGV/)
  })

  it('the child gets the environment given and nothing from process.env', async () => {
    process.env.FLEET_PROCESS_TEST_SECRET = 'x'
    try {
      const r = await run('/bin/sh', ['-c', 'env'], { env: { ONLY: '1' }, cwd: '/' })
      expect(r.stdout).toMatch(/^ONLY=1$/m)
      expect(r.stdout).not.toMatch(/FLEET_PROCESS_TEST_SECRET/)
      // and the action's own marker, by which its strays are found
      expect(r.stdout).toMatch(/^FLEET_WORKER_RUN=\d+-[0-9a-f]{8}\.\d+$/m)
    } finally {
      delete process.env.FLEET_PROCESS_TEST_SECRET
    }
  })
})

describe('runOk', () => {
  it('returns the output of a command that succeeds', async () => {
    expect((await runOk('sh', ['-c', 'printf ok'], { env: {} })).stdout).toBe('ok')
  })

  it('throws a CommandError naming the command, its exit and the end of its stderr', async () => {
    const failing = runOk('sh', ['-c', 'echo one >&2; echo two >&2; exit 4'], { env: {} })
    await expect(failing).rejects.toBeInstanceOf(CommandError)
    await expect(failing).rejects.toThrow(/^sh -c .* failed \(exit 4\): one two$/)
  })
})

describe('below: a task’s own command', () => {
  // Its nice (field 19 of its stat: the 17th from the state), and its session's group once lowered
  // (or after five seconds); then the same from a child that made a session of its own.
  const LOOK = [
    'read -r st </proc/self/stat; set -- ${st##*) }; echo "NICE=${17}"',
    'if [ -e /proc/self/autogroup ]; then',
    '  t=0; until grep -q "nice 19" /proc/self/autogroup || [ $t -ge 50 ]; do t=$((t+1)); sleep 0.1; done',
    '  echo "GROUP=$(cat /proc/self/autogroup)"',
    'fi'
  ].join('\n')
  const grouped = existsSync('/proc/self/autogroup')
  const own = () => (grouped ? readFileSync('/proc/self/autogroup', 'utf8') : '')

  it('runs at nice 19, its session’s group and its children’s lowered, the action’s as it was', async () => {
    const before = own()
    const script = `${LOOK}\nsetsid sh -c '${LOOK.replace(/'/g, `'\\''`)}'`
    const r = await runChild('sh', ['-c', script], {
      env: { PATH: process.env.PATH ?? '' },
      below: true
    })
    expect(r.exitCode, r.stderr).toBe(0)
    expect(r.stdout.match(/^NICE=19$/gm)).toHaveLength(2)
    if (!grouped) return
    const groups = r.stdout.match(/^GROUP=.*$/gm) ?? []
    expect(groups).toHaveLength(2)
    expect(
      groups.every(g => /^GROUP=\/autogroup-\d+ nice 19$/.test(g)),
      groups.join('\n')
    ).toBe(true)
    // Two sessions: two groups.
    expect(new Set(groups).size).toBe(2)
    expect(own()).toBe(before)
  })

  it('is the command itself: its arguments, exit status and output pass through', async () => {
    const r = await runChild('sh', ['-c', 'echo "[$1]"; exit 7', 'x', 'a b'], {
      env: {},
      below: true
    })
    expect(r).toMatchObject({ exitCode: 7, stdout: '[a b]\n' })
  })
})
