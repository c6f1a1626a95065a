// The seal in the command's own cage (worker/exit.ts SEAL_AFTER), with real bubblewrap and git:
// what the command left running is dead before the seal reads the tree, so the sealed files are
// the files the cage ends with; a command killed by its timeout leaves no status, and its work is
// sealed in a second cage start instead (a status it forged there is not read); a status or
// bundle the command forged in the seal's directory is overwritten by the seal's own.
import { execFileSync } from 'node:child_process'
import { existsSync, readdirSync } from 'node:fs'
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sandboxSupport } from '../../demo/sandbox.js'
import { spawnSandboxed } from '../../src/cage/sandbox-run.js'
import { settleCages } from '../../src/cage/teardown.js'
import { preflightSandbox, type SandboxHost } from '../../src/cage/sandbox-host.js'
import { Git } from '../../src/git/git.js'
import { RefWriter } from '../../src/git/ref-writer.js'
import type { TaskGit } from '../../src/worker/exit.js'
import { git } from '../support/git.js'

const support = await sandboxSupport()

describe.skipIf(!support.ok)('the seal run after the command, in the same cage', () => {
  let root: string
  let repo: string
  let host: SandboxHost
  let model: net.Server
  let port: number

  beforeAll(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'fleet-seal-after-'))
    repo = path.join(root, 'repo')
    await mkdir(repo, { recursive: true })
    git(repo, 'init', '-q', '-b', 'main')
    await writeFile(path.join(repo, 'a.txt'), 'a\n')
    git(repo, 'add', '.')
    git(repo, 'commit', '-qm', 'base')
    git(repo, 'update-ref', 'refs/remotes/origin/main', 'HEAD')
    model = net.createServer(s => s.end()).listen(0, '127.0.0.1')
    await new Promise(r => model.once('listening', r))
    port = (model.address() as net.AddressInfo).port
    host = await preflightSandbox(process.env, () => undefined)
  }, 60_000)
  afterAll(async () => {
    model?.close()
    if (root) await rm(root, { recursive: true, force: true })
  })

  let n = 0
  /** A fresh task (its own worktree and branch) and its command run in the sandbox, sealed. */
  async function run(shell: string, timeoutMs = 60_000) {
    const id = `t${++n}`
    const worktree = path.join(root, 'worktrees', id)
    git(repo, 'worktree', 'add', '-q', '-b', `fleet/${id}`, worktree, 'main')
    const cageDir = path.join(root, 'workers', id)
    const env = {
      PATH: '/usr/local/bin:/usr/bin:/bin',
      HOME: path.join(cageDir, 'home'),
      TMPDIR: path.join(cageDir, 'tmp')
    }
    await mkdir(env.HOME, { recursive: true })
    await mkdir(env.TMPDIR, { recursive: true })
    const t: TaskGit = {
      id,
      repo: Git.create(repo),
      refs: new RefWriter(Git.create(repo)),
      branch: `fleet/${id}`,
      start: git(repo, 'rev-parse', 'main'),
      adminDir: git(worktree, 'rev-parse', '--absolute-git-dir'),
      keepDir: path.join(root, 'kept'),
      author: { name: 'fleet', email: 'fleet@example.com' },
      message: `fleet(${id}): the task`
    }
    const exit = await spawnSandboxed(
      {
        setup: { host, allowed: [] },
        taskId: id,
        worktree,
        cageDir,
        modelUrl: `http://127.0.0.1:${port}`,
        command: ['sh', '-c', shell],
        env,
        log: () => undefined,
        sealing: t
      },
      { stdin: '', timeoutMs, transcriptPath: path.join(root, `${id}.jsonl`) }
    )
    // Read at once, before any I/O callback may run: what the cage's teardown has left to do.
    const beside = readdirSync(path.join(root, 'workers')).filter(n => n.startsWith(`${id}.`))
    const clone = existsSync(path.join(cageDir, 'git'))
    const head = git(repo, 'rev-parse', `refs/heads/fleet/${id}`)
    const show = (file: string) => {
      try {
        return execFileSync('git', ['show', `${head}:${file}`], { cwd: repo, encoding: 'utf8' })
      } catch {
        return undefined
      }
    }
    return { t, exit, worktree, cageDir, head, show, beside, clone }
  }

  it('kills what the command left running before the seal reads the tree', async () => {
    // A writer the command leaves behind, appending as fast as it can, ignoring every signal it may.
    const r = await run(
      "echo early > early.txt; (trap '' HUP INT TERM; while :; do echo x >> grow.txt; done) & sleep 0.3; exit 0"
    )
    expect(r.t.refused).toBeUndefined()
    expect(r.exit.exitCode).toBe(0)
    expect(r.show('early.txt')).toBe('early\n')
    const sealed = r.show('grow.txt') ?? ''
    expect(sealed.length).toBeGreaterThan(0)
    // Nothing was appended after the seal's `git add` read it: the writer was dead by then.
    expect(await readFile(path.join(r.worktree, 'grow.txt'), 'utf8')).toBe(sealed)
  }, 60_000)

  it("keeps the command's own exit status, and overwrites a status and bundle it forged", async () => {
    const r = await run(
      [
        // The seal's output file is on the wrapper's command line: visible to the command.
        `out=$(tr '\\0' '\\n' < /proc/$PPID/cmdline | grep '/task.bundle$')`,
        '[ -n "$out" ] || exit 9',
        'd=${out%/*}',
        'echo 7 > "$d/sealed"',
        'echo junk > "$out"',
        'echo real > real.txt',
        'exit 3'
      ].join('; ')
    )
    expect(r.exit.exitCode).toBe(3)
    expect(r.t.refused).toBeUndefined()
    expect(r.show('real.txt')).toBe('real\n')
  }, 60_000)

  it('seals the work of a command killed by its timeout in a second cage start', async () => {
    const r = await run('echo before > before.txt; exec sleep 60', 1500)
    expect(r.exit.timedOut).toBe(true)
    expect(r.t.refused).toBeUndefined()
    expect(r.show('before.txt')).toBe('before\n')
  }, 60_000)

  it('reads no status a command killed by its timeout forged: its work is sealed again', async () => {
    // A status of 0 with no bundle would read as "nothing new since the start": work lost.
    const r = await run(
      [
        `out=$(tr '\\0' '\\n' < /proc/$PPID/cmdline | grep '/task.bundle$')`,
        '[ -n "$out" ] || exit 9',
        'echo 0 > "${out%/*}/sealed"',
        'echo kept > kept.txt',
        'exec sleep 60'
      ].join('; '),
      1500
    )
    expect(r.exit.timedOut).toBe(true)
    expect(r.t.refused).toBeUndefined()
    expect(r.show('kept.txt')).toBe('kept\n')
  }, 60_000)

  it("returns with the cage's clone moved out of its cage dir, removed once the teardowns settle", async () => {
    const r = await run('echo mine > mine.txt')
    expect(r.show('mine.txt')).toBe('mine\n')
    // The cage dir is free for the task's next cage; the clone's removal has not ended yet.
    expect(r.clone).toBe(false)
    expect(r.beside).toHaveLength(1)
    const hostDir = path.join(os.tmpdir(), (r.beside[0] ?? '').slice(`${r.t.id}.`.length))
    await settleCages()
    expect(existsSync(`${r.cageDir}.${path.basename(hostDir)}`)).toBe(false)
    expect(existsSync(hostDir)).toBe(false)
  }, 60_000)

  it('removes a link the command left where its clone was, never what it points at', async () => {
    const victim = path.join(root, 'victim')
    await mkdir(victim, { recursive: true })
    await writeFile(path.join(victim, 'keep.txt'), 'keep\n')
    // The cage dir is $HOME's parent: the command swaps its own clone for a link out of the cage.
    const r = await run(`rm -rf "$HOME/../git" && ln -s '${victim}' "$HOME/../git" && exit 0`)
    await settleCages()
    expect(await readFile(path.join(victim, 'keep.txt'), 'utf8')).toBe('keep\n')
    expect(r.beside).toHaveLength(1)
    expect(readdirSync(path.join(root, 'workers')).filter(n => n.startsWith(`${r.t.id}.`))).toEqual(
      []
    )
  }, 60_000)
})
