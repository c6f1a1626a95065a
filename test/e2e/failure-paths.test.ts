// Issue 13, through dist/ and the real claude CLI: whatever breaks inside a task's life, the task
// ends in one reported outcome whose error names the cause, and the work it produced is kept.
import { execFile } from 'node:child_process'
import { chmod, mkdir, readFile, stat, symlink, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { expectOk, useStack, useTemp } from '../support/scenario.js'
import { bash, expectNoOrphans, fleetDir, uniqueSleep, write } from './faults-support.js'
import { scripted } from './landing-support.js'
import { byId, GITHUB_TOKEN, OWNER, REPO } from '../../demo/stack.js'

const FULL = `${OWNER}/${REPO}`
const exec = promisify(execFile)

/** `/proc/<pid>/stat` of a process still running (zombies count as gone), else undefined. */
async function running(pid: number): Promise<string | undefined> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => undefined)
  return stat && !/^\d+ \(.*\) Z /.test(stat) ? stat : undefined
}

describe('failure paths inside a task', () => {
  const stack = useStack()
  const scratch = useTemp('fleet-e2e-i13-')

  it('a verify that leaves a setsid daemon holding its stdout, with a verify timeout: reported, daemon killed, no wait for it', async () => {
    // The shell exits at once; the daemon keeps its stdout open in a session of its own. Before,
    // the wait for 'close' waited for the daemon, and at the verify timeout the group kill threw
    // ESRCH outside any try: the action died with no outcome, no summary, no outputs.
    const pidFile = path.join(scratch, 'verify-daemon.pid')
    // Its own sleep: the orphan check looks for its command line, and another file's test may run
    // a `setsid sleep 300` of its own at the same time (CI saw this one wait 30 s for it).
    const sleep = uniqueSleep()
    const verify = `(setsid ${sleep} & echo $! > ${pidFile}); echo verify-ran`
    const tasks = [{ id: 'daemon', prompt: scripted('daemon', [write('d.txt', 'd\n')]) }]
    // isolation: process, where verify shares the runner's process table and /tmp: in the sandbox
    // its PID namespace dies with it, daemon and all (sandbox.test.ts).
    const run = await stack.run({
      inputs: {
        tasks: JSON.stringify(tasks),
        verify,
        'verify-timeout-minutes': '0.05',
        isolation: 'process'
      }
    })
    expectOk(run)
    const out = byId(run).get('daemon')
    expect(out?.status, out?.error ?? '').toBe('pr-opened')
    const pr = stack.github.state.pulls.find(p => p.pull.head === 'fleet/daemon')
    expect(pr?.body).toContain('### Verify: passed')
    expect(pr?.body).toContain('verify-ran')
    // Well inside the 3 s verify timeout plus the 2 s bounded wait: nothing waited for the daemon.
    expect(out?.['duration-ms']).toBeLessThan(60_000)
    const daemon = Number(await readFile(pidFile, 'utf8'))
    expect(daemon).toBeGreaterThan(0)
    expect(await running(daemon), 'the verify daemon is still running').toBeUndefined()
    expect(run.summary).toContain('daemon')
    await expectNoOrphans(run, sleep)
  })

  it('a worker that leaves index.lock: the stale lock is cleared and the work lands; a broken index: the worktree is kept and the error says where', async () => {
    const tasks = [
      {
        id: 'locked',
        prompt: scripted('locked', [
          write('kept.txt', 'kept\n'),
          bash('touch "$(git rev-parse --git-dir)/index.lock"')
        ])
      },
      {
        id: 'corrupt',
        prompt: scripted('corrupt', [
          write('lost.txt', 'not lost\n'),
          bash('echo garbage > "$(git rev-parse --git-dir)/index"')
        ])
      }
    ]
    // isolation: process, where the worker's git is the fleet's worktree: in the sandbox (and a
    // container) it has a clone of its own, and its index and locks never reach the action's git.
    const run = await stack.run({ inputs: { tasks: JSON.stringify(tasks), isolation: 'process' } })
    expect(run.exitCode, run.stdout).not.toBe(0)
    const out = byId(run)

    const locked = out.get('locked')
    expect(locked?.status, locked?.error ?? '').toBe('pr-opened')
    expect(await stack.git.readFile(FULL, 'fleet/locked', 'kept.txt')).toBe('kept\n')

    // git cannot read its index at all: the seal in the task's cage fails (never "no changes"),
    // the task fails naming git's own words, and the worktree holding the worker's file stays.
    const corrupt = out.get('corrupt')
    expect(corrupt?.status).toBe('failed')
    expect(corrupt?.error).toMatch(/could not be sealed in its cage \(exit 6: .*index/)
    const kept = /its files are kept at (\S+)$/.exec(corrupt?.error ?? '')?.[1]
    expect(kept, corrupt?.error ?? '').toBeDefined()
    expect(await readFile(path.join(kept ?? '', 'lost.txt'), 'utf8')).toBe('not lost\n')
    expect((await stat(kept ?? '')).isDirectory()).toBe(true)
    expect(run.stdout).toMatch(
      /\[corrupt\] failed: the task's work could not be sealed in its cage/
    )
    await expectNoOrphans(run)
  })

  it('git runs with a minimal environment, the fleet clone carries no userinfo from the checkout, the basic-auth form is masked', async () => {
    // A wrapper in front of git records each git process's environment, then runs the real git.
    const bin = path.join(scratch, 'bin')
    const log = path.join(scratch, 'git-env.log')
    const realGit = (await exec('sh', ['-c', 'command -v git'])).stdout.trim()
    await mkdir(bin, { recursive: true })
    await writeFile(
      path.join(bin, 'git'),
      `#!/bin/sh\n{ tr '\\0' '\\n' < /proc/$$/environ; echo '----'; } >> ${log}\nexec ${realGit} "$@"\n`
    )
    await chmod(path.join(bin, 'git'), 0o755)
    // A checkout whose origin holds the token in its URL (a user:token@ remote).
    const withToken = stack.cloneUrl.replace('://', `://x-access-token:${GITHUB_TOKEN}@`)
    await exec('git', ['-C', stack.workspace, 'remote', 'set-url', 'origin', withToken])
    try {
      const tasks = [{ id: 'envcheck', prompt: scripted('envcheck', [write('e.txt', 'e\n')]) }]
      const run = await stack.run({
        inputs: { tasks: JSON.stringify(tasks) },
        env: { PATH: `${bin}:${process.env.PATH ?? ''}` }
      })
      expectOk(run)
      expect(byId(run).get('envcheck')?.status).toBe('pr-opened')
      const basic = Buffer.from(`x-access-token:${GITHUB_TOKEN}`).toString('base64')
      expect(run.stdout).toContain(`::add-mask::${basic}`)

      const envs = (await readFile(log, 'utf8')).split('----\n').filter(Boolean)
      expect(envs.length).toBeGreaterThan(5)
      for (const env of envs) {
        expect(env).not.toContain(GITHUB_TOKEN)
        expect(env).not.toMatch(/^(INPUT_|ACTIONS_|GITHUB_TOKEN=)/m)
      }
      // The push still authenticated, through the command's own extraheader.
      expect(envs.some(e => e.includes(`AUTHORIZATION: basic ${basic}`))).toBe(true)
      const config = await readFile(
        path.join(await fleetDir(run), 'repo', '.git', 'config'),
        'utf8'
      )
      expect(config).toContain(`url = ${stack.cloneUrl}`)
      expect(config).not.toContain(GITHUB_TOKEN)
    } finally {
      await exec('git', ['-C', stack.workspace, 'remote', 'set-url', 'origin', stack.cloneUrl])
    }
  })

  it('a tasks-file or a skill that is a symlink to outside the workspace is refused; a symlink inside it is followed', async () => {
    const outside = path.join(scratch, 'outside.yml')
    await writeFile(outside, '- id: stolen\n  prompt: never runs\n')
    await symlink(outside, path.join(stack.workspace, 'evil.yml'))
    const skill = path.join(scratch, 'skill')
    await mkdir(skill, { recursive: true })
    await writeFile(path.join(skill, 'SKILL.md'), '---\nname: evil\n---\n')
    await symlink(skill, path.join(stack.workspace, 'evil-skill'))
    await writeFile(path.join(stack.workspace, 'real.yml'), '- id: inside\n  prompt: fine\n')
    await symlink('real.yml', path.join(stack.workspace, 'alias.yml'))
    const before = stack.model.requests.length

    const file = await stack.run({ inputs: { 'tasks-file': 'evil.yml' } })
    expect(file.exitCode).not.toBe(0)
    expect(file.stdout).toMatch(/::error::Input 'tasks-file': 'evil\.yml' is outside the workspace/)
    const skills = await stack.run({
      inputs: { tasks: 'say hi', skills: 'evil-skill' }
    })
    expect(skills.exitCode).not.toBe(0)
    expect(skills.stdout).toMatch(/::error::Input 'skills': 'evil-skill' is not a folder inside/)
    expect(stack.model.requests.length).toBe(before)

    const alias = await stack.run({ inputs: { 'tasks-file': 'alias.yml', 'dry-run': 'true' } })
    expect(alias.exitCode, alias.stdout).toBe(0)
    expect(byId(alias).get('inside')?.status).toBe('not-started')
  })
})
