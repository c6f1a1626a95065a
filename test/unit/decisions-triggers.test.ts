// Who may delegate (src/triggers.ts over src/github/access.ts), over the fake GitHub: a writer's
// comment runs, a reader's is refused with a reply, a bot allowed-bots does not list is ignored.
// The fake's checkAccess is the real one, over a stub of the one call it makes.
import { describe, expect, it } from 'vitest'
import { parseConfig } from '../../src/config.js'
import type { RunContext } from '../../src/context.js'
import type { Actor } from '../../src/domain.js'
import { checkAccess } from '../../src/github/access.js'
import type { Client } from '../../src/github/client.js'
import { GitHubError } from '../../src/github/errors.js'
import { inputEnvName } from '../../src/inputs.js'
import type { PullJson } from '../../src/github/github.js'
import { planRequest } from '../../src/triggers.js'
import { RequestError } from '@octokit/request-error'
import { fakeGitHub, type GitHubMethods } from '../support/fake-github.js'

const config = parseConfig({ [inputEnvName('allowed-bots')]: 'helper' })
const ctx = { runId: '1', workspace: '/nowhere' } as RunContext
const issue = { number: 5, title: 'Fix the widget', body: 'It squeaks.', isPullRequest: false }
const person = (login: string): Actor => ({ login, isBot: false })
const bot = (login: string): Actor => ({ login, isBot: true })

/** A GitHub whose permission lookup answers from `roles` (a login not there is a 404). */
function github(roles: Record<string, string>, more: Partial<GitHubMethods> = {}) {
  const said: string[] = []
  const acked: number[] = []
  const moved: { issue: number; remove: string[] }[] = []
  const getCollaboratorPermissionLevel = ({ username }: { username: string }) => {
    const role = roles[username]
    if (role) return Promise.resolve({ data: { role_name: role, permission: role } })
    const error = new RequestError('Not Found', 404, {
      request: { method: 'GET', url: 'https://api.github.com/x', headers: {} }
    })
    return Promise.reject(new GitHubError(error))
  }
  const client = {
    octokit: { rest: { repos: { getCollaboratorPermissionLevel } } },
    repo: { owner: 'acme', repo: 'widgets' }
  } as unknown as Client
  const gh = fakeGitHub({
    checkAccess: (actor, bots) => checkAccess(client, actor, bots),
    commentOn: (_n, body) => Promise.resolve(void said.push(body)),
    ackComment: comment => Promise.resolve(void acked.push(comment.id)),
    moveIssue: (n, _add, remove) => Promise.resolve(void moved.push({ issue: n, remove })),
    ...more
  })
  return { gh, said, acked, moved }
}

const comment = (actor: Actor) =>
  ({ kind: 'comment', issue, commentId: 77, actor, text: '' }) as const

describe('a /fleet comment: who may delegate', () => {
  it('runs the issue for someone with write access, and acknowledges the comment', async () => {
    const g = github({ wri: 'write' })
    const plan = await planRequest(comment(person('wri')), { config, ctx, github: g.gh, log() {} })
    expect(plan.tasks.map(t => t.id)).toEqual(['issue-5'])
    expect(plan.refused).toEqual([])
    expect([g.said, g.acked]).toEqual([[], [77]])
  })

  it('refuses a reader with a reply naming their access, and starts nothing', async () => {
    const g = github({ rea: 'read' })
    const plan = await planRequest(comment(person('rea')), { config, ctx, github: g.gh, log() {} })
    expect(plan.tasks).toEqual([])
    expect(plan.refused.map(o => [o.status, o.error])).toEqual([
      ['refused', '@rea has read access; delegating needs write, maintain or admin']
    ])
    expect(g.said).toHaveLength(1)
    expect(g.said[0]).toContain('@rea Fleet Worker did not start')
    expect(g.acked).toEqual([])
  })

  it('refuses someone who is not a collaborator at all (GitHub says 404)', async () => {
    const g = github({})
    const plan = await planRequest(comment(person('out')), { config, ctx, github: g.gh, log() {} })
    expect(plan.refused[0]?.error).toBe('@out is not a collaborator of this repository')
  })

  it('lets a bot named in allowed-bots delegate without asking GitHub, refuses any other', async () => {
    const g = github({}) // no permission lookup answers: a bot never reaches it
    const listed = await planRequest(comment(bot('helper[bot]')), {
      config,
      ctx,
      github: g.gh,
      log() {}
    })
    expect(listed.tasks.map(t => t.id)).toEqual(['issue-5'])
    const other = await planRequest(comment(bot('chatty[bot]')), {
      config,
      ctx,
      github: g.gh,
      log() {}
    })
    expect(other.tasks).toEqual([])
    expect(other.refused[0]?.error).toBe('@chatty[bot] is a bot not listed in allowed-bots')
  })

  it('a refused label is taken off too, so the next scheduled batch does not run it', async () => {
    const g = github({ rea: 'triage' })
    const plan = await planRequest(
      { kind: 'labeled', issue, actor: person('rea') },
      { config, ctx, github: g.gh, log() {} }
    )
    expect(plan.tasks).toEqual([])
    expect(g.moved).toEqual([{ issue: 5, remove: [config.queueLabel] }])
  })
})

