// The planner's pure parts: the plan section of an issue's description (render, read back,
// replace, ids from titles), reading the planner's answer, its prompt and schema, the goal's
// tasks and YAML, and the inputs and event that ask for it.
import fc from 'fast-check'
import { parse as parseYaml } from 'yaml'
import { describe, expect, it } from 'vitest'
import { InputError, parseConfig } from '../../src/config.js'
import { readEvent } from '../../src/event.js'
import { inputEnvName } from '../../src/inputs.js'
import { readAnswer } from '../../src/planner/answer.js'
import { goalTasks } from '../../src/planner/goal.js'
import { tasksYaml } from '../../src/planner/report.js'
import { plannerPrompt } from '../../src/planner/prompt.js'
import { holdsSecret, plannerConfig } from '../../src/planner/run.js'
import { answerJsonSchema } from '../../src/planner/schema.js'
import { tasksFromIssue } from '../../src/tasks/from-issue.js'
import { idProblem } from '../../src/tasks/ids.js'
import { parseTasks } from '../../src/tasks/parse.js'
import {
  checklistItems,
  PLAN_END,
  PLAN_START,
  planItemId,
  readPlanSection,
  renderPlanSection,
  replacePlanSection,
  tasksFromPlan,
  withoutPlanSection
} from '../../src/tasks/plan-section.js'
import { issueComment } from '../support/events.js'

const issue = { number: 7, title: 'Docs' }
const items = [
  { title: 'Add the install page', prompt: 'Write docs/install.md\n\nCover npm.', checked: false },
  { title: 'Fix the FAQ', prompt: 'Edit docs/faq.md', checked: true }
]

