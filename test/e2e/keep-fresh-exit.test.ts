// Issue 25's conflict turn through the cage's sealed exit, through dist/ with the real claude CLI.
// Four fleet PRs from one issue's checklist all change shared.txt; main then changes it too, and a
// push to main gives each a merge turn. The worker's resolution leaves its cage only as a sealed
// merge commit, which the action accepts in one shape alone: parents exactly [the PR's head, the
// base]. An honest worker lands; one that leaves hooks and an fsmonitor in its clone lands too,
// its programs never having run; one that commits with one parent, and one that forges a merge
// with a stranger for the base, get nothing: the refresh reports them refused, their branches stay
// as they were, their work is kept as a bundle. The issue's live comment gets the merge order.
import { randomBytes } from 'node:crypto'
import { stat } from 'node:fs/promises'
import { describe, expect, it } from 'vitest'
import { expectOk, labeledIssue, useStack } from '../support/scenario.js'
import type { Script } from '../../demo/model-server.js'
import { byId, OWNER, REPO } from '../../demo/stack.js'
import { push } from '../support/events.js'
import { expectContractResults, git, personMovesMain } from './landing-support.js'
import { COLLABORATORS, fleetComments } from './triggers-support.js'

const FULL = `${OWNER}/${REPO}`
const TAGS = ['honest', 'hooked', 'single', 'stranger'] as const
type Tag = (typeof TAGS)[number]
const MARK = randomBytes(6).toString('hex')
/** Where a planted program writes if it ever runs outside a sandbox: the runner's /tmp. */
const HOST_MARKER = `/tmp/exit-ran-${MARK}`

const exists = (f: string) =>
  stat(f).then(
    () => true,
    () => false
  )

const resolve = { tool: 'Write', input: { file_path: 'shared.txt', content: 'colour = teal\n' } }
const bash = (command: string) => ({ tool: 'Bash', input: { command } })

/**
 * The hostile merge turns. `hooked` plants hooks and an fsmonitor in its own clone: had any run in
 * the seal, it would have written ran-<mark>.txt into the resolution and failed the ref update.
 */
const MERGE_TURNS: Record<Tag, Script['steps']> = {
  honest: [resolve, { text: 'shared.txt: teal.' }],
  hooked: [
    bash(
      [
        `p=$(git rev-parse --absolute-git-dir)/evil.sh`,
        `printf '#!/bin/sh\\necho ran >> ${HOST_MARKER}\\necho ran > %s/ran-${MARK}.txt\\nexit 1\\n' "$PWD" > "$p"`,
        'chmod +x "$p"',
        'h=$(git rev-parse --absolute-git-dir)/hooks',
        'mkdir -p "$h"',
        'for k in pre-commit post-commit reference-transaction post-index-change pre-auto-gc; do cp "$p" "$h/$k"; done',
        'git config core.fsmonitor "$p"',
        'git config core.hooksPath "$h"',
        'echo STEP-OK'
      ].join(' && ')
    ),
    resolve,
    { text: 'shared.txt: teal.' }
  ],
  single: [
    resolve,
    bash(
      'git add -A && c=$(git commit-tree "$(git write-tree)" -p HEAD -m resolved) && git reset -q --hard "$c" && echo STEP-OK'
    ),
    { text: 'Committed.' }
  ],
  stranger: [
    resolve,
    bash(
      'git add -A && t=$(git write-tree) && s=$(git commit-tree "$t" -m "a root of its own") && m=$(git commit-tree "$t" -p HEAD -p "$s" -m merged) && git reset -q --hard "$m" && echo STEP-OK'
    ),
    { text: 'Merged.' }
  ]
}

const tagOf = (text: string): Tag | undefined => TAGS.find(t => text.includes(`(${t})`))

/** A task writes its own colour into shared.txt; a merge turn is scripted by its PR's tag. */
function model(prompt: string): Script {
  // The PR's title opens a merge prompt; a task's own line opens its <task> (the issue's other
  // items may follow as context, so only that first line names the task).
  const title = /^Pull request #\d+, "([^"\n]*)"/m.exec(prompt)?.[1]
  if (title !== undefined) {
    const tag = tagOf(title) ?? 'honest'
    return { key: `merge-${tag}`, steps: MERGE_TURNS[tag] }
  }
  const first = /<task>\n?([^\n]*)/.exec(prompt)?.[1] ?? ''
  const tag = tagOf(first) ?? 'honest'
  return {
    key: `task-${tag}`,
    steps: [
      { tool: 'Write', input: { file_path: 'shared.txt', content: `colour = red (${tag})\n` } },
      { text: 'Wrote shared.txt.' }
    ]
  }
}

