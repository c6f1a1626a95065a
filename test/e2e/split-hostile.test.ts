// Issue 29 with the exits issue's hostile workers, through dist/ with the real claude CLI in the
// sandbox, run as a hosted runner runs it (a non-root user with passwordless sudo). The run job
// holds only the read-only token (land: false); the land job the write token and no model. Workers
// leave hooks, a .git/config whose fsmonitor, sshCommand and pager run a program, a gitlink over a
// nested repository, and a .gitmodules: no program runs outside the cage in either job, the
// submodules are refused at the run job's exit with their work kept, and what is left lands.
import { randomBytes } from 'node:crypto'
import { mkdir, mkdtemp, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { script } from '../../demo/model-server.js'
import type { RunActionResult } from '../../demo/run-action.js'
import { chownTree, makeRunnerUser, openPathsFor, runnerUserSkip } from '../../demo/sandbox.js'
import { byId, OWNER, READ_TOKEN, REPO, type Stack, startStack } from '../../demo/stack.js'

const FULL = `${OWNER}/${REPO}`
const skipReason = await runnerUserSkip()
const WRITES = ['POST', 'PATCH', 'PUT', 'DELETE']

const bashTask = (id: string, commands: string[]) => ({
  id,
  prompt: `Do the task.\n${script({ key: id, steps: [...commands.map(command => ({ tool: 'Bash', input: { command } })), { text: 'Done.' }] })}`
})

const exists = (f: string) =>
  stat(f).then(
    () => true,
    () => false
  )

describe.skipIf(skipReason !== undefined)(
  `hostile workers in the split layout${skipReason ? ` (skipped: ${skipReason})` : ''}`,
  () => {
    let stack: Stack
    let home: string
    let user: Awaited<ReturnType<typeof makeRunnerUser>>
    let closePaths: (() => Promise<void>) | undefined
    let runJob: RunActionResult
    let landJob: RunActionResult
    let handOver: string
    const seen = { apiWrites: 0, pushes: 0, model: 0 }
    const marker = randomBytes(6).toString('hex')
    // Where the program writes when it runs: the runner's /tmp and the runner user's home. Inside
    // the sandbox /tmp is the cage's own and the home is not there at all.
    const ranMarkers = () => [`/tmp/split-ran-${marker}`, path.join(home, `split-ran-${marker}`)]
    const program = () =>
      `printf '#!/bin/sh\\necho ran >> /tmp/split-ran-${marker}\\necho ran >> ${home}/split-ran-${marker}\\ncat >/dev/null\\nexit 0\\n' > evil.sh && chmod +x evil.sh`
    const ident = '-c user.name=w -c user.email=w@example.com'

    beforeAll(async () => {
      stack = await startStack({ workspace: { credentials: 'none' } })
      home = await mkdtemp(path.join(tmpdir(), 'fleet-e2e-split-home-'))
      handOver = path.join(home, 'hand-over')
      await mkdir(path.join(handOver, 'fleet-hand-over'), { recursive: true })
      user = await makeRunnerUser(home)
      for (const dir of [home, stack.workspace, stack.home]) await chownTree(dir, user)
      closePaths = await openPathsFor([import.meta.filename, process.execPath])
      const hooks =
        'pre-commit post-commit pre-push post-checkout reference-transaction post-rewrite'
      const tasks = [
        // Hooks in the worker's clone, and core.hooksPath pointing at more.
        bashTask('hooks', [
          `${program()} && d=$(git rev-parse --git-path hooks) && mkdir -p "$d" && for h in ${hooks}; do cp evil.sh "$d/$h"; done && git config core.hooksPath "$d" && echo hooked > hooked.txt && echo STEP-OK`
        ]),
        // A .git/config whose fsmonitor, sshCommand and pager run the program.
        bashTask('config', [
          `${program()} && git config core.fsmonitor "$PWD/evil.sh" && git config core.sshCommand "$PWD/evil.sh" && git config core.pager "$PWD/evil.sh" && echo conf > conf.txt && echo STEP-OK`
        ]),
        // A nested repository committed as a gitlink, its own fsmonitor set to the program.
        bashTask('gitlink', [
          `${program()} && git init -q nested && (cd nested && echo a > a.txt && git add a.txt && git ${ident} commit -qm nested && git config core.fsmonitor "$PWD/../evil.sh") && git add evil.sh nested && git ${ident} commit -qm "add nested" && echo STEP-OK`
        ]),
        // A .gitmodules naming a submodule, left for the seal to add.
        bashTask('gitmodules', [
          `printf '[submodule "x"]\\n\\tpath = x\\n\\turl = ../elsewhere.git\\n' > .gitmodules && echo STEP-OK`
        ]),
        bashTask('honest', ['echo fine > honest.txt && echo STEP-OK'])
      ]
      runJob = await stack.run({
        inputs: {
          tasks: JSON.stringify(tasks),
          isolation: 'sandbox',
          'max-parallel': '3',
          land: 'false',
          'outcomes-dir': path.join(handOver, 'fleet-hand-over'),
          'github-token': READ_TOKEN
        },
        user,
        timeoutMs: 600_000
      })
      seen.apiWrites = stack.github.requests.filter(r => WRITES.includes(r.method)).length
      seen.pushes = stack.git.requests.filter(r => r.service === 'git-receive-pack').length
      seen.model = stack.model.requests.length
      landJob = await stack.run({
        inputs: {
          mode: 'land',
          'api-key': '',
          'base-url': 'http://127.0.0.1:9',
          'outcomes-dir': handOver
        },
        user,
        timeoutMs: 300_000
      })
    }, 900_000)
    afterAll(async () => {
      await closePaths?.()
      await user?.remove()
      await stack?.close()
      for (const f of ranMarkers()) await rm(f, { force: true })
      if (home) await rm(home, { recursive: true, force: true })
    })

    const ran = (job: RunActionResult, id: string) => byId(job).get(id)

    it('the run job, with the read-only token, attempts no write and seals every task', () => {
      expect(runJob.exitCode === 0 || runJob.exitCode === 1, runJob.stdout + runJob.stderr).toBe(
        true
      )
      expect(seen.apiWrites).toBe(0)
      expect(seen.pushes).toBe(0)
      expect(stack.git.refused).toEqual([])
      expect(stack.github.refused).toEqual([])
      for (const id of ['hooks', 'config', 'gitlink', 'gitmodules', 'honest']) {
        const said = stack.model
          .requestsFor(id)
          .map(r => r.toolResults.join('\n'))
          .join('\n')
        expect(said, id).toContain('STEP-OK')
      }
      for (const id of ['hooks', 'config', 'honest'])
        expect(ran(runJob, id)?.status, ran(runJob, id)?.error ?? '').toBe('ready')
    })

    it('refuses a gitlink and a .gitmodules at the run job’s exit, keeps the work, and the land job pushes nothing of it', async () => {
      const branches = await stack.git.branches(FULL)
      for (const id of ['gitlink', 'gitmodules']) {
        const o = ran(runJob, id) as {
          status?: string
          error?: string | null
          preserved?: string | null
        }
        expect(o.status, id).toBe('failed')
        expect(o.error, id).toMatch(/adds a submodule \(a gitlink or a \.gitmodules change: /)
        expect(o.preserved ?? '', id).toMatch(/\.bundle$/)
        expect(await exists(o.preserved ?? ''), id).toBe(true)
        expect(ran(landJob, id)?.status, id).toBe('failed')
        expect(branches[`fleet/${id}`], id).toBeUndefined()
      }
    })

    it('the land job, with no model, lands the rest with exactly their files', async () => {
      expect(stack.model.requests.length).toBe(seen.model)
      for (const [id, file, content] of [
        ['hooks', 'hooked.txt', 'hooked\n'],
        ['config', 'conf.txt', 'conf\n'],
        ['honest', 'honest.txt', 'fine\n']
      ] as const) {
        expect(ran(landJob, id)?.status, ran(landJob, id)?.error ?? '').toBe('pr-opened')
        expect(await stack.git.readFile(FULL, `fleet/${id}`, file), id).toBe(content)
      }
      expect(stack.github.invalid).toEqual([])
    })

    it('never runs a worker’s hook or configured program outside the cage, in either job', async () => {
      for (const f of ranMarkers()) expect(await exists(f), f).toBe(false)
    })
  }
)
