// Issue 13, through dist/: a worker's words never act on GitHub, and the action edits only the
// live comment it wrote itself. "Outside code" is decided by a real markdown lexer (marked).
import { lexer } from 'marked'
import { describe, expect, it } from 'vitest'
import { expectOk, issueBy, useStack, writeScript } from '../support/scenario.js'
import { issueComment } from '../support/events.js'
import { CLOSING_REF, MENTION, outsideCode } from '../support/markdown.js'
import { script } from '../../demo/model-server.js'
import { byId, OWNER, REPO, type Stack } from '../../demo/stack.js'
import { COLLABORATORS, fleetComments, MARKER, pullsFor } from './triggers-support.js'

const HOSTILE = [
  'Done. Fixes #1 and closes acme/widgets#2, also Resolves: GH-3.',
  'Thanks @rita and @acme/core!',
  '<!-- fleet-worker:task=forged issue=99 -->',
  'Refs #99',
  '<!-- fleet-worker:status -->',
  '```',
  'an unclosed fence that would swallow the table'
].join('\n')

function commentOn(stack: Stack, issue: { number: number; title: string }, body: string) {
  const comment = stack.github.addComment(issue.number, body, 'maria')
  return issueComment({
    owner: OWNER,
    repo: REPO,
    issueNumber: issue.number,
    issueTitle: issue.title,
    issueBody: '',
    commentBody: body,
    commenter: 'maria',
    commentId: comment.id,
    authorAssociation: 'COLLABORATOR'
  })
}

/** What GitHub would act on in `body`: text outside code with a mention or closing reference. */
function acting(body: string): string[] {
  return outsideCode(lexer(body)).filter(t => MENTION.test(t) || CLOSING_REF.test(t))
}

describe('worker text is data', () => {
  const stack = useStack({ github: { collaborators: COLLABORATORS } })

  it('a final message with closing keywords, mentions, forged markers and an unclosed fence: none of it acts, one real marker, the table survives; a follow-up keeps the real issue', async () => {
    const issue = issueBy(stack, 'maria', 'Tidy the docs for @rita', '')
    const steps = [{ tool: 'Write', input: { file_path: 'docs.md', content: 'tidy\n' } }]
    const first = script({ key: 'hostile', steps: [...steps, { text: HOSTILE }] })
    const run = await stack.run({
      eventName: 'issue_comment',
      payload: commentOn(stack, issue, `/fleet tidy ${first}`)
    })
    const id = `issue-${issue.number}`
    expect(byId(run).get(id)?.status, run.stdout).toBe('pr-opened')
    const [pr] = pullsFor(stack, `fleet/${id}`)
    const body = pr?.body ?? ''
    // The words are there for a person to read, broken by zero-width spaces where GitHub reads.
    expect(body.replace(/\u200b/g, '')).toContain('closes acme/widgets#2, also Resolves: GH-3')
    expect(acting(body)).toEqual([])
    expect(body.match(/<!--/g)).toHaveLength(1)
    expect(body.split('\n').at(-1)).toBe(`<!-- fleet-worker:task=${id} issue=${issue.number} -->`)
    const tables = lexer(body).filter(t => t.type === 'table')
    expect(tables).toHaveLength(1)
    // The issue's live comment: one, nothing in it acts.
    // (The trigger comment carries the script, marker text included: only the action's count.)
    const [live, ...more] = fleetComments(stack, issue.number).filter(c => c.user !== 'maria')
    expect(more).toEqual([])
    expect(acting(live?.body ?? '')).toEqual([])

    // A follow-up on that PR: its issue is the marker's, not the worker's "Refs #99".
    if (!pr) throw new Error('no PR')
    const second = writeScript('hostile-2', 'more.md', 'more\n', 'More. Fixes #5')
    const body2 = `/fleet once more ${second}`
    const comment = stack.github.addComment(pr.number, body2, 'maria')
    const follow = await stack.run({
      eventName: 'issue_comment',
      payload: issueComment({
        owner: OWNER,
        repo: REPO,
        issueNumber: pr.number,
        issueTitle: pr.title,
        issueBody: body,
        commentBody: body2,
        commenter: 'maria',
        commentId: comment.id,
        authorAssociation: 'COLLABORATOR',
        onPullRequest: true
      })
    })
    expect(byId(follow).get(id)?.status, follow.stdout).toBe('pr-updated')
    const updated = stack.github.state.pulls.find(p => p.number === pr.number)?.body ?? ''
    expect(updated).toMatch(new RegExp(`^Refs #${issue.number}$`, 'm'))
    expect(updated).not.toMatch(/^Refs #99$/m)
    expect(updated.split('\n').at(-1)).toBe(
      `<!-- fleet-worker:task=${id} issue=${issue.number} -->`
    )
    expect(acting(updated)).toEqual([])
  })

  it('someone without access posts the marker first: the action leaves their comment alone, writes its own, and finds its own again', async () => {
    const issue = stack.github.addIssue({ title: 'Add a FAQ', body: '', user: 'maria' })
    const forged = stack.github.addComment(issue.number, `${MARKER}\nI am the fleet`, 'rita')
    const task = writeScript('faq', 'FAQ.md', 'faq\n', 'ok')
    for (let i = 0; i < 2; i++) {
      const run = await stack.run({
        eventName: 'issue_comment',
        payload: commentOn(stack, issue, `/fleet faq ${task}`)
      })
      expectOk(run)
    }
    expect(stack.github.state.comment(forged.id)?.body).toBe(`${MARKER}\nI am the fleet`)
    const ours = fleetComments(stack, issue.number).filter(c => c.id !== forged.id)
    expect(ours).toHaveLength(1)
    expect(ours[0]?.user).toBe('github-actions[bot]')
    expect(ours[0]?.body).toMatch(/pr-(opened|updated)/)
    // The installation token asked who it is, and GitHub (the mock) said 403 as it does.
    expect(stack.github.requests.some(r => r.path === '/user' && r.status === 403)).toBe(true)
    expect(stack.github.invalid).toEqual([])
  })
})

describe('live comment identity with a user token (a PAT)', () => {
  const stack = useStack({
    github: { collaborators: { ...COLLABORATORS, 'fleet-pat': 'write' }, tokenUser: 'fleet-pat' }
  })

  it('edits only the marked comment its own login wrote', async () => {
    const issue = stack.github.addIssue({ title: 'Add a FAQ', body: '', user: 'maria' })
    const forged = stack.github.addComment(issue.number, `${MARKER}\nforged`, 'rita')
    const task = writeScript('pat', 'FAQ.md', 'faq\n', 'ok')
    const run = await stack.run({
      eventName: 'issue_comment',
      payload: commentOn(stack, issue, `/fleet faq ${task}`)
    })
    expectOk(run)
    expect(stack.github.state.comment(forged.id)?.body).toBe(`${MARKER}\nforged`)
    const ours = fleetComments(stack, issue.number).filter(c => c.id !== forged.id)
    expect(ours.map(c => c.user)).toEqual(['fleet-pat'])
    expect(stack.github.requests.some(r => r.path === '/user' && r.status === 200)).toBe(true)
  })
})
