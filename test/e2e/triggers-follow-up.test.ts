// Issue 5, through dist/: a `/fleet` comment on a fleet PR continues that PR's branch: the worker
// starts from the branch head, the same PR is updated, no new PR is opened.
import { describe, expect, it } from 'vitest'
import { commentOn, expectOk, useStack, writeScript } from '../support/scenario.js'
import { script } from '../../demo/model-server.js'
import { byId, OWNER, REPO, results } from '../../demo/stack.js'
import { COLLABORATORS, fleetComments, pullsFor } from './triggers-support.js'

const FULL = `${OWNER}/${REPO}`

describe('a follow-up on a fleet PR', () => {
  const stack = useStack({ github: { collaborators: COLLABORATORS } })

  it('"/fleet also handle the empty case" on fleet PR #M: starts from its branch head, updates PR #M', async () => {
    // The earlier work: a real fleet/x branch with a file main does not have, and its PR.
    const seedScript = writeScript(
      'x-first',
      'parser.txt',
      'parse(input) only\n',
      'Wrote the parser.'
    )
    const first = await stack.run({
      inputs: { tasks: JSON.stringify([{ id: 'x', prompt: `Write the parser ${seedScript}` }]) }
    })
    expectOk(first)
    expect(byId(first).get('x')?.status).toBe('pr-opened')
    const headBefore = (await stack.git.branches(FULL))['fleet/x']
    const [pr] = pullsFor(stack, 'fleet/x')
    if (!pr || !headBefore) throw new Error('the first run left no fleet/x PR or branch')
    expect(await stack.git.readFile(FULL, 'main', 'parser.txt')).toBeUndefined()

    // The follow-up's worker looks at the branch it was given, then adds to it.
    const followScript = script({
      key: 'x-follow',
      steps: [
        { tool: 'Bash', input: { command: 'git log --oneline -n 5 && cat parser.txt' } },
        { tool: 'Write', input: { file_path: 'empty.txt', content: 'empty input handled\n' } },
        { text: 'Handled the empty case.' }
      ]
    })
    const body = `/fleet also handle the empty case ${followScript}`
    const { comment, payload } = commentOn(stack, pr, body, 'maria', { onPullRequest: true })
    const pullsBefore = stack.github.state.pulls.length

    const run = await stack.run({ eventName: 'issue_comment', payload })
    expectOk(run)
    expect(results(run).map(r => r.id)).toEqual(['x'])
    const r = byId(run).get('x')
    expect(r?.status).toBe('pr-updated')
    expect(r?.['pr-number']).toBe(pr.number)
    expect(stack.github.state.pulls.length).toBe(pullsBefore)

    // What the worker's shell saw in its worktree: the branch's commit and the branch-only file.
    const bash = stack.model.requestsFor('x-follow').find(q => q.step === 1)
    const seen = bash?.toolResults.join('\n') ?? ''
    expect(seen).toContain(headBefore.slice(0, 7))
    expect(seen).toContain('parse(input) only')

    // The branch moved forward from its old head: both files, the old commit an ancestor.
    const log = await stack.git.log(FULL, 'fleet/x')
    expect(log.map(c => c.sha)).toContain(headBefore)
    expect(log[0]?.sha).not.toBe(headBefore)
    expect(await stack.git.readFile(FULL, 'fleet/x', 'parser.txt')).toBe('parse(input) only\n')
    expect(await stack.git.readFile(FULL, 'fleet/x', 'empty.txt')).toBe('empty input handled\n')

    // The PR was updated in place and says what was asked; the live comment sits on the PR.
    const updated = stack.github.state.pullByNumber(pr.number)
    expect(updated?.state).toBe('open')
    expect(updated?.body).toContain('also handle the empty case')
    expect(fleetComments(stack, pr.number)).toHaveLength(1)
    expect(
      stack.github.state.reactions.filter(x => x.comment_id === comment.id).map(x => x.content)
    ).toEqual(['eyes'])
    expect(stack.github.invalid).toEqual([])
  })
})