describe('the scheduled queue: the person who applied the label decides', () => {
  it("runs a writer's issue, refuses a reader's (label off), ignores an unlisted bot's quietly", async () => {
    const labelled: Record<number, Actor> = { 1: person('wri'), 2: person('rea'), 3: bot('x[bot]') }
    const g = github(
      { wri: 'maintain', rea: 'read' },
      {
        listQueue: () =>
          Promise.resolve([1, 2, 3].map(n => ({ number: n, title: `t${n}`, body: '' }))),
        labelledBy: n => Promise.resolve(labelled[n])
      }
    )
    const plan = await planRequest({ kind: 'queue' }, { config, ctx, github: g.gh, log() {} })
    expect(plan.tasks.map(t => t.id)).toEqual(['issue-1'])
    expect(plan.refused.map(o => o.id)).toEqual(['issue-2'])
    // The bot's issue: no reply and its label left as it is.
    expect(g.moved.map(m => m.issue)).toEqual([2])
    expect(g.said).toHaveLength(1)
  })
})

describe('a red run on a fleet PR: a fix-up turn, or not', () => {
  const fleetPull = (fixUps: number, fork = false) =>
    ({
      number: 12,
      title: 'Fix the widget',
      state: 'open',
      body: `<!-- fleet-worker:task=t12 fix-ups=${fixUps} -->`,
      head: {
        ref: 'fleet/t12',
        sha: 'c0ffee',
        repo: { full_name: fork ? 'x/widgets' : 'acme/widgets' }
      }
    }) as unknown as PullJson
  const red = (headSha: string) =>
    ({
      kind: 'failed-run',
      run: {
        id: 9,
        name: 'ci',
        url: 'https://example.com/runs/9',
        headBranch: 'fleet/t12',
        headSha,
        conclusion: 'failure'
      }
    }) as const

  it('stops at max-fix-ups and says so on the PR, reading no job log', async () => {
    const stopped: number[] = []
    const gh = fakeGitHub({
      openPrOf: () => Promise.resolve(12),
      getPull: () => Promise.resolve(fleetPull(config.maxFixUps)),
      sayFixUpsStopped: n => Promise.resolve(stopped.push(n) > 0)
    })
    const plan = await planRequest(red('c0ffee'), { config, ctx, github: gh, log() {} })
    expect(plan.tasks).toEqual([])
    expect(plan.ignore).toBe(
      `#12 has had its ${config.maxFixUps} fix-up turns (follow-ups: max-fix-ups); said so on it`
    )
    expect(stopped).toEqual([12])
  })

  it("ignores a run on a commit that is no longer the PR's head", async () => {
    const gh = fakeGitHub({
      openPrOf: () => Promise.resolve(12),
      getPull: () => Promise.resolve(fleetPull(0))
    })
    const plan = await planRequest(red('0ld'), { config, ctx, github: gh, log() {} })
    expect(plan.ignore).toMatch(/^#12's branch has moved on since run 9/)
  })

  it("refuses a /fleet follow-up on a fork's PR with a fleet/ branch, before asking who asked", async () => {
    const g = github({ wri: 'write' }, { getPull: () => Promise.resolve(fleetPull(0, true)) })
    const ref = { ...issue, number: 12, isPullRequest: true }
    const plan = await planRequest(
      { kind: 'follow-up', issue: ref, commentId: 1, actor: person('wri'), text: 'again' },
      { config, ctx, github: g.gh, log() {} }
    )
    expect(plan.refused[0]?.error).toBe('the pull request comes from a fork')
    expect(g.acked).toEqual([])
  })
})
