// A hostile setup, through dist/ with the real claude CLI, as a hosted runner runs it (a non-root
// user with passwordless sudo): `setup: npm ci` runs the project's `preinstall`, which reads the
// runner's package caches (it may: that is what makes setup fast) and then plants programs in
// npm's `_npx`, corepack's cache and the Go module cache, overwrites a cached file and deletes
// others. Setup sees the caches through a copy-on-write view of its own, so the runner's cache
// directories hash the same before and after, and the tasks still land their PRs.
import { createHash } from 'node:crypto'
import { lstat, mkdir, mkdtemp, readdir, readFile, readlink, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { expectOk, greetProject } from '../support/scenario.js'
import { script } from '../../demo/model-server.js'
import { chownTree, makeRunnerUser, openPathsFor, runnerUserSkip } from '../../demo/sandbox.js'
import { byId, GITHUB_TOKEN, OWNER, REPO, type Stack, startStack } from '../../demo/stack.js'

const FULL = `${OWNER}/${REPO}`
const skipReason = await runnerUserSkip()

/** Every entry under `dir`: its path, type, mode and content (or link target), hashed. */
async function hashTree(dir: string): Promise<{ hash: string; entries: string[] }> {
  const entries: string[] = []
  async function walk(rel: string): Promise<void> {
    const full = path.join(dir, rel)
    const s = await lstat(full)
    const mode = (s.mode & 0o7777).toString(8)
    if (s.isSymbolicLink()) entries.push(`${rel} link ${await readlink(full)}`)
    else if (s.isDirectory()) {
      entries.push(`${rel}/ dir ${mode}`)
      for (const name of (await readdir(full)).sort()) await walk(path.join(rel, name))
    } else {
      const sha = createHash('sha256')
        .update(await readFile(full))
        .digest('hex')
      entries.push(`${rel} ${s.isFile() ? 'file' : 'other'} ${mode} ${sha}`)
    }
  }
  await walk('.')
  return { hash: createHash('sha256').update(entries.join('\n')).digest('hex'), entries }
}

/** The project: one local dependency (npm ci works offline) and a preinstall that attacks. */
function project(caches: { npm: string; xdg: string; gomod: string }) {
  const plant = [
    'set -e',
    // Reading the runner's cache works: that is what makes setup fast.
    `cat '${caches.npm}/seed.txt' > from-cache.txt`,
    `ls -a '${caches.npm}/_npx' > npx-seen.txt`,
    ...[
      `${caches.npm}/_npx/0123abcd/node_modules/.bin`,
      `${caches.xdg}/node/corepack/v1/npm/99.0.0/bin`,
      `${caches.gomod}/example.com/evil@v1.0.0`
    ].map(
      d =>
        `mkdir -p '${d}' && printf '#!/bin/sh\\necho pwned\\n' > '${d}/run' && chmod +x '${d}/run'`
    ),
    `echo tampered > '${caches.npm}/seed.txt'`,
    `chmod 777 '${caches.npm}/_cacache'`,
    `rm -f '${caches.xdg}/node/corepack/v1/keep.txt'`,
    `rm -rf '${caches.gomod}/cache'`,
    `ln -sf /etc/passwd '${caches.npm}/_npx/link'`
  ].join('\n')
  return { ...greetProject({ preinstall: 'sh plant.sh' }), 'plant.sh': plant + '\n' }
}

// The worker keeps what setup read and saw, so the test can tell setup really saw the runner's
// cache, and that one task's setup never saw another's plants.
const WORKER_STEP =
  'cp from-cache.txt saw-cache.txt && cp npx-seen.txt saw-npx.txt && git add -A && git commit -qm "Record what setup saw"'

const task = (id: string) => ({
  id,
  prompt: `Record it.\n${script({ key: id, steps: [{ tool: 'Bash', input: { command: WORKER_STEP } }, { text: 'Done.' }] })}`
})

describe.skipIf(skipReason !== undefined)(
  `setup never writes the runner's caches${skipReason ? ` (skipped: ${skipReason})` : ''}`,
  () => {
    let stack: Stack
    let home: string
    let user: Awaited<ReturnType<typeof makeRunnerUser>>
    let closePaths: (() => Promise<void>) | undefined
    let caches: { npm: string; xdg: string; gomod: string }

    beforeAll(async () => {
      home = await mkdtemp(path.join(tmpdir(), 'fleet-e2e-runner-home-'))
      caches = {
        npm: path.join(home, '.npm'),
        xdg: path.join(home, '.cache'),
        gomod: path.join(home, 'go', 'pkg', 'mod')
      }
      // What actions/setup-node and setup-go would have restored.
      const seeds = {
        [`${caches.npm}/seed.txt`]: 'runner-npm-cache\n',
        [`${caches.npm}/_cacache/index-v5/00/seed`]: 'index\n',
        [`${caches.npm}/_npx/.keep`]: '',
        [`${caches.xdg}/node/corepack/v1/keep.txt`]: 'corepack\n',
        [`${caches.gomod}/cache/download/example.com/good/@v/list`]: 'v1.0.0\n'
      }
      for (const [file, text] of Object.entries(seeds)) {
        await mkdir(path.dirname(file), { recursive: true })
        await writeFile(file, text)
      }
      stack = await startStack({ files: project(caches) })
      user = await makeRunnerUser(home)
      for (const dir of [home, stack.workspace, stack.home]) await chownTree(dir, user)
      closePaths = await openPathsFor([import.meta.filename, process.execPath])
    })
    afterAll(async () => {
      await closePaths?.()
      await user?.remove()
      await stack?.close()
      if (home) await rm(home, { recursive: true, force: true })
    })

    it('a hostile setup plants nothing in npm, corepack or Go caches, and the tasks still land', async () => {
      const before = await hashTree(home)
      const run = await stack.run({
        inputs: {
          tasks: JSON.stringify([task('cache-a'), task('cache-b')]),
          setup: 'npm ci --offline --no-audit --no-fund',
          verify: 'npm test'
        },
        env: {
          GITHUB_TOKEN,
          HOME: home,
          npm_config_cache: caches.npm,
          XDG_CACHE_HOME: caches.xdg,
          GOMODCACHE: caches.gomod
        },
        user
      })
      expectOk(run)
      expect(run.stdout).not.toContain('empty private package caches')
      for (const id of ['cache-a', 'cache-b']) {
        const r = byId(run).get(id)
        expect(r?.status, r?.error ?? run.stdout).toBe('pr-opened')
        const branch = `fleet/${id}`
        // Setup read the runner's cache through its view...
        expect(await stack.git.readFile(FULL, branch, 'saw-cache.txt')).toBe('runner-npm-cache\n')
        // ...and saw no other task's plants in it.
        expect(await stack.git.readFile(FULL, branch, 'saw-npx.txt')).toBe('.\n..\n.keep\n')
        const pr = stack.github.state.pulls.find(p => p.pull.head === branch)
        expect(pr?.body).toContain('### Verify: passed')
      }
      // Each plant succeeded inside (plant.sh runs under set -e: a refused write would have failed
      // setup, and the task with it), into setup's private layers only.
      const after = await hashTree(home)
      expect(after.entries).toEqual(before.entries)
      expect(after.hash).toBe(before.hash)
    })
  }
)
