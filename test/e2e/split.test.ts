// Issue 29, through dist/: a land: false job holding only a read-only token (the stand-ins refuse
// its pushes and API writes as GitHub does) runs the fleet and attempts no write; a mode: land job
// with the write token, no model key and no model server reachable checks the handed-over bundles,
// read from the layout actions/download-artifact leaves, and lands them as PRs; a tampered
// hand-over (a gitlink, a history from elsewhere, a swapped start or bundle, an oversized or
// symlinked bundle, a branch renamed) is refused with a sentence and nothing of it is pushed.
import { execFile } from 'node:child_process'
import { cp, mkdtemp, readFile, rm, stat, symlink, truncate, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { expectOk } from '../support/scenario.js'
import { script } from '../../demo/model-server.js'
import { extraheaderValue } from '../../demo/git-remote.js'
import { byId, OWNER, READ_TOKEN, REPO, results, type Stack, startStack } from '../../demo/stack.js'

const run = promisify(execFile)
const FULL = `${OWNER}/${REPO}`
const IDS = ['t1', 't2']
const writes = (key: string) =>
  `Write ${key}.txt\n${script({ key, steps: [{ tool: 'Write', input: { file_path: `${key}.txt`, content: `from ${key}\n` } }, { text: `Wrote ${key}.txt.` }] })}`
const TASKS = JSON.stringify(IDS.map(id => ({ id, prompt: writes(id) })))
const WRITES = ['POST', 'PATCH', 'PUT', 'DELETE']
// Nothing listens there: a land job that tried the model would fail to connect.
const NO_MODEL = { 'api-key': '', 'base-url': 'http://127.0.0.1:9' }
// actions/download-artifact without `name:` (several artifacts) puts each in a directory of its name.
const ARTIFACT = 'fleet-hand-over'

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
    // The run job's checkout as split.yml makes it: persist-credentials: false.
    stack = await startStack({ workspace: { credentials: 'none' } })
    outcomesDir = await mkdtemp(path.join(tmpdir(), 'fleet-e2e-split-'))
    scratch = await mkdtemp(path.join(tmpdir(), 'fleet-e2e-split-scratch-'))
  })
  afterAll(async () => {
    await stack?.close()
    for (const dir of [outcomesDir, scratch])
      if (dir) await rm(dir, { recursive: true, force: true })
  })

  it('land: false with only a read-only token runs two tasks, ends them ready, and attempts no write', async () => {
    // The stack's checkout fetched with the write token; the job's own requests start here.
    const from = stack.git.requests.length
    const job = await stack.run({
      inputs: {
        tasks: TASKS,
        land: 'false',
        'outcomes-dir': path.join(outcomesDir, ARTIFACT),
        'github-token': READ_TOKEN
      }
    })
    expectOk(job)
    const got = byId(job)
    for (const id of IDS) expect(got.get(id)?.status).toBe('ready')
    // It did read with that token (the clone), and nothing was tried that the stand-ins refuse.
    const mine = stack.git.requests.slice(from)
    expect(mine.some(r => r.permission === 'read')).toBe(true)
    expect(mine.filter(r => r.permission !== 'read')).toEqual([])
    expect(stack.git.refused).toEqual([])
    expect(stack.github.refused).toEqual([])
    expect(pushes(stack)).toBe(0)
    expect(apiWrites(stack)).toEqual([])
    // ... and they would have been refused: this token cannot push to this remote.
    const tried = await git(
      stack.workspace,
      '-c',
      `http.extraheader=${extraheaderValue(READ_TOKEN)}`,
      'push',
      'origin',
      'HEAD:refs/heads/fleet/t1'
    ).then(
      () => '',
      (e: unknown) => String((e as { stderr?: string }).stderr)
    )
    expect(tried).toMatch(/Permission to acme\/widgets\.git denied .*\n.*returned error: 403/)
    expect(stack.git.refused).toHaveLength(1)
    expect(stack.github.state.pulls).toHaveLength(0)
    expect(Object.keys(await stack.git.branches(FULL)).filter(b => b.startsWith('fleet/'))).toEqual(
      []
    )
    const saved = JSON.parse(
      await readFile(path.join(outcomesDir, ARTIFACT, 'fleet-outcomes-0.json'), 'utf8')
    ) as Saved
    for (const o of saved.outcomes) {
      expect(o.sealed?.bundle).toBe(`fleet-bundle-0-${o.id}.bundle`)
      expect(o.sealed?.start).toMatch(/^[0-9a-f]{40}$/)
    }
  })

  it('refuses a tampered hand-over (a gitlink; a history not from the start commit) and pushes nothing', async () => {
    const tampered = path.join(scratch, 'tampered')
    await cp(path.join(outcomesDir, ARTIFACT), tampered, { recursive: true })
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
      inputs: { mode: 'land', ...NO_MODEL, 'outcomes-dir': tampered }
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
    await cp(path.join(outcomesDir, ARTIFACT), tampered, { recursive: true })
    const t1 = path.join(tampered, 'fleet-bundle-0-t1.bundle')
    await rm(t1)
    await symlink(path.join(outcomesDir, ARTIFACT, 'fleet-bundle-0-t1.bundle'), t1)
    const file = path.join(tampered, 'fleet-outcomes-0.json')
    const saved = JSON.parse(await readFile(file, 'utf8')) as Saved
    const t2 = saved.outcomes.find(o => o.id === 't2')
    if (t2) t2.branch = 'main'
    await writeFile(file, JSON.stringify(saved))
    const before = pushes(stack)
    const job = await stack.run({
      inputs: { mode: 'land', ...NO_MODEL, 'outcomes-dir': tampered }
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

  it('refuses a swapped start commit, a replaced bundle, an oversized one and a missing one, keeping what it was handed', async () => {
    const read = async (dir: string) => {
      const file = path.join(dir, 'fleet-outcomes-0.json')
      return { file, saved: JSON.parse(await readFile(file, 'utf8')) as Saved }
    }
    const clone = path.join(scratch, 'clone')
    // t1: its start commit swapped for one the remote never had; t2: its bundle replaced by t1's.
    const swapped = path.join(scratch, 'tampered-3')
    await cp(path.join(outcomesDir, ARTIFACT), swapped, { recursive: true })
    const elsewhere = await git(clone, 'commit-tree', '-m', 'not on the remote', 'HEAD^{tree}')
    const first = await read(swapped)
    const t1 = first.saved.outcomes.find(o => o.id === 't1')
    if (t1?.sealed) t1.sealed.start = elsewhere
    await writeFile(first.file, JSON.stringify(first.saved))
    await cp(
      path.join(swapped, 'fleet-bundle-0-t1.bundle'),
      path.join(swapped, 'fleet-bundle-0-t2.bundle')
    )
    // t1: a bundle over the 512 MiB cap (sparse: no disk used); t2: its bundle gone.
    const big = path.join(scratch, 'tampered-4')
    await cp(path.join(outcomesDir, ARTIFACT), big, { recursive: true })
    await truncate(path.join(big, 'fleet-bundle-0-t1.bundle'), 513 * 1024 * 1024)
    await rm(path.join(big, 'fleet-bundle-0-t2.bundle'))

    const before = pushes(stack)
    const one = await stack.run({ inputs: { mode: 'land', ...NO_MODEL, 'outcomes-dir': swapped } })
    expect(one.exitCode).not.toBe(0)
    const got = byId(one) as Map<
      string,
      { status: string; error: string | null; preserved?: string | null }
    >
    expect(got.get('t1')?.status).toBe('failed')
    expect(got.get('t1')?.error).toMatch(
      new RegExp(
        `refused: its start commit ${elsewhere.slice(0, 12)} is not on the remote's main; it is kept in \\S+\\.bundle \\(git bundle\\), not pushed`
      )
    )
    expect(got.get('t2')?.error).toMatch(
      /refused: the sealed result holds refs\/heads\/fleet\/t1 instead of the task's branch refs\/heads\/fleet\/t2 alone/
    )
    for (const id of IDS) {
      const kept = got.get(id)?.preserved ?? ''
      expect(kept, id).toMatch(/\.bundle$/)
      expect((await stat(kept)).size, id).toBeGreaterThan(0)
    }

    const two = await stack.run({ inputs: { mode: 'land', ...NO_MODEL, 'outcomes-dir': big } })
    expect(two.exitCode).not.toBe(0)
    const gotTwo = byId(two)
    expect(gotTwo.get('t1')?.error).toMatch(
      /refused: the sealed result is 537919488 bytes, over the cap of 536870912; nothing was pushed/
    )
    expect(gotTwo.get('t2')?.error).toMatch(
      /refused: its bundle fleet-bundle-0-t2\.bundle is missing/
    )
    expect(pushes(stack)).toBe(before)
    expect(stack.github.state.pulls).toHaveLength(0)
  })

  it("mode: land with the write token and no model lands both as PRs with exactly the tasks' files, from download-artifact's layout", async () => {
    const model = stack.model.requests.length
    // outcomesDir/<artifact name>/...: what actions/download-artifact leaves for several artifacts.
    const job = await stack.run({
      inputs: { mode: 'land', ...NO_MODEL, 'outcomes-dir': outcomesDir }
    })
    expect(job.exitCode, job.stdout + job.stderr + (job.outputs.results ?? '')).toBe(0)
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
    expect(stack.git.refused).toHaveLength(1) // the test's own push above, no other
    expect(stack.github.refused).toEqual([])
  })

  it('lands land: false shards of a plan, and reports a shard that never handed over as not-started', async () => {
    const dir = path.join(scratch, 'shards')
    const tasks = JSON.stringify(['t3', 't4'].map(id => ({ id, prompt: writes(id) })))
    const plan = await stack.run({ inputs: { tasks, mode: 'plan', 'max-jobs': '2' } })
    expectOk(plan)
    const planText = plan.outputs.plan ?? ''
    // Shard 0 (t3) runs with land: false; shard 1 (t4) never reports (a cancelled job, say).
    // Each shard uploads its own artifact; the land job downloads them all, one directory each.
    const shard = await stack.run({
      inputs: {
        mode: 'run',
        shard: '0',
        plan: planText,
        land: 'false',
        'outcomes-dir': path.join(dir, `${ARTIFACT}-0`),
        'github-token': READ_TOKEN
      }
    })
    expectOk(shard)
    expect(byId(shard).get('t3')?.status).toBe('ready')
    expect(stack.github.state.pulls.filter(p => p.pull.head === 'fleet/t3')).toHaveLength(0)
    const model = stack.model.requests.length
    const job = await stack.run({
      inputs: { mode: 'land', plan: planText, ...NO_MODEL, 'outcomes-dir': dir }
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