describe('the plan section', () => {
  it('renders items a person can read and edit, and reads them back unchanged', () => {
    const section = renderPlanSection(items, '/fleet')
    expect(section.startsWith(PLAN_START)).toBe(true)
    expect(section.endsWith(PLAN_END)).toBe(true)
    expect(section).toContain(
      '- [ ] Add the install page\n\n  Write docs/install.md\n\n  Cover npm.\n'
    )
    // A person sees "Fix": the zero-width space that keeps the word from closing anything is unseen.
    expect(section).toContain('- [x] F\u200bix the FAQ')
    expect(section).toContain('Comment `/fleet` to run the unchecked items')
    expect(readPlanSection(`Intro.\n\n${section}\n\nOutro.`)).toEqual(items)
  })

  it('round-trips any titles and prompts (what the planner wrote is what /fleet runs)', () => {
    const line = fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9 .,:()'/-]{0,40}$/)
    const prompt = fc
      .array(
        fc.oneof(line, fc.constant(''), fc.constant('  - [ ] a sub-step'), fc.constant('```')),
        {
          minLength: 1,
          maxLength: 6
        }
      )
      .map(lines => lines.join('\n').trim())
      .filter(p => p !== '')
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            title: line.map(t => t.trim()).filter(Boolean),
            prompt,
            checked: fc.boolean()
          }),
          {
            maxLength: 5
          }
        ),
        planned => {
          const clean = planned.map(p => ({ ...p, title: p.title.replace(/\s+/g, ' ') }))
          expect(readPlanSection(renderPlanSection(clean, '/fleet'))).toEqual(clean)
        }
      )
    )
  })

  it('keeps @mentions from pinging while rendered, and gives the worker the plain text', () => {
    const section = renderPlanSection(
      [{ title: 'Ask @octocat', prompt: 'Ping @octocat and mail a@b.c', checked: false }],
      '/fleet'
    )
    expect(section).not.toMatch(/@octocat/)
    expect(readPlanSection(section)?.[0]).toMatchObject({
      title: 'Ask @octocat',
      prompt: 'Ping @octocat and mail a@b.c'
    })
  })

  it('replaces the old section in place, or appends one; the rest of the description stays', () => {
    const old = `Intro.\n\n${renderPlanSection(items, '/fleet')}\n\nOutro.`
    const next = renderPlanSection([items[0]!], '/fleet')
    expect(replacePlanSection(old, next)).toBe(`Intro.\n\n${next}\n\nOutro.`)
    expect(replacePlanSection('Intro.\n', next)).toBe(`Intro.\n\n${next}`)
    expect(replacePlanSection('', next)).toBe(next)
    expect(withoutPlanSection(old)).toBe('Intro.\n\nOutro.')
    // A start marker without its end (a person cut it): the section runs to the end.
    expect(readPlanSection(`x\n${PLAN_START}\n- [ ] a\n  b`)).toEqual([
      { title: 'a', prompt: 'b', checked: false }
    ])
  })

  it('gives ids from titles: stable when items move, are checked or get a new prompt; new when the title changes', () => {
    const id = planItemId('Add the install page', 'issue-7-')
    expect(id).toMatch(/^issue-7-add-the-install-page-[0-9a-f]{6}$/)
    expect(planItemId('  add THE install   page ', 'issue-7-')).toBe(id)
    expect(planItemId('Add the install pages', 'issue-7-')).not.toBe(id)
    const moved = [
      { ...items[1]!, checked: false },
      { ...items[0]!, prompt: 'Other words' }
    ]
    expect(tasksFromPlan(issue, moved, 'fleet/').map(t => t.id)).toContain(id)
    expect(tasksFromPlan(issue, items, 'fleet/').map(t => t.id)).toEqual([id])
  })

  it('ids are always valid, whatever the title and issue number', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 300 }),
        fc.integer({ min: 1, max: 99_999_999 }),
        (title, n) => {
          expect(idProblem(planItemId(title, `issue-${n}-`))).toBeUndefined()
        }
      )
    )
  })

  it('two items a person gave the same title both run, the second with -2', () => {
    const twice = [
      { title: 'Same', prompt: 'a', checked: false },
      { title: 'same', prompt: 'b', checked: false }
    ]
    const [a, b] = tasksFromPlan(issue, twice, 'fleet/')
    expect(b?.id).toBe(`${a?.id}-2`)
    expect(b?.branch).toBe(`fleet/${a?.id}-2`)
  })

  it('/fleet on an issue with a plan runs the plan, not the checklist above it', () => {
    const body = `- [ ] an older item\n\n${renderPlanSection(items, '/fleet')}`
    const tasks = tasksFromIssue({ ...issue, body }, 'fleet/')
    expect(tasks.map(t => [t.title, t.prompt])).toEqual([
      ['Add the install page', 'Write docs/install.md\n\nCover npm.']
    ])
    expect(tasks[0]?.source).toEqual({ kind: 'issue', issue: 7, item: 1 })
    // Without a plan, the checklist rules are as before.
    expect(tasksFromIssue({ ...issue, body: '- [ ] an older item' }, 'fleet/')[0]?.id).toBe(
      'issue-7-1'
    )
  })
})

