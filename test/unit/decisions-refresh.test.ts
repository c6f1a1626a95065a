// Keep-fresh's choices that need no git (src/run/refreshing.ts, src/fleet/refresh.ts), over the
// fake GitHub and a fake Isolation: an idle or dry run touches nothing; a branch gone from the
// remote fails the PR; verify runs again in the task's cage, and its answer decides "passed".
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import type { CageCommand, Isolation } from '../../src/cage/isolation.js'
import { parseConfig } from '../../src/config.js'
import type { RunContext } from '../../src/context.js'
import type { VerifyResult } from '../../src/domain.js'
import type { Worktree } from '../../src/git/repo.js'
import { passed, type RefreshContext, refreshPr, verifyAgain } from '../../src/fleet/refresh.js'
import type { FleetPr } from '../../src/github/fleet-prs.js'
import { inputEnvName } from '../../src/inputs.js'
import type { Io } from '../../src/io.js'
import { type RefreshAction, refreshPrs } from '../../src/run/refreshing.js'
import { fakeGitHub, fleetPr } from '../support/fake-github.js'

const pr = (number: number): FleetPr => fleetPr(number)

/** A run whose preparation throws when asked: nothing here may clone, cage or start claude. */
function action(config: RefreshAction['config'], prs: FleetPr[]) {
  const reported: string[] = []
  const io: Pick<Io, 'info' | 'report'> = {
    info() {},
    report: (_o, note) => Promise.resolve(void reported.push(note ?? ''))
  }
  const never = () => Promise.reject(new Error('prepared, but nothing should be'))
  const run: RefreshAction = {
    config,
    ctx: { runId: '1', runnerTemp: '/nowhere' } as RunContext,
    io: io as Io,
    env: {},
    github: fakeGitHub({ listFleetPrs: () => Promise.resolve(prs) }),
    prepare: { remoteUrl: never, isolation: never, claude: never }
  }
  return { run, reported }
}

describe('keep-fresh: what a push to the base does', () => {
  it('with no fleet PR on the base: one listing, nothing prepared', async () => {
    const { run, reported } = action(parseConfig({}), [])
    const got = await refreshPrs(run, { kind: 'refresh', base: 'main', why: 'push' })
    expect(got).toEqual([])
    expect(reported).toEqual(['Nothing to do: no open fleet PR targets main (push).'])
  })

  it('a dry run lists the PRs and touches none (no clone, no update on GitHub)', async () => {
    const config = parseConfig({ [inputEnvName('dry-run')]: 'true' })
    const { run } = action(config, [pr(1), pr(2)])
    const got = await refreshPrs(run, { kind: 'refresh', base: 'main', why: 'push' })
    expect(got.map(o => [o.prNumber, o.status])).toEqual([
      [1, 'not-started'],
      [2, 'not-started']
    ])
  })

  it('a branch gone from the remote fails that PR, before any worktree', async () => {
    const repo = { remoteSha: (ref: string) => Promise.resolve(ref === 'main' ? 'b' : undefined) }
    const ctx = { repo, base: 'main', log() {} } as unknown as RefreshContext
    const got = await refreshPr(ctx, pr(3))
    expect([got.status, got.error]).toEqual(['failed', 'fleet/t3 is not on the remote'])
  })
})

describe("verify again, in the task's cage (a fake Isolation)", () => {
  let root = ''
  afterEach(() => rm(root, { recursive: true, force: true }))

  const tree = { dir: '/w/t4', gitDir: '/w/.git' } as Worktree
  const cage = (answer: Partial<VerifyResult>) => {
    const ran: CageCommand[] = []
    const isolation = {
      seesRunnerPaths: true,
      run: (c: CageCommand) => {
        ran.push(c)
        return Promise.resolve({
          command: c.command,
          exitCode: 0,
          timedOut: false,
          tail: '',
          ...answer
        })
      }
    } as unknown as Isolation
    return { isolation, ran }
  }
  const ctxWith = async (verify: string | undefined, isolation: Isolation) => {
    root = await mkdtemp(path.join(tmpdir(), 'fleet-decide-'))
    const config = { ...parseConfig({}), verify, setup: undefined }
    const host = { PATH: '/usr/bin', ANTHROPIC_API_KEY: 'sk-not-for-verify', GH_TOKEN: 'ghs_x' }
    return { config, root, host, isolation, log() {} } as unknown as RefreshContext
  }

  it('runs verify in the cage on the tree, without the model key or a GitHub token', async () => {
    const { isolation, ran } = cage({ exitCode: 0 })
    const v = await verifyAgain(await ctxWith('npm test', isolation), pr(4), tree)
    expect(passed(v)).toBe(true)
    expect(ran.map(c => [c.label, c.command, c.cwd, c.gitDir])).toEqual([
      ['verify', 'npm test', '/w/t4', '/w/.git']
    ])
    const env = ran[0]?.env ?? {}
    expect(env.HOME).toBe(path.join(root, 'workers', 't4.refresh-verify', 'home'))
    expect(env.ANTHROPIC_API_KEY).toBeUndefined()
    expect(env.GH_TOKEN).toBeUndefined()
  })

  it("the cage's answer decides: a non-zero exit or a timeout is not passed", async () => {
    const failed = await verifyAgain(
      await ctxWith('npm test', cage({ exitCode: 1 }).isolation),
      pr(4),
      tree
    )
    expect(passed(failed)).toBe(false)
    const slow = await verifyAgain(
      await ctxWith('npm test', cage({ timedOut: true }).isolation),
      pr(4),
      tree
    )
    expect(passed(slow)).toBe(false)
  })

  it('without verify, nothing runs in the cage and the refresh counts as passed', async () => {
    const { isolation, ran } = cage({})
    const v = await verifyAgain(await ctxWith(undefined, isolation), pr(4), tree)
    expect([v, passed(v), ran.length]).toEqual([undefined, true, 0])
  })
})
