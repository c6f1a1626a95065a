// The worker binary's check in a cage, begun beside the sandbox's preflight (cage/isolation.ts,
// prepareIsolation's `binary`): its version is the one the run then reads, its failure is met
// where the version is read (not as the preflight's), and nothing it started outlives it.
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { sandboxSupport } from '../../demo/sandbox.js'
import { type IsolationOptions, prepareIsolation } from '../../src/cage/isolation.js'
import type { Claude, VersionProbe } from '../../src/worker/install.js'

const support = await sandboxSupport()

const config = { isolation: 'sandbox', allowedDomains: [] } as unknown as IsolationOptions

/** The run's side of the check: the version read through the isolation's probe, as resolveClaude does. */
const resolveOf =
  (file: string) =>
  async (version?: VersionProbe): Promise<Claude> => ({
    file,
    version: await (version as VersionProbe)(file)
  })

/** The sandbox's isolation with `binary` checked beside its preflight. */
const prepared = (binary: string) =>
  prepareIsolation(config, { host: process.env, log: () => undefined, binary })

describe.skipIf(!support.ok)("the worker binary's check begun beside the preflight", () => {
  let dir: string
  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'fleet-early-check-'))
  })
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true })
  })

  async function binary(body: string): Promise<string> {
    const file = path.join(dir, 'claude')
    await writeFile(file, `#!/bin/sh\n${body}\n`)
    await chmod(file, 0o755)
    return file
  }

  it('its version is the one the run reads: the binary is not started in a cage again', async () => {
    const file = await binary('echo "2.1.332 (Claude Code)"')
    const isolation = await prepared(file)
    // Gone now: a second check in a cage could not start it (realpath fails), the first's answer stands.
    await rm(file)
    const claude = await isolation.claude(resolveOf(file), () => undefined)
    expect(claude).toEqual({ file, version: '2.1.332' })
  }, 60_000)

  it('another binary than the one checked early is checked where the run reads its version', async () => {
    const early = await binary('echo "2.1.332 (Claude Code)"')
    const isolation = await prepared(early)
    await expect(
      isolation.claude(resolveOf(path.join(dir, 'missing')), () => undefined)
    ).rejects.toThrow(/ENOENT/)
  }, 60_000)

  it('one that does not start in the cage fails where its version is read, not the preflight', async () => {
    const file = await binary('echo "no such thing" >&2; exit 3')
    const isolation = await prepared(file)
    await expect(isolation.claude(resolveOf(file), () => undefined)).rejects.toThrow(
      /the worker binary .*claude does not start inside the sandbox \(exit 3: no such thing\)/
    )
  }, 60_000)
})
