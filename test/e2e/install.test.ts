import { execFileSync } from 'node:child_process'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { script } from '../support/model-server.js'
import { byId, type Stack, startStack } from './stack.js'

// A GitHub runner starts without claude: the action installs the version it pins, from npm.
const PLAIN_PATH = '/usr/local/bin:/usr/bin:/bin'
// The machine's npm cache (after `npm ci` it holds the pinned CLI), as setup-node's cache would on a
// runner: the test proves the install path, not this sandbox's bandwidth for a 186 MB tarball.
const NPM_CACHE = execFileSync('npm', ['config', 'get', 'cache'], { encoding: 'utf8' }).trim()

describe('the worker binary', () => {
  let stack: Stack
  beforeAll(async () => {
    stack = await startStack()
  })
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
