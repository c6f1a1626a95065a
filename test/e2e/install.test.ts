import { execFile, execFileSync } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CLAUDE_CODE_VERSION } from '../../src/worker/install.js'
import { script } from '../../src/demo/model-server.js'
import { byId, type Stack, startStack } from '../../src/demo/stack.js'

// A GitHub runner starts without claude: the action installs the version it pins, from npm.
const PLAIN_PATH = '/usr/local/bin:/usr/bin:/bin'
// The machine's npm cache, as setup-node's cache would serve it on a runner: the action's install
// runs offline from it, so the test proves the install path and not the registry's bandwidth.
const NPM_CACHE = execFileSync('npm', ['config', 'get', 'cache'], { encoding: 'utf8' }).trim()

/**
 * Brings everything the action's offline install needs into that cache. `npm ci` leaves only
 * tarballs there, not the package documents (packuments) an install resolves from, so a fresh
 * machine's cache cannot serve it. This is an install like the action's, in the host's own
 * environment (its npm config, CA file and proxy, which the action's clean environment lacks),
 * without install scripts; tarballs already cached are not fetched again.
 */
async function warmNpmCache(): Promise<void> {
  const scratch = await mkdtemp(path.join(tmpdir(), 'fleet-npm-warm-'))
  try {
    await promisify(execFile)(
      'npm',
      [
        'install',
        '--prefix',
        scratch,
        '--no-save',
        '--no-audit',
        '--no-fund',
        '--ignore-scripts',
        '--prefer-offline',
        `@anthropic-ai/claude-code@${CLAUDE_CODE_VERSION}`
      ],
      { env: { ...process.env, npm_config_cache: NPM_CACHE }, maxBuffer: 16 * 1024 * 1024 }
    )
  } catch (err) {
    throw new Error(
      `this test needs the npm registry once, to put @anthropic-ai/claude-code@${CLAUDE_CODE_VERSION} in the npm cache ${NPM_CACHE}: ${String(err)}`,
      { cause: err }
    )
  } finally {
    await rm(scratch, { recursive: true, force: true })
  }
}

describe('the worker binary', () => {
  let stack: Stack
  beforeAll(async () => {
    await warmNpmCache()
    stack = await startStack()
  }, 600_000)
  afterAll(async () => stack?.close())

  it('with no claude on PATH, installs the pinned version and runs the task with it', async () => {
    const task = {
      id: 'installed',
      prompt: `Write a file.\n${script({ key: 'installed', steps: [{ tool: 'Write', input: { file_path: 'installed.txt', content: 'ok\n' } }, { text: 'Done.' }] })}`
    }
    const run = await stack.run({
      inputs: { tasks: JSON.stringify([task]) },
      // Offline: everything must come from that cache, so the test never depends on the network.
      env: { PATH: PLAIN_PATH, npm_config_cache: NPM_CACHE, npm_config_offline: 'true' },
      timeoutMs: 300_000
    })
    expect(run.exitCode, run.stdout + run.stderr).toBe(0)
    expect(run.stdout).toContain(
      'claude is not on PATH: installing @anthropic-ai/claude-code@2.1.332'
    )
    expect(run.stdout).toMatch(
      /claude: 2\.1\.332 \(.*fleet-worker-claude\/node_modules\/\.bin\/claude\)/
    )
    expect(byId(run).get('installed')?.status).toBe('pr-opened')
  }, 300_000)
})
