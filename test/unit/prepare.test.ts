// The workers' preparation (src/run/prepare.ts) lets the fleet's clone run beside the slow part of
// it (the cage's preflight, the worker binary's probe): `beside` starts before that part, and
// when that part fails, what `beside` began is let finish before the failure is thrown. And the
// binary's version is read where its workers run it (worker/install.ts): one start of it a run.
import { existsSync } from 'node:fs'
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { parseConfig } from '../../src/config.js'
import type { RunContext } from '../../src/context.js'
import { InputError } from '../../src/errors.js'
import type { Io } from '../../src/io.js'
import { Preparation } from '../../src/run/prepare.js'
import { CLAUDE_CODE_VERSION, resolveClaude, versionIn } from '../../src/worker/install.js'
import { inputsEnv } from '../support/unit.js'

let dir: string
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'fleet-prepare-'))
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

const io: Io = {
  info: () => undefined,
  warning: () => undefined,
  setSecret: () => undefined,
  setOutput: () => undefined,
  group: (_name, fn) => fn(),
  report: () => Promise.resolve()
}

/** A run in isolation: process (no preflight) whose workers run `claude`, with or without a key. */
function preparation(claude: string, key: { apiKey?: string } = { apiKey: 'sk-test' }) {
  const ctx: RunContext = {
    eventName: 'workflow_dispatch',
    payload: {},
    owner: 'acme',
    repo: 'widgets',
    // No git repository here: the remote is the server's URL for the repository.
    workspace: dir,
    serverUrl: 'https://git.example',
    apiUrl: 'https://api.example',
    runnerTemp: dir
  }
  const config = parseConfig(
    inputsEnv({ tasks: 'one', isolation: 'process', 'claude-path': claude })
  )
  return new Preparation({ config, ctx, io, env: { PATH: process.env.PATH }, ...key })
}

describe('Preparation.workers(beside)', () => {
  it('starts `beside` with the remote before the worker binary is probed, and both run at once', async () => {
    // The probe answers only once `beside` has run: run one after the other, it would never end.
    const mark = path.join(dir, 'beside-ran')
    const claude = path.join(dir, 'claude')
    await writeFile(
      claude,
      `#!/bin/sh\nn=0\nwhile [ ! -e '${mark}' ] && [ $n -lt 500 ]; do sleep 0.01; n=$((n+1)); done\n[ -e '${mark}' ] || exit 9\necho '${CLAUDE_CODE_VERSION} (Claude Code)'\n`
    )
    await chmod(claude, 0o755)
    let remote: string | undefined
    const setup = await preparation(claude).workers(async url => {
      remote = url
      await writeFile(mark, '')
    })
    expect(remote).toBe('https://git.example/acme/widgets.git')
    expect(setup.remoteUrl).toBe(remote)
    expect(setup.claude).toBe(claude)
  })

  it('lets what `beside` began finish before it throws the preparation failure', async () => {
    let settled = false
    const failed = await preparation(path.join(dir, 'no-such-claude'))
      .workers(async () => {
        await new Promise(resolve => setTimeout(resolve, 200))
        settled = true
        throw new Error('the clone failed too')
      })
      .catch((error: unknown) => error)
    // The preparation's own failure, not the clone's, and only once the clone had ended.
    expect(failed).toBeInstanceOf(InputError)
    expect((failed as InputError).message).toContain('claude-path')
    expect(settled).toBe(true)
  })

  it('a clone that fails while the probe still runs leaves no rejection unhandled', async () => {
    // The probe answers 300 ms late; the clone fails at once. Its failure is the caller's, met
    // where the fleet awaits the clone: nothing of it may reach the process as unhandled (Node
    // would end the run with no outcome reported).
    const claude = path.join(dir, 'claude')
    await writeFile(claude, `#!/bin/sh\nsleep 0.3\necho '${CLAUDE_CODE_VERSION} (Claude Code)'\n`)
    await chmod(claude, 0o755)
    const unhandled: unknown[] = []
    const note = (reason: unknown) => unhandled.push(reason)
    process.on('unhandledRejection', note)
    try {
      let clone: Promise<never> | undefined
      const setup = await preparation(claude).workers(() => {
        clone = Promise.reject(new Error('the clone failed'))
        return clone
      })
      await new Promise(resolve => setTimeout(resolve, 20))
      expect(unhandled).toEqual([])
      expect(setup.claude).toBe(claude)
      await expect(clone).rejects.toThrow('the clone failed')
    } finally {
      process.off('unhandledRejection', note)
    }
  })

  it('begins nothing beside when the model key is missing', async () => {
    let called = false
    await expect(
      preparation(path.join(dir, 'no-such-claude'), {}).workers(() => {
        called = true
        return Promise.resolve()
      })
    ).rejects.toThrow(/no model key/)
    expect(called).toBe(false)
  })
})

describe('resolveClaude(version)', () => {
  it('reads the version where the workers run the binary, never starting it on the runner', async () => {
    // The sandbox's check starts it in a cage anyway: a start here too would be one more per run.
    const ran = path.join(dir, 'ran-on-runner')
    const claude = path.join(dir, 'claude')
    await writeFile(claude, `#!/bin/sh\n: > '${ran}'\necho '9.9.9 (Claude Code)'\n`)
    await chmod(claude, 0o755)
    const asked: string[] = []
    const logged: string[] = []
    const resolved = await resolveClaude({
      claudePath: claude,
      host: {},
      installDir: dir,
      log: m => logged.push(m),
      version: file => {
        asked.push(file)
        return Promise.resolve(versionIn(`${CLAUDE_CODE_VERSION} (Claude Code)\n`))
      }
    })
    expect(resolved).toEqual({ file: claude, version: CLAUDE_CODE_VERSION })
    expect(asked).toEqual([claude])
    expect(existsSync(ran)).toBe(false)
    expect(logged).toEqual([])
    // Without a probe of its own, it is started here, and its answer read.
    const here = await resolveClaude({
      claudePath: claude,
      host: {},
      installDir: dir,
      log: m => logged.push(m)
    })
    expect(here.version).toBe('9.9.9')
    expect(existsSync(ran)).toBe(true)
  })
})
