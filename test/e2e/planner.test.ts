// Issue 15, through dist/: the planner. `/fleet plan` on an issue (a read-only worker answers
// through the CLI's StructuredOutput tool; its plan lands in the issue's description; `/fleet`
// then runs it), re-planning, the checklist fallback, bad answers, the write-access gate, and the
// `goal` input with and without run-plan. The planner's script rides in the comment or goal text;
// the planned tasks' prompts start "Write <path>", which wordsToFile turns into that file.
import { describe, expect, it } from 'vitest'
import { commentOn, expectOk, issueBy, ISSUES, useStack } from '../support/scenario.js'
import { script, type Script } from '../../demo/model-server.js'
import { byId, OWNER, REPO, results } from '../../demo/stack.js'
import { answers, fleetBranches, fleetComments, MARKER, pullsFor } from './triggers-support.js'

const FULL = `${OWNER}/${REPO}`
const PLAN_START = '<!-- fleet-worker:plan -->'

type Planned = { title: string; prompt: string; verify?: string }

const DOCS: Planned[] = [
  { title: 'Add the install page', prompt: 'Write docs/install.md\nExplain npm install.' },
  { title: 'Add the usage page', prompt: 'Write docs/usage.md\nShow one example.' },
  { title: 'Add the FAQ page', prompt: 'Write docs/faq.md\nThree questions.' }
]

/** A planner that first tries to write a file, then answers through StructuredOutput. */
function planner(key: string, tasks: unknown[], opts: { tryWrite?: boolean } = {}): Script {
  return {
    key,
    steps: [
      ...(opts.tryWrite
        ? [
            {
              tool: 'Write',
              input: { file_path: 'PLANNED.md', content: 'the planner wrote this\n' }
            }
          ]
        : []),
      { tool: 'StructuredOutput', input: { tasks } }
    ]
  }
}

