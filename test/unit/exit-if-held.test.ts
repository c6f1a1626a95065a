// The action's last step through dist/ (main.ts exitIfHeld): a run that left a handle open ends
// all the same, after the grace, saying what held it and keeping the step's exit code; a run that
// left nothing ends at once, saying nothing.
import { execFile } from 'node:child_process'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { describe, expect, it } from 'vitest'

const ENGINE = pathToFileURL(path.resolve('dist/engine/index.js')).href

/** node importing the engine bundle, leaking a listening server or not, then exitIfHeld(300). */
function lastStep(leak: boolean): Promise<{ code: number | null; stdout: string }> {
  const script = [
    `const { exitIfHeld } = await import(${JSON.stringify(ENGINE)})`,
    leak ? "const net = await import('node:net'); net.createServer().listen(0, '127.0.0.1')" : '',
    'process.exitCode = 3',
    'exitIfHeld(300)'
  ].join('\n')
  return new Promise(resolve => {
    execFile(process.execPath, ['--input-type=module', '-e', script], (error, stdout) => {
      resolve({ code: error ? (error.code as number) : 0, stdout })
    })
  })
}

describe('exitIfHeld, the last step of the action (dist/)', () => {
  it('ends a run that left a socket open after the grace, naming it, with the step’s code', async () => {
    const r = await lastStep(true)
    expect(r.stdout).toContain(
      '::warning::the run was over, yet TCPServerWrap kept the action running 0.3 s later: it exits now'
    )
    expect(r.code).toBe(3)
  })

  it('lets a run that left nothing end at once, saying nothing', async () => {
    const r = await lastStep(false)
    expect(r.stdout).toBe('')
    expect(r.code).toBe(3)
  })
})
