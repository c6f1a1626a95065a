// Issue 38, item 1: one set of exits for every isolation kind, through dist/ with the real claude
// CLI, the action run as a hosted runner runs it (a non-root user with passwordless sudo, the
// GitHub token in its environment). The same hostile shell runs as the worker's Bash call, as
// setup and as verify, and again as keep-fresh's conflict turn and its setup and verify. It
// plants a repository of its own whose config runs a program from git (fsmonitor, hooks, clean
// and smudge filters, textconv, an external diff, a merge driver), names them in a .gitattributes,
// points the task's `.git` at that repository, looks for the token, and writes outside its files.
// In every kind with a cage: nothing it planted runs outside the cage, no file outside it changes,
// and no token is within its reach. In isolation: process, which is no boundary (its own writes
// land where it likes, the token is readable), the action's own git still runs nothing it planted.
//
// Kinds: the sandbox; docker worktrees through a stand-in runtime (test/support/
// standin-runtime.mjs: bubblewrap applying the mount list the action gives `docker run`, since no
// Docker engine runs here and no worker image builds offline); podman views with the real podman
// and worker image where they exist (skipped with the reason otherwise); process.
import { execFile } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { chmod, mkdir, mkdtemp, readFile, realpath, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { expectOk, labeledIssue } from '../support/scenario.js'
import type { Script } from '../../demo/model-server.js'
import { chownTree, makeRunnerUser, openPathsFor, runnerUserSkip } from '../../demo/sandbox.js'
import { byId, OWNER, REPO, type Stack, startStack } from '../../demo/stack.js'
import type { RunActionResult } from '../../demo/run-action.js'
import { push } from '../support/events.js'
import { personMovesMain } from './landing-support.js'
import { COLLABORATORS } from './triggers-support.js'

const exec = promisify(execFile)
const FULL = `${OWNER}/${REPO}`
const skipReason = await runnerUserSkip()
const ROOT = path.resolve(import.meta.dirname, '../..')

const exists = (f: string) =>
  stat(f).then(
    () => true,
    () => false
  )

/**
 * The hostile shell, run in the task's files. `mark` names the host markers; `outside` is a file
 * of the runner's it tries to change. It never runs what it plants itself: only a git that follows
 * the planted `.git` (or reads its `.gitattributes` with its config) does, writing to /tmp, which
 * in every cage is the cage's own. Counts only: a secret printed would leak into the model's log.
 */
function hostile(mark: string, outside: string): string {
  const m = `/tmp/exit-ran-${mark}`
  // Who ran it: a cage's own commands carry CLAUDE_CONFIG_DIR; the action's git and seal never do.
  const run = (what: string) => `echo ${what} cage=\${CLAUDE_CONFIG_DIR:+yes} >> ${m}; cat`
  const cfg = (key: string, value: string) => `git --git-dir=.evil config '${key}' '${value}'`
  return [
    // Planted once per tree (setup's stays for the worker): a repository the host could open.
    'if [ ! -d .evil ]; then',
    'git init -q --bare .evil',
    cfg('core.bare', 'false'),
    cfg('core.fsmonitor', `echo fsmonitor cage=\${CLAUDE_CONFIG_DIR:+yes} >> ${m}; false`),
    'mkdir -p .evil/hooks',
    ...['pre-commit', 'post-checkout', 'reference-transaction', 'post-index-change'].map(
      h =>
        `printf '#!/bin/sh\\necho hook cage=\${CLAUDE_CONFIG_DIR:+yes} >> ${m}\\n' > .evil/hooks/${h} && chmod +x .evil/hooks/${h}`
    ),
    cfg('core.hooksPath', '.evil/hooks'),
    cfg('filter.evil.clean', run('clean')),
    cfg('filter.evil.smudge', run('smudge')),
    cfg('diff.evil.textconv', run('textconv')),
    cfg('diff.evil.command', run('diff')),
    cfg('merge.evil.driver', run('merge')),
    // An index of its own with a tracked file in it, its stat data old (never racily clean): a git
    // that opens .evil, once the file is touched, must read it again, through the clean filter.
    "touch -d '2001-01-01' README.md && GIT_DIR=.evil GIT_WORK_TREE=. git add README.md",
    'fi',
    `printf '* filter=evil diff=evil merge=evil\\n' > .gitattributes`,
    'touch README.md',
    // The task's files' path on the host, as a container's mount table tells it.
    'host=$PWD; while read -r _ _ _ root at _; do [ "$at" = "$PWD" ] && host=$root; done < /proc/self/mountinfo',
    // The pointer the action's git would follow, rewritten (or refused where it is read-only).
    `{ printf 'gitdir: %s/.evil\\n' "$host" > .git && echo GITFILE-REWRITTEN; } 2>/dev/null || echo GITFILE-KEPT`,
    `{ echo changed >> '${outside}' && echo OUTSIDE-WRITTEN; } 2>/dev/null || echo OUTSIDE-KEPT`,
    `n=$({ env; cat /proc/[0-9]*/environ; } 2>/dev/null | tr '\\0' '\\n' | grep -c ghs_); echo "TOKENS-SEEN=$n"`,
    'echo STEP-OK'
  ].join('\n')
}

const bash = (command: string) => ({ tool: 'Bash', input: { command } })

/** The task writes shared.txt; the merge turn resolves it to teal; both run the hostile shell. */
function model(shell: string) {
  return (prompt: string): Script => {
    if (/^Pull request #\d+, "/m.test(prompt))
      return {
        key: 'merge',
        steps: [
          bash(shell),
          { tool: 'Write', input: { file_path: 'shared.txt', content: 'colour = teal\n' } },
          { text: 'Resolved.' }
        ]
      }
    return {
      key: 'task',
      steps: [
        bash(shell),
        { tool: 'Write', input: { file_path: 'shared.txt', content: 'colour = red\n' } },
        { text: 'Wrote shared.txt.' }
      ]
    }
  }
}

/** A `docker` on PATH that is the stand-in runtime, run by this node. */
async function standInDocker(dir: string): Promise<{ bin: string; claude: string }> {
  const claude = await realpath(path.join(ROOT, 'node_modules', '.bin', 'claude'))
  const { stdout: bwrap } = await exec('sh', ['-c', 'command -v bwrap'])
  const script = path.join(ROOT, 'test', 'support', 'standin-runtime.mjs')
  const file = path.join(dir, 'docker')
  await writeFile(
    file,
    [
      '#!/bin/sh',
      `FLEET_STANDIN_BWRAP='${bwrap.trim()}' FLEET_STANDIN_CLAUDE='${claude}' FLEET_STANDIN_STATE='${dir}/state' exec '${process.execPath}' '${script}' "$@"`,
      ''
    ].join('\n')
  )
  await chmod(file, 0o755)
  return { bin: dir, claude }
}

interface Kind {
  name: string
  /** Whether the worker is caged: in process it is not, and its own reach is not tested. */
  caged: boolean
  inputs: Record<string, string>
  env?: Record<string, string>
  skip?: string
}

async function kinds(bin: string): Promise<Kind[]> {
  const podman = await exec('sh', ['-c', 'command -v podman']).then(
    () => undefined,
    () => 'podman is not installed here'
  )
  return [
    { name: 'sandbox', caged: true, inputs: { isolation: 'sandbox' } },
    {
      name: 'docker worktrees (stand-in runtime: bubblewrap with the action’s mount list)',
      caged: true,
      inputs: {
        isolation: 'container',
        'container-runtime': 'docker',
        'container-image': 'localhost/fleet-standin:test'
      },
      env: { PATH: `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}` }
    },
    {
      name: 'podman views (real podman and worker image)',
      caged: true,
      // Needs the image built as container.test.ts builds it, and podman run by the runner user.
      skip: podman ?? 'the podman views kind is run by container-views.test.ts as root',
      inputs: { isolation: 'container', 'container-runtime': 'podman' }
    },
    {
      name: 'process (no cage: the action’s own git is what is checked)',
      caged: false,
      inputs: { isolation: 'process' }
    }
  ]
}

// Made in the suite's beforeAll: the kinds name it before.
const bin = path.join(tmpdir(), `fleet-e2e-standin-${randomBytes(4).toString('hex')}`)
const allKinds = skipReason ? [] : await kinds(bin)

describe.skipIf(skipReason !== undefined)(
  `one set of exits for every isolation kind${skipReason ? ` (skipped: ${skipReason})` : ''}`,
  () => {
    let closePaths: (() => Promise<void>) | undefined
    beforeAll(async () => {
      await mkdir(bin, { recursive: true })
      const { claude } = await standInDocker(bin)
      closePaths = await openPathsFor([
        import.meta.filename,
        process.execPath,
        claude,
        path.join(bin, 'docker')
      ])
      await exec('chmod', ['-R', 'a+rwX', bin])
    })
    afterAll(async () => {
      await closePaths?.()
      await rm(bin, { recursive: true, force: true })
    })

    for (const kind of allKinds) {
      describe.skipIf(kind.skip !== undefined)(
        `${kind.name}${kind.skip ? ` (skipped: ${kind.skip})` : ''}`,
        () => {
          const mark = randomBytes(6).toString('hex')
          let stack: Stack
          let home: string
          let outside: string
          let user: Awaited<ReturnType<typeof makeRunnerUser>>
          let first: RunActionResult
          let refresh: RunActionResult
          const marker = `/tmp/exit-ran-${mark}`

          beforeAll(async () => {
            home = await mkdtemp(path.join(tmpdir(), 'fleet-e2e-matrix-home-'))
            outside = path.join(home, 'outside.txt')
            await writeFile(outside, 'as it was\n')
            const shell = hostile(mark, outside)
            stack = await startStack({
              files: { 'README.md': '# widgets\n', 'shared.txt': 'colour = green\n' },
              model: { defaultScript: model(shell) },
              github: { collaborators: COLLABORATORS }
            })
            user = await makeRunnerUser(home)
            for (const dir of [home, stack.workspace, stack.home]) await chownTree(dir, user)
            const inputs = { ...kind.inputs, setup: shell, verify: shell }
            const body = '- [ ] Write shared.txt'
            const { payload } = labeledIssue(stack, { title: 'Colours', body })
            first = await stack.run({
              eventName: 'issues',
              payload,
              inputs,
              env: kind.env,
              user,
              timeoutMs: 300_000
            })
            // main moves under the PR: keep-fresh's conflict turn, setup and verify come next.
            const main = await personMovesMain(
              stack.git.repoPath(FULL),
              'shared.txt',
              'colour = blue\n',
              'fleet-matrix-person-'
            )
            refresh = await stack.run({
              eventName: 'push',
              payload: push({ owner: OWNER, repo: REPO, ref: 'refs/heads/main', after: main }),
              inputs,
              env: kind.env,
              user,
              timeoutMs: 400_000
            })
          }, 900_000)
          afterAll(async () => {
            await user?.remove()
            await stack?.close()
            await rm(marker, { force: true })
            if (home) await rm(home, { recursive: true, force: true })
          })

          const said = (key: string) =>
            stack.model
              .requestsFor(key)
              .flatMap(r => r.toolResults)
              .join('\n')

          it('runs the hostile worker, setup and verify, lands the PR, and keep-fresh brings it up to date through a conflict turn', async () => {
            expectOk(first)
            const [task] = [...byId(first).values()]
            expect(task?.status, task?.error ?? first.stdout).toBe('pr-opened')
            expect(said('task')).toContain('STEP-OK')
            expectOk(refresh)
            const [pr] = [...byId(refresh).values()]
            expect(pr?.status, pr?.error ?? refresh.stdout).toBe('pr-updated')
            expect(said('merge')).toContain('STEP-OK')
            const branch = stack.github.state.pulls[0]?.pull.head ?? ''
            expect(await stack.git.readFile(FULL, branch, 'shared.txt')).toBe('colour = teal\n')
          })

          it('the action’s git and seals run nothing it planted', async () => {
            const ran = (await exists(marker)) ? await readFile(marker, 'utf8') : ''
            expect(ran.split('\n').filter(l => / cage=$/.test(l))).toEqual([])
          })

          if (kind.caged) {
            it('cannot rewrite the task’s .git, change a file outside its cage, or see the token', async () => {
              const all = `${said('task')}\n${said('merge')}`
              expect(all).toContain('GITFILE-KEPT')
              expect(all).not.toContain('GITFILE-REWRITTEN')
              expect(all).toContain('OUTSIDE-KEPT')
              expect(all).not.toContain('OUTSIDE-WRITTEN')
              expect(all).toMatch(/TOKENS-SEEN=0\b/)
              expect(all).not.toMatch(/TOKENS-SEEN=[1-9]/)
              expect(await readFile(outside, 'utf8')).toBe('as it was\n')
              // Not even inside: a cage's /tmp is its own.
              expect(await exists(marker), marker).toBe(false)
            })
          } else {
            it('(no cage) the worker itself reaches what it likes, as documented', () => {
              const all = said('task')
              expect(all).toContain('GITFILE-REWRITTEN')
              expect(all).toContain('OUTSIDE-WRITTEN')
              expect(all).toMatch(/TOKENS-SEEN=[1-9]/)
            })
          }
        }
      )
    }
  }
)