describe('a conflict turn leaves its cage only as the one sealed merge', () => {
  const stack = useStack({
    files: { 'README.md': '# widgets\n', 'shared.txt': 'colour = green\n' },
    model: { defaultScript: model },
    github: { collaborators: COLLABORATORS }
  })

  it('lands the honest and the hooked resolution as [head, base] merges, refuses the forged ones, and writes the merge order on the issue', async () => {
    const body = TAGS.map(t => `- [ ] Write shared.txt (${t})`).join('\n')
    const { issue, payload } = labeledIssue(stack, { title: 'Colours', body })
    const first = await stack.run({
      eventName: 'issues',
      payload,
      timeoutMs: 300_000
    })
    expectOk(first)
    const prs = new Map(stack.github.state.pulls.map(p => [tagOf(p.title) ?? 'honest', p] as const))
    expect([...prs.keys()].sort()).toEqual([...TAGS].sort())
    const cut = await stack.git.branches(FULL)

    // main moves: a person's change to the same line.
    const main = await personMovesMain(
      stack.git.repoPath(FULL),
      'shared.txt',
      'colour = blue\n',
      'fleet-exit-person-'
    )
    const before = stack.model.requests.length
    const run = await stack.run({
      eventName: 'push',
      payload: push({ owner: OWNER, repo: REPO, ref: 'refs/heads/main', after: main }),
      inputs: { verify: 'grep -q teal shared.txt' },
      timeoutMs: 400_000
    })

    expect(run.exitCode, run.stdout + run.stderr).toBe(1)
    expectContractResults(run, 4)
    const r = byId(run)
    const outcome = (tag: Tag) => [...r.values()].find(o => o['pr-number'] === prs.get(tag)?.number)
    expect(Object.fromEntries(TAGS.map(t => [t, outcome(t)?.status]))).toEqual({
      honest: 'pr-updated',
      hooked: 'pr-updated',
      single: 'failed',
      stranger: 'failed'
    })
    const asked = new Set(stack.model.requests.slice(before).map(q => q.key))
    expect([...asked].sort()).toEqual(TAGS.map(t => `merge-${t}`).sort())
    for (const tag of ['hooked', 'single', 'stranger'] as const) {
      const said = stack.model.requestsFor(`merge-${tag}`).flatMap(q => q.toolResults)
      expect(said.join('\n'), tag).toContain('STEP-OK')
    }
    const now = await stack.git.branches(FULL)
    const parents = async (sha: string) =>
      (await git(['rev-list', '--parents', '-n', '1', sha], stack.git.repoPath(FULL)))
        .trim()
        .split(' ')
        .slice(1)

    // Landed: one merge commit of [the PR's head, main], the worker's file, the action's name.
    for (const tag of ['honest', 'hooked'] as const) {
      const branch = prs.get(tag)?.pull.head ?? ''
      const head = now[branch] ?? ''
      expect(await parents(head), tag).toEqual([cut[branch], main])
      expect(await stack.git.readFile(FULL, branch, 'shared.txt'), tag).toBe('colour = teal\n')
      const [last] = await stack.git.log(FULL, branch, 1)
      expect(last?.subject, tag).toBe(`Merge main into ${branch} (Fleet Worker)`)
      expect(await stack.git.readFile(FULL, branch, `ran-${MARK}.txt`), tag).toBeUndefined()
    }
    // The planted programs never ran: not on the runner, not in the seal.
    expect(await exists(HOST_MARKER)).toBe(false)

    // Refused: the branch as it was, the reason named, the work kept as a bundle, the PR told.
    for (const tag of ['single', 'stranger'] as const) {
      const pr = prs.get(tag)
      const o = outcome(tag)
      expect(now[pr?.pull.head ?? ''], tag).toBe(cut[pr?.pull.head ?? ''])
      expect(o?.error, tag).toMatch(
        /the worker's resolution was refused: the sealed merge [0-9a-f]{12} has parents \[[0-9a-f, ]+\], not exactly \[/
      )
      const kept = /its work is kept in (\S+\.bundle) \(git bundle\), not pushed/.exec(
        o?.error ?? ''
      )?.[1]
      expect(kept, tag).toBeDefined()
      expect(await exists(kept ?? ''), tag).toBe(true)
      const said = stack.github.state.comments.filter(
        c => c.issue_number === pr?.number && c.body.includes('<!-- fleet-worker:conflict')
      )
      expect(said, tag).toHaveLength(1)
      expect(said[0]?.body, tag).toContain('refused')
      expect(pr?.labels, tag).toContain('fleet:conflict')
    }

    // The issue's live comment: the merge order, in the order the refresh took the PRs.
    const [live, ...more] = fleetComments(stack, issue.number)
    expect(more).toEqual([])
    const text = live?.body ?? ''
    expect(text).toContain('### Merge order on `main`')
    const order = [...text.matchAll(/^\| (\d) \| #(\d+) /gm)].map(m => [m[1], Number(m[2])])
    const took = [...r.values()].map(o => o['pr-number'])
    expect(order).toEqual(took.map((n, i) => [String(i + 1), n]))
    const conflicted = TAGS.map(t => `#${prs.get(t)?.number}`).sort()
    expect(/Conflicted: ([#\d, ]+)\./.exec(text)?.[1]?.split(', ').sort()).toEqual(conflicted)
    expect(text).toMatch(
      new RegExp(`#${prs.get('honest')?.number} .*brought up to date: a worker resolved`)
    )
    expect(stack.github.invalid).toEqual([])
  }, 900_000)
})
