import { execFile, execFileSync } from 'node:child_process'
import { chmod, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { expectOk, writeScript } from '../support/scenario.js'
import { CLAUDE_CODE_VERSION } from '../../src/worker/install.js'
import { byId, GITHUB_TOKEN, MODEL_KEY, type Stack, startStack } from '../../demo/stack.js'

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
      prompt: `Write a file.\n${writeScript('installed', 'installed.txt', 'ok\n', 'Done.')}`
    }
    const run = await stack.run({
      inputs: { tasks: JSON.stringify([task]) },
      // Offline: everything must come from that cache, so the test never depends on the network.
      env: { PATH: PLAIN_PATH, npm_config_cache: NPM_CACHE, npm_config_offline: 'true' },
      timeoutMs: 300_000
    })
    expectOk(run)
    expect(run.stdout).toContain(
      'claude is not on PATH: installing @anthropic-ai/claude-code@2.1.332'
    )
    expect(run.stdout).toMatch(
      /claude: 2\.1\.332 \(.*fleet-worker-claude\/node_modules\/\.bin\/claude\)/
    )
    expect(byId(run).get('installed')?.status).toBe('pr-opened')
  }, 300_000)

  it('installs with an environment it chose: npm and the install script see no token or key', async () => {
    // A spy `npm` first on PATH: it writes the environment it was given, runs the real npm, then
    // wraps the installed package's install.cjs (which the action runs next, with node) in a spy
    // that writes its own environment too before it runs the original.
    const spy = await mkdtemp(path.join(tmpdir(), 'fleet-npm-spy-'))
    const realNpm = execFileSync('sh', ['-c', 'command -v npm'], { encoding: 'utf8' }).trim()
    const wrapInstall = [
      'const fs = require("node:fs"), path = require("node:path")',
      'const i = process.argv.indexOf("--prefix"); const dir = process.argv[i + 1]',
      'const pkg = path.join(dir, "node_modules", "@anthropic-ai", "claude-code")',
      'fs.renameSync(path.join(pkg, "install.cjs"), path.join(pkg, "install.real.cjs"))',
      'fs.writeFileSync(path.join(pkg, "install.cjs"), `require("node:fs").writeFileSync(${JSON.stringify(process.argv[2])} + "/install-script.env", JSON.stringify(process.env)); require("./install.real.cjs")`)'
    ].join('\n')
    await writeFile(path.join(spy, 'wrap.cjs'), wrapInstall.replace('process.argv[2]', `"${spy}"`))
    await writeFile(
      path.join(spy, 'npm'),
      `#!/bin/sh\nnode -e 'require("fs").writeFileSync(process.argv[1], JSON.stringify(process.env))' "${spy}/npm.env"\n"${realNpm}" "$@" || exit $?\nnode "${spy}/wrap.cjs" "$@"\n`
    )
    await chmod(path.join(spy, 'npm'), 0o755)
    try {
      const task = {
        id: 'clean-install',
        prompt: `Write a file.\n${writeScript('clean-install', 'clean.txt', 'ok\n', 'Done.')}`
      }
      const run = await stack.run({
        inputs: { tasks: JSON.stringify([task]) },
        env: {
          PATH: `${spy}:${PLAIN_PATH}`,
          npm_config_cache: NPM_CACHE,
          npm_config_offline: 'true',
          // What a workflow might also have set: a registry token, the Actions runtime's token.
          NODE_AUTH_TOKEN: 'npm-registry-token-0123456789',
          npm_config__authToken: 'npm-config-token-0123456789',
          ACTIONS_RUNTIME_TOKEN: 'actions-runtime-token-0123456789'
        },
        timeoutMs: 300_000
      })
      expectOk(run)
      expect(byId(run).get('clean-install')?.status).toBe('pr-opened')
      expect((await readdir(spy)).sort()).toEqual([
        'install-script.env',
        'npm',
        'npm.env',
        'wrap.cjs'
      ])
      for (const file of ['npm.env', 'install-script.env']) {
        const text = await readFile(path.join(spy, file), 'utf8')
        const env = JSON.parse(text) as Record<string, string>
        // It did get what an install needs...
        expect(env.PATH, file).toContain(spy)
        expect(env.npm_config_cache, file).toBe(NPM_CACHE)
        expect(env.HOME, file).toBeTruthy()
        // ...and no secret of the action's, under any name.
        for (const secret of [
          GITHUB_TOKEN,
          MODEL_KEY,
          'npm-registry-token-0123456789',
          'npm-config-token-0123456789',
          'actions-runtime-token-0123456789'
        ])
          expect(text, `${file} holds a secret`).not.toContain(secret)
        expect(
          Object.keys(env).filter(n => /^(INPUT_|GITHUB_|ACTIONS_|ANTHROPIC_|RUNNER_)/.test(n)),
          file
        ).toEqual([])
      }
    } finally {
      await rm(spy, { recursive: true, force: true })
    }
  }, 300_000)
})
