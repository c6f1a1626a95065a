import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { APP_REPO, EVENT_SETTINGS, loginComment } from '../support/unit.js'
import { afterPhrase, readEvent, type EventSettings } from '../../src/event.js'
import { issuesLabeled, issuesOpened, push, schedule, workflowDispatch } from '../support/events.js'

const settings: EventSettings = EVENT_SETTINGS
const repo = APP_REPO
const comment = loginComment

describe('readEvent: issue comments', () => {
  it("'/fleet do x' delegates 'do x', with the issue, comment and commenter", () => {
    const request = readEvent('issue_comment', comment('/fleet do x'), settings)
    expect(request).toEqual({
      kind: 'comment',
      issue: {
        number: 12,
        title: 'Login is broken',
        body: '- [ ] fix login\n- [ ] add a test',
        isPullRequest: false
      },
      commentId: 555,
      actor: { login: 'maintainer', isBot: false },
      text: 'do x'
    })
  })

  it("'/fleet' alone delegates with empty text (the checklist, or the issue)", () => {
    expect(readEvent('issue_comment', comment('/fleet'), settings)).toMatchObject({
      kind: 'comment',
      text: ''
    })
    expect(readEvent('issue_comment', comment('  /fleet  \n'), settings)).toMatchObject({
      kind: 'comment',
      text: ''
    })
  })

  it('the text may start on the next line and span several', () => {
    expect(readEvent('issue_comment', comment('/fleet\nfix a\nand b'), settings)).toMatchObject({
      text: 'fix a\nand b'
    })
  })

  it.each(['/fleetwood please', 'please /fleet do x', 'hello', '', '/flee do x'])(
    "'%s' is ignored",
    body => {
      expect(readEvent('issue_comment', comment(body), settings).kind).toBe('ignore')
    }
  )

  it('honours a custom trigger phrase', () => {
    const custom = { ...settings, triggerPhrase: '@bot run' }
    expect(readEvent('issue_comment', comment('@bot run tidy up'), custom)).toMatchObject({
      kind: 'comment',
      text: 'tidy up'
    })
    expect(readEvent('issue_comment', comment('/fleet tidy up'), custom).kind).toBe('ignore')
  })

  it('an edited comment is ignored, even one that now starts with the phrase', () => {
    const edited = comment('/fleet do x', { action: 'edited', previousBody: 'typo' })
    expect(edited.action).toBe('edited')
    expect(readEvent('issue_comment', edited, settings).kind).toBe('ignore')
  })

  it('a comment on a pull request is a follow-up on that PR', () => {
    const request = readEvent(
      'issue_comment',
      comment('/fleet also handle null', { onPullRequest: true }),
      settings
    )
    expect(request).toMatchObject({
      kind: 'follow-up',
      text: 'also handle null',
      issue: { number: 12, isPullRequest: true }
    })
  })

  it("'/fleet merge' asks for the landing train, on a PR or on an issue; other words after merge do not", () => {
    expect(
      readEvent('issue_comment', comment('/fleet merge', { onPullRequest: true }), settings)
    ).toMatchObject({
      kind: 'train',
      why: '/fleet merge on pull request #12',
      issue: { number: 12, isPullRequest: true },
      commentId: 555,
      actor: { login: 'maintainer' }
    })
    expect(readEvent('issue_comment', comment('/fleet merge'), settings)).toMatchObject({
      kind: 'train',
      issue: { number: 12, isPullRequest: false }
    })
    expect(readEvent('issue_comment', comment('/fleet merge the two files'), settings).kind).toBe(
      'comment'
    )
    expect(
      readEvent(
        'issue_comment',
        comment('/fleet merge conflicts', { onPullRequest: true }),
        settings
      ).kind
    ).toBe('follow-up')
  })

  it('a bot commenter named in allowed-bots is recognised as a bot', () => {
    const request = readEvent(
      'issue_comment',
      comment('/fleet x', { commenter: 'renovate[bot]' }),
      { ...settings, allowedBots: ['renovate'] }
    )
    expect(request).toMatchObject({ actor: { login: 'renovate[bot]', isBot: true } })
  })

  it('reads the unmodified webhook example fixture too', () => {
    const url = new URL('../fixtures/events/issue_comment.created.json', import.meta.url)
    const raw = JSON.parse(readFileSync(url, 'utf8')) as Record<string, unknown> & {
      comment: { body: string }
    }
    expect(readEvent('issue_comment', raw, settings).kind).toBe('ignore')
    raw.comment.body = `/fleet ${raw.comment.body}`
    expect(readEvent('issue_comment', raw, settings).kind).toBe('comment')
  })
})

