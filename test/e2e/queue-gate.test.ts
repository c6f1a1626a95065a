// Issue 13, through dist/: the scheduled queue runs only issues whose queue label was applied by
// someone with write access (the issue's `labeled` events name who did); others are refused as a
// comment would be.
import { describe, expect, it } from 'vitest'
import { useStack } from '../support/scenario.js'
import { schedule } from '../support/events.js'
import { byId, OWNER, REPO } from '../../demo/stack.js'
import { COLLABORATORS, labelsOf, MARKER, pullsFor, slug, wordsToFile } from './triggers-support.js'

const nightly = () => schedule({ owner: OWNER, repo: REPO, cron: '17 3 * * *' })

describe('who queued an issue', () => {
  const stack = useStack({
    model: { defaultScript: wordsToFile },
    github: { collaborators: { ...COLLABORATORS, tess: 'triage' } }
  })

  it("runs the issue a writer labelled; a triager's and a reader's labels are refused with a reply, taken off, and no worker runs", async () => {
    const seed = (title: string, labeledBy: string) =>
      stack.github.addIssue({
        title,
        body: `${title}, please.`,
        labels: ['fleet'],
        user: 'rita',
        labeledBy
      }).number
    const byWriter = seed('Write notes/by-writer.md', 'maria')
    const byTriager = seed('Write notes/by-triager.md', 'tess')
    const byReader = seed('Write notes/by-reader.md', 'rita')
    // A bot allowed-bots does not list: ignored quietly, as its comment would be.
    const byBot = seed('Write notes/by-bot.md', 'renovate[bot]')

    const run = await stack.run({ eventName: 'schedule', payload: nightly() })
    expect(run.exitCode, run.stdout).not.toBe(0)
    const out = byId(run)
    expect(out.get(`issue-${byWriter}`)?.status).toBe('pr-opened')
    expect(pullsFor(stack, `fleet/issue-${byWriter}`)).toHaveLength(1)
    for (const [issue, who, role] of [
      [byTriager, 'tess', 'triage'],
      [byReader, 'rita', 'read']
    ] as const) {
      const r = out.get(`issue-${issue}`)
      expect(r?.status).toBe('refused')
      expect(r?.error).toBe(`@${who} has ${role} access; delegating needs write, maintain or admin`)
      const replies = stack.github.state.comments.filter(c => c.issue_number === issue)
      expect(replies.map(c => c.body)).toEqual([
        // The reason is inert prose (it may quote issue text): only the reply's own mention is live.
        `@${who} Fleet Worker did not start: @\u200b${who} has ${role} access; delegating needs write, maintain or admin.`
      ])
      expect(labelsOf(stack, issue)).toEqual([])
      const title = stack.github.state.issue(issue)?.title ?? ''
      expect(stack.model.requestsFor(slug(title))).toEqual([])
      expect(pullsFor(stack, `fleet/issue-${issue}`)).toEqual([])
    }
    expect(out.has(`issue-${byBot}`)).toBe(false)
    expect(stack.github.state.comments.filter(c => c.issue_number === byBot)).toEqual([])
    expect(labelsOf(stack, byBot)).toEqual(['fleet'])
    expect(stack.model.requestsFor(slug('Write notes/by-bot.md'))).toEqual([])
    expect(run.stdout).toContain(
      `queue: #${byBot}: @renovate[bot] is a bot not listed in allowed-bots: ignored without a reply`
    )
    // The events were asked for, and every request matched GitHub's description.
    expect(stack.github.requests.filter(r => /\/issues\/\d+\/events$/.test(r.path))).toHaveLength(4)
    expect(stack.github.invalid).toEqual([])
  })

  it('takes back an issue left fleet:in-progress by a run that is no longer in progress; leaves one whose run still is', async () => {
    const seed = (title: string, run: number, status: 'completed' | 'in_progress') => {
      const n = stack.github.addIssue({
        title,
        body: `${title}, please.`,
        labels: ['fleet', 'fleet:in-progress'],
        user: 'maria'
      }).number
      // The live comment an earlier run wrote, with its "Latest run" link.
      const link = `http://127.0.0.1/${OWNER}/${REPO}/actions/runs/${run}`
      stack.github.addComment(n, `${MARKER}\n### Fleet Worker\n\n[Latest run](${link})`)
      stack.github.state.runs.set(run, {
        id: run,
        status,
        conclusion: status === 'completed' ? 'cancelled' : null
      })
      return n
    }
    const left = seed('Write notes/left-behind.md', 555, 'completed')
    const busy = seed('Write notes/still-running.md', 556, 'in_progress')
    // Someone posted a marker comment with a finished run's link: not ours, so not trusted.
    const forged = stack.github.addIssue({
      title: 'Write notes/forged.md',
      body: 'x',
      labels: ['fleet', 'fleet:in-progress'],
      user: 'maria'
    }).number
    stack.github.addComment(
      forged,
      `${MARKER}\n[Latest run](http://127.0.0.1/${OWNER}/${REPO}/actions/runs/555)`,
      'rita'
    )

    const run = await stack.run({ eventName: 'schedule', payload: nightly() })
    expect(run.exitCode, run.stdout).toBe(0)
    const out = byId(run)
    expect(out.get(`issue-${left}`)?.status).toBe('pr-opened')
    expect(run.stdout).toContain(
      `queue: #${left} was left fleet:in-progress by run 555 (completed): taken back`
    )
    expect(labelsOf(stack, left)).toEqual(['fleet:done'])
    expect(out.has(`issue-${busy}`)).toBe(false)
    expect(labelsOf(stack, busy)).toEqual(['fleet', 'fleet:in-progress'])
    expect(out.has(`issue-${forged}`)).toBe(false)
    expect(labelsOf(stack, forged)).toEqual(['fleet', 'fleet:in-progress'])
    expect(
      stack.github.requests
        .filter(r => /\/actions\/runs\/\d+$/.test(r.path))
        .map(r => r.path)
        .sort()
    ).toEqual([
      `/repos/${OWNER}/${REPO}/actions/runs/555`,
      `/repos/${OWNER}/${REPO}/actions/runs/556`
    ])
    expect(stack.github.invalid).toEqual([])
  })
})
