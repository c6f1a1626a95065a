// Issue 17: src/process.ts is the one way src/ runs a command to its end.
import { describe, expect, it } from 'vitest'
import { CommandError, run, runOk } from '../../src/process.js'

describe('run', () => {
  it('gives the exit code, stdout and stderr of a command that fails', async () => {
    const r = await run('sh', ['-c', 'echo out; echo err >&2; exit 3'])
    expect(r).toEqual({ exitCode: 3, stdout: 'out\n', stderr: 'err\n' })
  })

  it('a file that cannot start is exit 127 with the reason, not a throw', async () => {
    const r = await run('/nonexistent/fleet-tool', [])
    expect(r.exitCode).toBe(127)
    expect(r.stderr).toMatch(/ENOENT/)
  })

  it('a command past its timeout is killed: exit 1', async () => {
    const r = await run('sleep', ['5'], { timeoutMs: 100 })
    expect(r.exitCode).toBe(1)
    expect(r.stderr).toMatch(/sleep 5/)
  })

  it('the child gets the environment given and nothing from process.env', async () => {
    process.env.FLEET_PROCESS_TEST_SECRET = 'x'
    try {
      const r = await run('/bin/sh', ['-c', 'env'], { env: { ONLY: '1' }, cwd: '/' })
      expect(r.stdout).toMatch(/^ONLY=1$/m)
      expect(r.stdout).not.toMatch(/FLEET_PROCESS_TEST_SECRET/)
    } finally {
      delete process.env.FLEET_PROCESS_TEST_SECRET
    }
  })
})

describe('runOk', () => {
  it('returns the output of a command that succeeds', async () => {
    expect((await runOk('sh', ['-c', 'printf ok'])).stdout).toBe('ok')
  })

  it('throws a CommandError naming the command, its exit and the end of its stderr', async () => {
    const failing = runOk('sh', ['-c', 'echo one >&2; echo two >&2; exit 4'])
    await expect(failing).rejects.toBeInstanceOf(CommandError)
    await expect(failing).rejects.toThrow(/^sh -c .* failed \(exit 4\): one two$/)
  })
})