describe('readEvent: labels, schedule, dispatch, other events', () => {
  const labeled = (label: string) =>
    issuesLabeled({
      ...repo,
      issueNumber: 5,
      title: 'Queue me',
      body: 'Body',
      label,
      sender: 'maintainer'
    })

  it('labelling with the queue label delegates the issue, with who added the label', () => {
    expect(readEvent('issues', labeled('fleet'), settings)).toEqual({
      kind: 'labeled',
      issue: { number: 5, title: 'Queue me', body: 'Body', isPullRequest: false },
      actor: { login: 'maintainer', isBot: false }
    })
  })

  it('a label applied by a bot allowed-bots does not list is ignored quietly, as its comment would be', () => {
    const byBot = {
      ...labeled('fleet'),
      sender: { ...labeled('fleet').sender, login: 'renovate[bot]', type: 'Bot' }
    }
    expect(readEvent('issues', byBot, settings)).toEqual({
      kind: 'ignore',
      reason: '@renovate[bot] is a bot not listed in allowed-bots: ignored without a reply'
    })
    expect(readEvent('issues', byBot, { ...settings, allowedBots: ['renovate'] })).toMatchObject({
      kind: 'labeled',
      actor: { login: 'renovate[bot]', isBot: true }
    })
  })

  it('another label, or another issues action, is ignored', () => {
    expect(readEvent('issues', labeled('bug'), settings).kind).toBe('ignore')
    const opened = issuesOpened({
      ...repo,
      issueNumber: 5,
      title: 't',
      body: 'b',
      author: 'x',
      labels: ['fleet']
    })
    expect(readEvent('issues', opened, settings).kind).toBe('ignore')
  })

  it('schedule runs the queue', () => {
    expect(readEvent('schedule', schedule({ ...repo, cron: '0 3 * * *' }), settings)).toEqual({
      kind: 'queue'
    })
  })

  it('workflow_dispatch without tasks runs the queue', () => {
    expect(
      readEvent('workflow_dispatch', workflowDispatch({ ...repo, inputs: {} }), settings)
    ).toEqual({ kind: 'queue' })
  })

  it('an event with no trigger of its own is ignored, with a reason', () => {
    const request = readEvent('release', {}, settings)
    expect(request.kind).toBe('ignore')
    expect(request.kind === 'ignore' && request.reason).toContain('release')
  })

  it('given tasks win on any event', () => {
    const withTasks = { ...settings, hasTasks: true }
    for (const [name, payload] of [
      ['issue_comment', comment('/fleet do x')],
      ['issues', labeled('fleet')],
      ['schedule', schedule({ ...repo, cron: '0 3 * * *' })],
      ['workflow_dispatch', workflowDispatch({ ...repo, inputs: { tasks: 'x' } })],
      ['push', {}]
    ] as const) {
      expect(readEvent(name, payload, withTasks), name).toEqual({ kind: 'tasks' })
    }
  })
})

describe('afterPhrase', () => {
  it.each([
    ['/fleet do x', 'do x'],
    ['/fleet', ''],
    ['\n  /fleet\tdo  x  ', 'do  x'],
    ['/fleetwood', undefined],
    ['/fleet-now x', undefined],
    ['x /fleet', undefined]
  ])('%j -> %j', (body, text) => {
    expect(afterPhrase(body, '/fleet')).toBe(text)
  })
})

describe('readEvent: keeping fleet PRs up to date (#25)', () => {
  it('a push to a branch brings the fleet PRs on it up to date', () => {
    expect(readEvent('push', push({ ...repo, ref: 'refs/heads/release/2.x' }), settings)).toEqual({
      kind: 'refresh',
      base: 'release/2.x',
      why: 'a push to release/2.x'
    })
  })

  it('a tag, a deleted branch or a fleet branch asks nothing, and says why', () => {
    const cases = [
      [push({ ...repo, ref: 'refs/tags/v1.0.0' }), 'refs/tags/v1.0.0'],
      [push({ ...repo, ref: 'refs/heads/old', deleted: true }), 'deleted old'],
      [push({ ...repo, ref: 'refs/heads/fleet/x' }), 'fleet branch']
    ] as const
    for (const [payload, why] of cases) {
      const request = readEvent('push', payload, settings)
      expect(request.kind, why).toBe('ignore')
      expect(request.kind === 'ignore' && request.reason, why).toContain(why)
    }
    // Another prefix: a push to fleet/x is then an ordinary branch, and one to bots/x is not.
    const bots = { ...settings, branchPrefix: 'bots/' }
    expect(readEvent('push', push({ ...repo, ref: 'refs/heads/bots/x' }), bots).kind).toBe('ignore')
    expect(readEvent('push', push({ ...repo, ref: 'refs/heads/fleet/x' }), bots).kind).toBe(
      'refresh'
    )
  })

  it('update-prs turns dispatch and schedule into a refresh of the base-branch (no base named)', () => {
    const on = { ...settings, updatePrs: true }
    expect(readEvent('workflow_dispatch', workflowDispatch({ ...repo, inputs: {} }), on)).toEqual({
      kind: 'refresh',
      why: 'workflow_dispatch with update-prs: true'
    })
    expect(readEvent('schedule', schedule({ ...repo, cron: '0 3 * * *' }), on).kind).toBe('refresh')
    // Without it the queue runs, as before.
    expect(readEvent('schedule', schedule({ ...repo, cron: '0 3 * * *' }), settings).kind).toBe(
      'queue'
    )
  })

  it('given tasks still win over a push', () => {
    const withTasks = { ...settings, hasTasks: true }
    expect(readEvent('push', push(repo), withTasks)).toEqual({ kind: 'tasks' })
  })
})