describe('the planner', () => {
  const stack = useStack(ISSUES)

  /** Title -> id of a run's results (`title` is in every entry, beside the contract's fields). */
  const titled = (run: Parameters<typeof results>[0]) =>
    new Map(results(run).map(r => [(r as { title?: string }).title ?? '', r.id]))
  const bodyOf = (n: number) => stack.github.state.issue(n)?.body ?? ''
  const planLines = (n: number) =>
    bodyOf(n)
      .split('\n')
      .filter(l => /^- \[[ x]\] /.test(l))

  it('"/fleet plan": the planner cannot write, three items land in the description, no branch or PR, the person is told how to run them; "/fleet" then runs them', async () => {
    const issue = issueBy(stack, 'maria', 'The docs need pages', 'We have no docs at all.')
    const n = issue.number
    const s = planner('plan-docs', DOCS, { tryWrite: true })
    const { comment, payload } = commentOn(
      stack,
      n,
      `/fleet plan one page per topic ${script(s)}`,
      'maria'
    )
    const branchesBefore = await fleetBranches(stack, FULL)

    const run = await stack.run({ eventName: 'issue_comment', payload })
    expectOk(run)

    // The planner's write failed: Write is not among its tools, and no file or commit came of it.
    const requests = stack.model.requestsFor('plan-docs')
    expect(requests.map(r => r.toolResults.join(' ')).join('\n')).toMatch(
      /No such tool available: Write/
    )
    const tools = (requests[0]?.body as { tools: Array<{ name: string }> }).tools.map(t => t.name)
    expect(tools).toContain('StructuredOutput')
    for (const writer of ['Write', 'Edit', 'Bash', 'NotebookEdit'])
      expect(tools).not.toContain(writer)
    // The prompt carried the issue and the comment's words.
    expect(JSON.stringify(requests[0]?.body)).toContain('We have no docs at all.')

    // Three items in the description, under the plan heading, each with its prompt below it.
    expect(bodyOf(n)).toMatch(/^We have no docs at all\.\n\n<!-- fleet-worker:plan -->/)
    expect(planLines(n)).toEqual(DOCS.map(d => `- [ ] ${d.title}`))
    expect(bodyOf(n)).toContain('\n  Write docs/install.md\n  Explain npm install.\n')
    expect(bodyOf(n)).toContain('Comment `/fleet` to run the unchecked items')

    // Nothing ran: no branch, no PR; the results list the planned tasks.
    expect(await fleetBranches(stack, FULL)).toEqual(branchesBefore)
    expect(
      stack.github.state.pulls.filter(p => p.pull.head.startsWith(`fleet/issue-${n}-`))
    ).toEqual([])
    const ids = results(run).map(r => r.id)
    expect(ids).toHaveLength(3)
    for (const r of results(run)) {
      expect(r.status).toBe('not-started')
      expect(r.id).toMatch(new RegExp(`^issue-${n}-add-the-[a-z]+-page-[0-9a-f]{6}$`))
    }

    // The live comment said "planning" first (before the description changed), then the plan.
    const writes = stack.github.requests.filter(
      r =>
        (r.method === 'POST' || r.method === 'PATCH') &&
        (r.path.endsWith(`/issues/${n}/comments`) ||
          r.path.endsWith(`/issues/${n}`) ||
          /\/issues\/comments\/\d+$/.test(r.path)) &&
        JSON.stringify(r.body).includes(r.path.endsWith(`/issues/${n}`) ? PLAN_START : MARKER)
    )
    const said = writes.map(r =>
      r.path.endsWith(`/issues/${n}`)
        ? 'description'
        : /Planning: /.test(JSON.stringify(r.body))
          ? 'planning'
          : 'plan'
    )
    expect(said).toEqual(['planning', 'description', 'plan'])
    // The planner's tokens, as the model server counted them, are in the summary.
    const u = stack.model.usageFor('plan-docs')
    const input = u.input_tokens + u.cache_read_input_tokens + u.cache_creation_input_tokens
    expect(run.summary).toMatch(
      new RegExp(
        `The planner used \\d+ turns, ${input} input and ${u.output_tokens} output tokens\\.`
      )
    )

    // The live comment shows the plan and says how to run it; the comment got 👀.
    const live = fleetComments(stack, n)
    expect(live).toHaveLength(1)
    expect(live[0]?.body).toContain('Planned 3 tasks')
    expect(live[0]?.body).toContain('comment `/fleet` to run the unchecked ones')
    for (const id of ids) expect(live[0]?.body).toContain(`\`${id}\``)
    expect(answers(stack, n, comment.id)).toHaveLength(1)
    expect(
      stack.github.state.reactions.filter(x => x.comment_id === comment.id).map(x => x.content)
    ).toEqual(['eyes'])

    // "/fleet" runs the plan: one PR per item, on the ids the plan announced.
    const go = commentOn(stack, n, '/fleet', 'maria')
    const ran = await stack.run({ eventName: 'issue_comment', payload: go.payload })
    expectOk(ran)
    expect(
      results(ran)
        .map(r => r.id)
        .sort()
    ).toEqual([...ids].sort())
    for (const [i, d] of DOCS.entries()) {
      const id = ids[i] ?? ''
      expect(byId(ran).get(id)?.status).toBe('pr-opened')
      const file = /^Write (\S+)/.exec(d.prompt)?.[1] ?? ''
      expect(await stack.git.readFile(FULL, `fleet/${id}`, file)).toBe(`Write ${file}\n`)
      expect(pullsFor(stack, `fleet/${id}`)[0]?.body).toMatch(new RegExp(`^Refs #${n}$`, 'm'))
    }
    expect(fleetComments(stack, n)).toHaveLength(1)
    expect(stack.github.invalid).toEqual([])
  })

  it('"/fleet plan" again replaces the plan: unchanged titles keep their ids (and a checked item stays checked), the rest of the description stays', async () => {
    const issue = issueBy(stack, 'olga', 'Docs, take two', 'Docs please.')
    const n = issue.number
    const first = commentOn(stack, n, `/fleet plan ${script(planner('replan-1', DOCS))}`, 'olga')
    const one = await stack.run({ eventName: 'issue_comment', payload: first.payload })
    expectOk(one)
    const before = titled(one)

    // A person checks off the install page and adds a line above the plan.
    const mock = stack.github.state.issue(n)
    if (!mock) throw new Error('issue vanished')
    mock.body = `Docs please. Also a FAQ.\n\n${(mock.body ?? '')
      .replace('Docs please.\n\n', '')
      .replace('- [ ] Add the install page', '- [x] Add the install page')}`

    const again: Planned[] = [
      DOCS[0] as Planned,
      { title: 'Add the usage page', prompt: 'Write docs/usage.md\nShow two examples.' },
      { title: 'Add a changelog page', prompt: 'Write docs/changelog.md\nList the releases.' }
    ]
    const second = commentOn(stack, n, `/fleet plan ${script(planner('replan-2', again))}`, 'olga')
    const two = await stack.run({ eventName: 'issue_comment', payload: second.payload })
    expectOk(two)

    // The planner was shown the current plan, with the done item marked.
    const prompt = JSON.stringify(stack.model.requestsFor('replan-2')[0]?.body)
    expect(prompt).toContain('<current-plan>')
    expect(prompt).toContain('- [done] Add the install page')

    expect(bodyOf(n).split(PLAN_START)).toHaveLength(2)
    expect(bodyOf(n)).toMatch(/^Docs please\. Also a FAQ\.\n\n<!-- fleet-worker:plan -->/)
    expect(planLines(n)).toEqual([
      '- [x] Add the install page',
      '- [ ] Add the usage page',
      '- [ ] Add a changelog page'
    ])
    expect(bodyOf(n)).toContain('Show two examples.')
    const after = titled(two)
    // The usage page kept its id; the checked install page is not a task; the changelog is new.
    expect(after.get('Add the usage page')).toBe(before.get('Add the usage page'))
    expect([...after.keys()].sort()).toEqual(['Add a changelog page', 'Add the usage page'])
    expect([...before.values()]).not.toContain(after.get('Add a changelog page'))
    expect(fleetComments(stack, n)).toHaveLength(1)
    expect(fleetComments(stack, n)[0]?.body).toMatch(/Add the install page \| done/)
  })

  it("a reader's /fleet plan is refused before any model request; the description is untouched", async () => {
    const issue = stack.github.addIssue({ title: 'Plan my stuff', body: 'Please.', user: 'rita' })
    const n = issue.number
    const { comment, payload } = commentOn(
      stack,
      n,
      `/fleet plan ${script(planner('rita', DOCS))}`,
      'rita'
    )
    const requestsBefore = stack.model.requests.length

    const run = await stack.run({ eventName: 'issue_comment', payload })
    expect(run.exitCode).not.toBe(0)
    expect(results(run).map(r => [r.id, r.status])).toEqual([[`issue-${n}-plan`, 'refused']])
    expect(stack.model.requests.length).toBe(requestsBefore)
    expect(bodyOf(n)).toBe('Please.')
    const replies = answers(stack, n, comment.id)
    expect(replies).toHaveLength(1)
    expect(replies[0]?.body).toMatch(/@rita .*read access/)
  })

  it('a planner that answers with a checklist instead of structured output: its items become the plan', async () => {
    const issue = issueBy(stack, 'maria', 'Two small things', 'See below.')
    const n = issue.number
    const checklist = [
      'Here is the plan:',
      '',
      '- [ ] Add the contributing guide',
      '  Write CONTRIBUTING.md',
      '  Say how to run the tests.',
      '- [ ] Write docs/style.md'
    ].join('\n')
    // After plain text the CLI asks once more for StructuredOutput; the final message is the answer.
    const s: Script = { key: 'fallback', steps: [{ text: checklist }, { text: checklist }] }
    const { payload } = commentOn(stack, n, `/fleet plan ${script(s)}`, 'maria')
    const run = await stack.run({ eventName: 'issue_comment', payload })
    expectOk(run)
    expect(planLines(n)).toEqual(['- [ ] Add the contributing guide', '- [ ] Write docs/style.md'])
    expect(bodyOf(n)).toContain('\n  Write CONTRIBUTING.md\n  Say how to run the tests.\n')
    expect(results(run).map(r => r.status)).toEqual(['not-started', 'not-started'])
    expect(run.summary).toContain("from the planner's checklist")
  })

  const BAD: Array<[string, Script, RegExp, Record<string, string>?]> = [
    [
      'nothing usable',
      { key: 'bad-none', steps: [{ text: 'I would rather not.' }, { text: 'Still no.' }] },
      /no structured output, and no `- \[ \]` checklist in its final message/
    ],
    [
      'more than max-tasks',
      {
        key: 'bad-many',
        steps: [0, 1].map(() => ({ text: '- [ ] Write a.md\n- [ ] Write b.md\n- [ ] Write c.md' }))
      },
      /proposed 3 tasks, more than max-tasks \(2\)/,
      { 'max-tasks': '2' }
    ],
    [
      'duplicate titles',
      planner('bad-dup', [
        { title: 'Fix it', prompt: 'Write a.md' },
        { title: 'fix  it', prompt: 'Write b.md' }
      ]),
      /gave two tasks the title 'fix it'; each task needs its own title/
    ],
    [
      'an empty prompt',
      planner('bad-empty', [{ title: 'Do nothing', prompt: '   ' }]),
      /task 'Do nothing' has an empty prompt/
    ]
  ]

  it.each(BAD)(
    'a bad answer (%s) ends in one sentence on the issue; the description is untouched and nothing runs',
    async (_name, s, sentence, inputs) => {
      const issue = stack.github.addIssue({ title: `Bad ${s.key}`, body: 'Body.', user: 'maria' })
      const n = issue.number
      const { payload } = commentOn(stack, n, `/fleet plan ${script(s)}`, 'maria')
      const branchesBefore = await fleetBranches(stack, FULL)
      const run = await stack.run({ eventName: 'issue_comment', payload, inputs })
      expect(run.exitCode).not.toBe(0)
      const [only, ...more] = results(run)
      expect(more).toEqual([])
      expect(only?.id).toBe(`issue-${n}-plan`)
      expect(only?.status).toBe('failed')
      expect(only?.error).toMatch(sentence)
      expect(bodyOf(n)).toBe('Body.')
      const live = fleetComments(stack, n)
      expect(live).toHaveLength(1)
      expect(live[0]?.body).toMatch(
        /Could not plan: .*The description was not changed and nothing ran\./
      )
      // As a person reads it: the planner's words in it are inert prose (zero-width spaces unseen).
      expect(live[0]?.body.replace(/\u200b/g, '')).toMatch(sentence)
      expect(await fleetBranches(stack, FULL)).toEqual(branchesBefore)
    }
  )

  const GOAL: Planned[] = [
    { title: 'Add the goal readme', prompt: 'Write goal/README.md\nOne paragraph.' },
    {
      title: 'Add the goal notes',
      prompt: 'Write goal/NOTES.md\nTwo lines.',
      verify: 'test -f goal/NOTES.md'
    }
  ]

  it('goal dispatch without run-plan: the tasks are reported (summary YAML, plan output ready for tasks:), nothing runs; that output then runs as tasks', async () => {
    const goal = `Document the goal folder ${script(planner('goal-report', GOAL))}`
    const branchesBefore = await fleetBranches(stack, FULL)
    const run = await stack.run({ inputs: { goal } })
    expectOk(run)
    expect(await fleetBranches(stack, FULL)).toEqual(branchesBefore)
    expect(results(run).map(r => r.status)).toEqual(['not-started', 'not-started'])
    const plan = JSON.parse(run.outputs.plan ?? '{}') as {
      version: number
      tasks: Array<{ id: string; title: string; verify?: string }>
    }
    expect(plan.version).toBe(1)
    expect(plan.tasks.map(t => t.title)).toEqual(GOAL.map(g => g.title))
    expect(plan.tasks[1]?.verify).toBe('test -f goal/NOTES.md')
    expect(JSON.parse(run.outputs.matrix ?? '{}')).toEqual({
      include: [{ shard: 0 }, { shard: 1 }]
    })
    expect(run.summary).toContain('```yaml')
    expect(run.summary).toContain(`- id: ${plan.tasks[0]?.id}`)

    // The same output, handed to `tasks:`, runs them.
    const next = await stack.run({ inputs: { tasks: run.outputs.plan ?? '' } })
    expectOk(next)
    for (const t of plan.tasks) expect(byId(next).get(t.id)?.status).toBe('pr-opened')
  })

  it('goal dispatch with run-plan: the planned tasks run in the same job', async () => {
    const again = (text: string) => text.replace('goal/', 'again/')
    const tasks = GOAL.map(g => ({
      ...g,
      title: `${g.title} again`,
      prompt: again(g.prompt),
      ...(g.verify ? { verify: again(g.verify) } : {})
    }))
    const goal = `Document it again ${script(planner('goal-run', tasks))}`
    const run = await stack.run({ inputs: { goal, 'run-plan': 'true' } })
    expectOk(run)
    const ran = results(run)
    expect(ran.map(r => r.status)).toEqual(['pr-opened', 'pr-opened'])
    expect(await stack.git.readFile(FULL, ran[0]?.branch ?? '', 'again/README.md')).toBe(
      'Write again/README.md\n'
    )
    expect(run.summary).toContain('The planner split the goal into 2 tasks')
  })
})
