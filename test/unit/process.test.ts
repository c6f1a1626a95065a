// Issues 17 and 26: src/process.ts is the one way src/ runs a command to its end.
import { describe, expect, it } from 'vitest'
import { CommandError, run, runOk } from '../../src/process.js'

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
