// Issue 29, through dist/: a land: false job runs the fleet and writes nothing anywhere; a
// mode: land job with no model key checks the handed-over bundles and lands them as PRs; a
// tampered hand-over (a gitlink, a history from elsewhere) is refused and nothing of it is pushed.
import { execFile } from 'node:child_process'
import { cp, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { script } from '../../demo/model-server.js'
import { byId, OWNER, REPO, results, type Stack, startStack } from '../../demo/stack.js'

const run = promisify(execFile)
const FULL = `${OWNER}/${REPO}`
const IDS = ['t1', 't2']
const writes = (key: string) =>
  `Write ${key}.txt\n${script({ key, steps: [{ tool: 'Write', input: { file_path: `${key}.txt`, content: `from ${key}\n` } }, { text: `Wrote ${key}.txt.` }] })}`
const TASKS = JSON.stringify(IDS.map(id => ({ id, prompt: writes(id) })))
const WRITES = ['POST', 'PATCH', 'PUT', 'DELETE']

interface Saved {
  outcomes: Array<{
    id: string
    status: string
    branch?: string
    sealed?: { bundle: string; start: string }
  }>
}

const pushes = (stack: Stack) =>
  stack.git.requests.filter(r => r.service === 'git-receive-pack').length
const apiWrites = (stack: Stack) => stack.github.requests.filter(r => WRITES.includes(r.method))

async function git(cwd: string, ...args: string[]): Promise<string> {
  const env = {
    ...process.env,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_AUTHOR_NAME: 'Mallory',
    GIT_AUTHOR_EMAIL: 'm@example.com',
    GIT_COMMITTER_NAME: 'Mallory',
    GIT_COMMITTER_EMAIL: 'm@example.com'
  }
  return (await run('git', args, { cwd, env })).stdout.trim()
}

describe('a read-only job runs the fleet, a separate job lands it', () => {
  let stack: Stack
  let outcomesDir: string
  let scratch: string
  beforeAll(async () => {
    stack = await startStack()
    outcomesDir = await mkdtemp(path.join(tmpdir(), 'fleet-e2e-split-'))
    scratch = await mkdtemp(path.join(tmpdir(), 'fleet-e2e-split-scratch-'))
  })
  afterAll(async () => {
    await stack?.close()
    for (const dir of [outcomesDir, scratch])
      if (dir) await rm(dir, { recursive: true, force: true })
  })

  it('land: false runs two tasks, ends them ready, and writes to neither the remote nor the API', async () => {
    const job = await stack.run({
      inputs: { tasks: TASKS, land: 'false', 'outcomes-dir': outcomesDir }
    })
    expect(job.exitCode, job.stdout + job.stderr).toBe(0)
    const got = byId(job)
    for (const id of IDS) expect(got.get(id)?.status).toBe('ready')
    expect(pushes(stack)).toBe(0)
    expect(apiWrites(stack)).toEqual([])
    expect(stack.github.state.pulls).toHaveLength(0)
    expect(Object.keys(await stack.git.branches(FULL)).filter(b => b.startsWith('fleet/'))).toEqual(
      []
    )
    const saved = JSON.parse(
      await readFile(path.join(outcomesDir, 'fleet-outcomes-0.json'), 'utf8')
    ) as Saved
    for (const o of saved.outcomes) {
      expect(o.sealed?.bundle).toBe(`fleet-bundle-0-${o.id}.bundle`)
      expect(o.sealed?.start).toMatch(/^[0-9a-f]{40}$/)
    }
  })

  it('refuses a tampered hand-over (a gitlink; a history not from the start commit) and pushes nothing', async () => {
    const tampered = path.join(scratch, 'tampered')
    await cp(outcomesDir, tampered, { recursive: true })
    const saved = JSON.parse(
      await readFile(path.join(tampered, 'fleet-outcomes-0.json'), 'utf8')
    ) as Saved
    const start = saved.outcomes[0]?.sealed?.start ?? ''
    const clone = path.join(scratch, 'clone')
    await git(scratch, 'clone', '--quiet', stack.git.repoPath(FULL), clone)
    // t1: descends from its start, but adds a gitlink.
    await git(clone, 'checkout', '--quiet', '-b', 'fleet/t1', start)
    await git(clone, 'update-index', '--add', '--cacheinfo', `160000,${start},vendor/evil`)
    await git(clone, 'commit', '--quiet', '-m', 'gitlink')
    await git(
      clone,
      'bundle',
      'create',
      '--quiet',
      path.join(tampered, 'fleet-bundle-0-t1.bundle'),
      'refs/heads/fleet/t1',
      `^${start}`
    )
    // t2: a history that does not come from the start commit at all.
    await git(clone, 'checkout', '--quiet', '--orphan', 'fleet/t2')
    await writeFile(path.join(clone, 'evil.txt'), 'from elsewhere\n')
    await git(clone, 'add', '-A')
    await git(clone, 'commit', '--quiet', '-m', 'elsewhere')
    await git(
      clone,
      'bundle',
      'create',
      '--quiet',
      path.join(tampered, 'fleet-bundle-0-t2.bundle'),
      'refs/heads/fleet/t2'
    )

    const before = { pushes: pushes(stack), model: stack.model.requests.length }
    const job = await stack.run({
      inputs: { mode: 'land', 'api-key': '', 'outcomes-dir': tampered }
    })
    expect(job.exitCode).not.toBe(0)
    const got = byId(job)
    expect(got.get('t1')?.status).toBe('failed')
    expect(got.get('t1')?.error).toMatch(/refused: the work adds a submodule .*vendor\/evil/)
    expect(got.get('t2')?.status).toBe('failed')
    expect(got.get('t2')?.error).toMatch(
      /refused: the sealed commits do not descend from the task's start commit/
    )
    expect(pushes(stack)).toBe(before.pushes)
    expect(stack.model.requests.length).toBe(before.model)
    expect(stack.github.state.pulls).toHaveLength(0)
  })

  it("refuses a bundle that is a symlink, and an outcome whose branch is not the fleet's", async () => {
    const tampered = path.join(scratch, 'tampered-2')
    await cp(outcomesDir, tampered, { recursive: true })
    const t1 = path.join(tampered, 'fleet-bundle-0-t1.bundle')
    await rm(t1)
    await symlink(path.join(outcomesDir, 'fleet-bundle-0-t1.bundle'), t1)
    const file = path.join(tampered, 'fleet-outcomes-0.json')
    const saved = JSON.parse(await readFile(file, 'utf8')) as Saved
    const t2 = saved.outcomes.find(o => o.id === 't2')
    if (t2) t2.branch = 'main'
    await writeFile(file, JSON.stringify(saved))
    const before = pushes(stack)
    const job = await stack.run({
      inputs: { mode: 'land', 'api-key': '', 'outcomes-dir': tampered }
    })
    expect(job.exitCode).not.toBe(0)
    const got = byId(job)
    expect(got.get('t1')?.error).toMatch(/refused: the sealed result .* is a symlink/)
    expect(got.get('t2')?.error).toMatch(
      /refused: its branch 'main' is outside branch-prefix 'fleet\/'/
    )
    expect(pushes(stack)).toBe(before)
    expect(stack.github.state.pulls).toHaveLength(0)
  })

  it("mode: land with no model key lands both as PRs with exactly the tasks' files, running no worker", async () => {
    const model = stack.model.requests.length
    const job = await stack.run({
      inputs: { mode: 'land', 'api-key': '', 'outcomes-dir': outcomesDir }
    })
    expect(job.exitCode, job.stdout + job.stderr).toBe(0)
    expect(stack.model.requests.length).toBe(model)
    const all = results(job)
    expect(all.map(r => [r.id, r.status])).toEqual(IDS.map(id => [id, 'pr-opened']))
    const bare = stack.git.repoPath(FULL)
    for (const id of IDS) {
      const pr = stack.github.state.pulls.find(p => p.pull.head === `fleet/${id}`)
      expect(pr?.state).toBe('open')
      expect(byId(job).get(id)?.['pr-number']).toBe(pr?.number)
      expect(await git(bare, 'diff', '--name-only', 'main', `fleet/${id}`)).toBe(`${id}.txt`)
      expect(await stack.git.readFile(FULL, `fleet/${id}`, `${id}.txt`)).toBe(`from ${id}\n`)
    }
    expect(stack.github.invalid).toEqual([])
  })

  it('lands land: false shards of a plan, and reports a shard that never handed over as not-started', async () => {
    const dir = path.join(scratch, 'shards')
    const tasks = JSON.stringify(['t3', 't4'].map(id => ({ id, prompt: writes(id) })))
    const plan = await stack.run({ inputs: { tasks, mode: 'plan', 'max-jobs': '2' } })
    expect(plan.exitCode, plan.stdout + plan.stderr).toBe(0)
    const planText = plan.outputs.plan ?? ''
    // Shard 0 (t3) runs with land: false; shard 1 (t4) never reports (a cancelled job, say).
    const shard = await stack.run({
      inputs: { mode: 'run', shard: '0', plan: planText, land: 'false', 'outcomes-dir': dir }
    })
    expect(shard.exitCode, shard.stdout + shard.stderr).toBe(0)
    expect(byId(shard).get('t3')?.status).toBe('ready')
    expect(stack.github.state.pulls.filter(p => p.pull.head === 'fleet/t3')).toHaveLength(0)
    const model = stack.model.requests.length
    const job = await stack.run({
      inputs: { mode: 'land', plan: planText, 'api-key': '', 'outcomes-dir': dir }
    })
    expect(job.exitCode).not.toBe(0)
    expect(job.stdout).toMatch(/shard 1 left no outcome/)
    const got = byId(job)
    expect(got.get('t3')?.status).toBe('pr-opened')
    expect(got.get('t4')?.status).toBe('not-started')
    expect(stack.model.requests.length).toBe(model)
    expect(await stack.git.readFile(FULL, 'fleet/t3', 't3.txt')).toBe('from t3\n')
    expect(Object.keys(await stack.git.branches(FULL))).not.toContain('fleet/t4')
  })
})
