// What setup left, as the action reads it from setup's cage when the task's files are a view: two
// files written by the cage, read without following a symlink and within a size cap.
import { execFileSync } from 'node:child_process'
import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { readLeftovers, SETUP_CHECK } from '../../src/fleet/setup-check.js'

describe("setup's leftovers, listed in its cage", () => {
  let dir: string
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'fleet-setup-check-'))
  })
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true })
  })

  it('reads both listings as they were written', async () => {
    await writeFile(path.join(dir, 'tracked'), '')
    await writeFile(path.join(dir, 'untracked'), 'node_modules/\0.setup/\0')
    expect(await readLeftovers(dir)).toEqual({ tracked: '', untracked: 'node_modules/\0.setup/\0' })
  })

  it('refuses a symlink the cage planted in place of a listing', async () => {
    const secret = path.join(dir, 'secret')
    await writeFile(secret, 'runner secret\n')
    await writeFile(path.join(dir, 'tracked'), '')
    await symlink(secret, path.join(dir, 'untracked'))
    await expect(readLeftovers(dir)).rejects.toThrow(/ELOOP|symbolic/)
  })

  it('refuses a FIFO in place of a listing without waiting on it', async () => {
    await writeFile(path.join(dir, 'tracked'), '')
    execFileSync('mkfifo', [path.join(dir, 'untracked')])
    await expect(readLeftovers(dir)).rejects.toThrow(/not a file/)
  })

  it('refuses a missing listing (the check did not run)', async () => {
    await writeFile(path.join(dir, 'tracked'), '')
    await expect(readLeftovers(dir)).rejects.toThrow(/ENOENT/)
  })

  it('runs the setup command from the environment, never spliced into its own text', () => {
    expect(SETUP_CHECK).toContain('sh -c "$FLEET_SETUP"')
    expect(SETUP_CHECK).toContain('"$FLEET_SETUP_OUT/untracked"')
  })
})