describe("reading the planner's answer", () => {
  const ok = {
    tasks: [
      { title: 'A', prompt: 'do a', verify: 'npm test' },
      { title: 'B', prompt: 'do b' }
    ]
  }

  it('takes the structured output first', () => {
    expect(readAnswer({ structured: ok, finalMessage: '- [ ] ignored' }, 5)).toEqual({
      ok: true,
      via: 'structured output',
      tasks: [
        { title: 'A', prompt: 'do a', verify: 'npm test' },
        { title: 'B', prompt: 'do b' }
      ]
    })
  })

  it("falls back to the final message's checklist, prompts indented below titles", () => {
    const text = 'Plan:\n\n- [ ] A\n  do a\n  carefully\n- [ ] B\n\nThat is all.'
    expect(readAnswer({ finalMessage: text }, 5)).toEqual({
      ok: true,
      via: 'checklist',
      tasks: [
        { title: 'A', prompt: 'do a\ncarefully' },
        { title: 'B', prompt: 'B' }
      ]
    })
  })

  it.each([
    [{ finalMessage: 'No plan here.' }, /no structured output, and no `- \[ \]` checklist/],
    [{ structured: { tasks: [] } }, /proposed no tasks/],
    [{ structured: { steps: [] } }, /structured output is not a task list/],
    [{ structured: { tasks: [{ title: 'A' }] } }, /not a task list .* at tasks\.0\.prompt/],
    [{ finalMessage: '- [ ] a\n- [ ] b\n- [ ] c' }, /proposed 3 tasks, more than max-tasks \(2\)/],
    [
      {
        structured: {
          tasks: [
            { title: 'Fix  It', prompt: 'a' },
            { title: 'fix it', prompt: 'b' }
          ]
        }
      },
      /two tasks the title 'fix it'/
    ],
    [{ structured: { tasks: [{ title: 'A', prompt: ' \n ' }] } }, /task 'A' has an empty prompt/],
    [{ structured: { tasks: [{ title: '<!-- -->', prompt: 'a' }] } }, /task 1 has no title/]
  ])('a bad answer is one sentence: %j', (answer, sentence) => {
    const read = readAnswer(answer, 2)
    expect(read.ok).toBe(false)
    if (!read.ok) expect(read.error).toMatch(sentence)
  })

  it('strips what a reader cannot see from titles and prompts', () => {
    const read = readAnswer(
      { structured: { tasks: [{ title: 'A<!-- x -->\u200b', prompt: 'do<!-- hidden --> a' }] } },
      2
    )
    expect(read).toMatchObject({ ok: true, tasks: [{ title: 'A', prompt: 'do a' }] })
  })
})

describe("the planner's worker", () => {
  const config = parseConfig({
    [inputEnvName('max-tasks')]: '4',
    [inputEnvName('claude-args')]: '--debug'
  })

  it('is read-only: Read, Glob and Grep in the default permission mode, and answers with the schema', () => {
    const c = plannerConfig(config)
    expect(c.tools).toEqual(['Read', 'Glob', 'Grep'])
    expect(c.permissionMode).toBe('default')
    expect(c.allowedTools).toEqual([])
    const at = c.claudeArgs.indexOf('--json-schema')
    expect(c.claudeArgs[0]).toBe('--debug')
    expect(JSON.parse(c.claudeArgs[at + 1] ?? '')).toEqual(answerJsonSchema(4))
    expect(answerJsonSchema(4)).toMatchObject({
      properties: { tasks: { maxItems: 4, minItems: 1 } }
    })
  })

  it('refuses an answer that quotes a secret of the run, wherever it hides', () => {
    const secret = 'ghs_0123456789abcdef'
    expect(holdsSecret([{ title: 'A', prompt: `curl -H ${secret}` }], ['', secret])).toBe(true)
    expect(holdsSecret([{ title: secret.slice(0, 10), prompt: 'a' }], ['', secret])).toBe(false)
    // An empty or tiny "secret" (no token given) matches nothing.
    expect(holdsSecret([{ title: 'A', prompt: 'a' }], ['', 'a'])).toBe(false)
  })

  it("frames the request, the issue without its old plan, and the current plan's titles", () => {
    const prompt = plannerPrompt(
      {
        kind: 'issue',
        issue: { number: 7, title: 'Docs', body: 'We need docs.<!-- hidden -->' },
        text: 'split by page',
        current: items
      },
      4
    )
    expect(prompt).toContain('At most 4 tasks')
    expect(prompt).toContain('<request>\nsplit by page\n</request>')
    expect(prompt).toContain('<issue number="7">\n# Docs\n\nWe need docs.\n</issue>')
    expect(prompt).toContain('- Add the install page\n- [done] Fix the FAQ')
    expect(prompt).not.toContain('hidden')
  })
})

