// The landing train's choices (src/modes/merge.ts, src/fleet/train.ts) over the fake GitHub: which
// fleet PRs ride, which wait and why, a PR a person opened left alone, and GitHub's refusal of a
// merge leaving the PR waiting with GitHub's words.
import { describe, expect, it } from 'vitest'
import { parseConfig } from '../../src/config.js'
import type { RunContext } from '../../src/context.js'
import type { Outcome } from '../../src/domain.js'
import { merge, type TrainContext } from '../../src/fleet/train.js'
import type { FleetPr } from '../../src/github/fleet-prs.js'
import type { ReviewSeen } from '../../src/github/merge.js'
import { inputEnvName } from '../../src/inputs.js'
import type { Io } from '../../src/io.js'
import { landingTrain } from '../../src/modes/merge.js'
import type { RefreshAction } from '../../src/run/refreshing.js'
import { fakeGitHub, fleetPr } from '../support/fake-github.js'

const HEAD = 'a'.repeat(40)
const pr = (number: number, more: Partial<FleetPr> = {}): FleetPr =>
  fleetPr(number, { headSha: HEAD, ...more })
let id = 0
const review = (login: string, state: string, at: string): ReviewSeen => ({
  id: ++id,
  login,
  isBot: false,
  state,
  commitId: HEAD,
  submittedAt: `2026-01-0${at}T00:00:00Z`
})

const io = (): Io => ({
  info() {},
  warning() {},
  setSecret() {},
  setOutput() {},
  group: (_n, fn) => fn(),
  report: () => Promise.resolve()
})

describe('which fleet PRs the train takes (a dry run: nothing is cloned or merged)', () => {
  it('rides a writer-approved PR; holds a reader-approved one, a changes-requested one and a draft', async () => {
    const prs = [
      pr(1),
      pr(2),
      pr(3),
      pr(4, { draft: true }),
      pr(5, { author: { login: 'someone', type: 'User' } })
    ]
    const reviews: Record<number, ReviewSeen[]> = {
      1: [review('wri', 'APPROVED', '1')],
      2: [review('rea', 'APPROVED', '1')],
      // The writer approved, then asked for changes: the latest review stands.
      3: [review('wri', 'APPROVED', '1'), review('wri', 'CHANGES_REQUESTED', '2')],
      // A draft nobody approved waits as a draft (an approved one rides to the train's draft stop).
      4: []
    }
    const asked: number[] = []
    const github = fakeGitHub({
      defaultBranch: () => Promise.resolve('main'),
      listFleetPrs: () => Promise.resolve(prs),
      tokenIdentity: () => Promise.resolve({ kind: 'user', login: 'fleet-bot' }),
      repoMergeSettings: () =>
        Promise.resolve({ merge: true, squash: true, rebase: true, autoMerge: false }),
      reviewsOf: n => {
        asked.push(n)
        return Promise.resolve(reviews[n] ?? [])
      },
      writersOf: () => people => Promise.resolve(new Set(people.filter(p => p === 'wri'))),
      putRefreshSection: () => Promise.resolve()
    })
    const run = {
      config: parseConfig({
        [inputEnvName('dry-run')]: 'true',
        [inputEnvName('mark-ready')]: 'false'
      }),
      ctx: { runId: '1', runnerTemp: '/nowhere' } as RunContext,
      io: io(),
      env: {},
      github,
      prepare: {} as RefreshAction['prepare']
    }
    const got = await landingTrain(run, { kind: 'train', why: 'test' })
    const by = (n: number) => got.find(o => o.prNumber === n)
    expect(by(1)?.status).toBe('not-started') // would land: the dry run stops there
    expect(by(1)?.error).toBe('dry-run: would land')
    expect(by(2)?.status).toBe('waiting')
    expect(by(2)?.error).toMatch(/^approved only by rea, without write access/)
    expect(by(3)?.status).toBe('waiting')
    expect(by(3)?.error).toMatch(/^changes requested by wri/)
    expect([by(4)?.status, by(4)?.error]).toEqual(['waiting', '#4 is a draft: drafts never land'])
    // A PR a person opened is never the train's: not considered, its reviews not even read.
    expect(by(5)).toBeUndefined()
    expect(asked.sort()).toEqual([1, 2, 3, 4])
  })
})

describe('/fleet merge: who may start the train', () => {
  it('refuses someone without write access with a reply, and lists no PR', async () => {
    const said: string[] = []
    const github = fakeGitHub({
      checkAccess: () =>
        Promise.resolve({ allowed: false, reason: '@rea has read access; delegating needs write' }),
      commentOn: (_n, body) => Promise.resolve(void said.push(body))
    })
    const run = {
      config: parseConfig({}),
      ctx: { runId: '1', runnerTemp: '/nowhere' } as RunContext,
      io: io(),
      env: {},
      github,
      prepare: {} as RefreshAction['prepare']
    }
    const issue = { number: 3, title: 'pr', body: '', isPullRequest: true }
    const got = await landingTrain(run, {
      kind: 'train',
      why: '/fleet merge',
      issue,
      commentId: 4,
      actor: { login: 'rea', isBot: false }
    })
    expect(got.map(o => [o.id, o.status])).toEqual([['pr-3', 'refused']])
    expect(said).toHaveLength(1)
    expect(said[0]).toMatch(/^@rea Fleet Worker did not start the landing train: .*read access/)
  })
})

describe("GitHub's answer to the train's merge", () => {
  const ctx = (github: TrainContext['github'], autoMerge: boolean): TrainContext =>
    ({
      github,
      base: 'main',
      method: 'squash',
      autoMerge,
      markReady: false,
      rules: { requiredChecks: ['ci', 'lint'], mergeQueue: false },
      log() {}
    }) as unknown as TrainContext

  it('a refusal for checks leaves the PR waiting, naming the checks not passed; auto-merge asked', async () => {
    const said: string[] = []
    const auto: string[] = []
    const github = fakeGitHub({
      mergePr: () =>
        Promise.resolve({
          merged: false,
          status: 405,
          message: 'Required status check "ci" is expected.'
        }),
      passedChecks: () => Promise.resolve(['lint']),
      enableAutoMerge: p => Promise.resolve(void auto.push(p.sha)),
      sayOnPr: (_n, s) => {
        said.push(s.body)
        return Promise.resolve('new' as const)
      },
      relabel: () => Promise.resolve()
    })
    const o: Outcome = await merge(ctx(github, true), pr(7), { landing: HEAD, pushed: false })
    expect(o.status).toBe('waiting')
    expect(o.error).toContain('GitHub said (405): Required status check "ci" is expected.')
    expect(o.error).toContain('Required checks not passed on aaaaaaa: ci.')
    expect(o.error).toContain('Auto-merge is on')
    expect(auto).toEqual([HEAD])
    expect(said).toHaveLength(1)
  })

  it('a merged answer is merged; a 403 fails (the token), not waits', async () => {
    const merged = fakeGitHub({
      mergePr: () => Promise.resolve({ merged: true, sha: 'b'.repeat(40) }),
      relabel: () => Promise.resolve()
    })
    const ok = await merge(ctx(merged, false), pr(8), { landing: HEAD, pushed: false })
    expect(ok.status).toBe('merged')
    const forbidden = fakeGitHub({
      mergePr: () => Promise.resolve({ merged: false, status: 403, message: 'Forbidden' })
    })
    const no = await merge(ctx(forbidden, false), pr(9), { landing: HEAD, pushed: false })
    expect(no.status).toBe('failed')
    expect(no.error).toMatch(/the token needs contents: write/)
  })
})