describe('goal tasks', () => {
  const planned = [
    {
      title: 'Add the install page',
      prompt: 'Write docs/install.md',
      verify: 'test -f docs/install.md'
    },
    { title: 'Add a FAQ', prompt: 'Write docs/faq.md', model: 'glm-4.6' }
  ]

  it('get ids from titles and keep verify and model; the YAML reads back as the same tasks', () => {
    const tasks = goalTasks(planned, 'fleet/')
    expect(tasks[0]?.id).toMatch(/^add-the-install-page-[0-9a-f]{6}$/)
    expect(tasks[0]?.verify).toBe('test -f docs/install.md')
    expect(tasks[1]?.model).toBe('glm-4.6')
    const yaml = tasksYaml(tasks)
    expect(parseYaml(yaml)).toEqual([
      {
        id: tasks[0]?.id,
        title: 'Add the install page',
        prompt: 'Write docs/install.md',
        verify: 'test -f docs/install.md'
      },
      { id: tasks[1]?.id, title: 'Add a FAQ', prompt: 'Write docs/faq.md', model: 'glm-4.6' }
    ])
    expect(parseTasks(yaml, 'tasks-file', 'fleet/', { list: true })).toEqual(tasks)
  })

  it("a plan output (mode: plan's or a goal's) is a task list for 'tasks'", () => {
    const tasks = goalTasks(planned, 'fleet/')
    const saved = JSON.stringify({ version: 1, shards: 2, tasks, refused: [] })
    expect(parseTasks(saved, "Input 'tasks'", 'fleet/')).toEqual(tasks)
  })
})

describe('asking for the planner', () => {
  const settings = { hasTasks: false, triggerPhrase: '/fleet', queueLabel: 'fleet' }
  const on = (body: string, pull = false) =>
    readEvent(
      'issue_comment',
      issueComment({
        owner: 'acme',
        repo: 'app',
        issueNumber: 3,
        issueTitle: 't',
        issueBody: 'b',
        commentBody: body,
        commenter: 'maria',
        commentId: 9,
        ...(pull ? { onPullRequest: true } : {})
      }),
      settings
    )

  it("'/fleet plan [text]' on an issue asks the planner; 'planning' and PR comments do not", () => {
    expect(on('/fleet plan')).toMatchObject({ kind: 'plan', text: '' })
    expect(on('/fleet plan  split it\nby page ')).toMatchObject({
      kind: 'plan',
      text: 'split it\nby page'
    })
    expect(on('/fleet planning docs')).toMatchObject({ kind: 'comment', text: 'planning docs' })
    expect(on('/fleet plan more', true)).toMatchObject({ kind: 'follow-up', text: 'plan more' })
    expect(readEvent('workflow_dispatch', {}, { ...settings, goal: 'do it' })).toEqual({
      kind: 'goal',
      goal: 'do it'
    })
  })

  it.each([
    [{ goal: 'x', tasks: 'y' }, 'goal', /either 'goal' .* or 'tasks'/],
    [{ 'run-plan': 'true' }, 'run-plan', /needs 'goal'/],
    [{ goal: 'x', mode: 'run' }, 'plan', /mode: run needs the plan job's 'plan' output/],
    [{ 'run-plan': 'yes', goal: 'x' }, 'run-plan', /expected true or false/]
  ])('bad goal inputs name the input: %j', (inputs, name, message) => {
    const env = Object.fromEntries(Object.entries(inputs).map(([k, v]) => [inputEnvName(k), v]))
    let error: unknown
    try {
      parseConfig(env)
    } catch (e) {
      error = e
    }
    expect(error).toBeInstanceOf(InputError)
    expect((error as InputError).input).toBe(name)
    expect((error as InputError).message).toMatch(message)
  })

  it('checklistItems ignores unindented prose between items', () => {
    expect(checklistItems('- [ ] a\nprose\n  not a prompt\n- [x] b').map(i => i.prompt)).toEqual([
      'a',
      'b'
    ])
  })
})
