import { describe, expect, it } from 'vitest'
import { parseTasks, TaskListError, titleOf } from '../../src/tasks/parse.js'
import { idFromPrompt } from '../../src/tasks/ids.js'

const SRC = "Input 'tasks'"
const parse = (text: string, opts?: { list?: boolean }) => parseTasks(text, SRC, 'fleet/', opts)

function refusal(text: string, opts?: { list?: boolean }): TaskListError {
  try {
    parse(text, opts)
  } catch (error) {
    expect(error).toBeInstanceOf(TaskListError)
    return error as TaskListError
  }
  throw new Error(`parseTasks accepted ${JSON.stringify(text.slice(0, 200))}`)
}

describe('parseTasks: the three shapes', () => {
  it('empty text is no tasks', () => {
    expect(parse('')).toEqual([])
    expect(parse('  \n \n')).toEqual([])
  })

  it('one prompt per non-empty line, trimmed', () => {
    const tasks = parse('Fix the login bug\n\n   Add tests for the parser  \n')
    expect(tasks.map(t => t.prompt)).toEqual(['Fix the login bug', 'Add tests for the parser'])
    expect(tasks.map(t => t.branch)).toEqual(tasks.map(t => `fleet/${t.id}`))
    expect(tasks.every(t => t.source.kind === 'input')).toBe(true)
  })

  it('a YAML list of strings and objects', () => {
    const tasks = parse(
      [
        '- Fix the login bug',
        '- id: docs-1',
        '  prompt: |',
        '    Update the README.',
        '    Mention the new flag.',
        '  title: Docs',
        '  model: glm-4.6',
        '  max-turns: 7',
        '  verify: npm test',
        '  effort: low'
      ].join('\n')
    )
    expect(tasks).toHaveLength(2)
    expect(tasks[0]).toMatchObject({ prompt: 'Fix the login bug', title: 'Fix the login bug' })
    expect(tasks[1]).toEqual({
      id: 'docs-1',
      prompt: 'Update the README.\nMention the new flag.',
      title: 'Docs',
      branch: 'fleet/docs-1',
      source: { kind: 'input' },
      model: 'glm-4.6',
      maxTurns: 7,
      verify: 'npm test',
      effort: 'low'
    })
  })

  it('a JSON list of strings and objects', () => {
    const tasks = parse('["Fix the login bug", {"id": "b", "prompt": "Add tests", "max-turns": 3}]')
    expect(tasks.map(t => [t.id, t.prompt, t.maxTurns])).toEqual([
      [idFromPrompt('Fix the login bug'), 'Fix the login bug', undefined],
      ['b', 'Add tests', 3]
    ])
  })

  it('the same prompt gets the same id in every shape', () => {
    const id = idFromPrompt('Fix the login bug')
    expect(parse('Fix the login bug')[0]?.id).toBe(id)
    expect(parse('- Fix the login bug')[0]?.id).toBe(id)
    expect(parse('[{"prompt": "Fix the login bug"}]')[0]?.id).toBe(id)
  })

  it('a task file must be a list', () => {
    expect(refusal('just one prompt', { list: true }).message).toMatch(/expected a list of tasks/)
    expect(refusal('prompt: x', { list: true }).message).toMatch(/expected a list of tasks/)
  })

  it('a prompt line that merely starts with "[" is a prompt, not a broken JSON list', () => {
    const tasks = parse('[docs] Update the README\nFix the typo in CONTRIBUTING')
    expect(tasks.map(t => t.prompt)).toEqual([
      '[docs] Update the README',
      'Fix the typo in CONTRIBUTING'
    ])
  })

  it('titles are the first line, cut to a PR-title length', () => {
    expect(titleOf('  First line \nsecond')).toBe('First line')
    const long = titleOf('x'.repeat(100))
    expect(long).toHaveLength(72)
    expect(long.endsWith('...')).toBe(true)
  })
})

describe('parseTasks refuses bad items, naming the item', () => {
  it('an object without a prompt', () => {
    const error = refusal('- fix a\n- title: no prompt here\n')
    expect(error.message).toContain(SRC)
    expect(error.message).toMatch(/item 2\b/)
    expect(error.message).toMatch(/prompt/)
  })

  it('an empty prompt', () => {
    expect(refusal('[{"prompt": ""}]').message).toMatch(/item 1\b.*prompt/)
  })

  it('unknown keys (a typo must not silently drop a setting)', () => {
    const error = refusal('- prompt: fix a\n  max_turns: 3\n')
    expect(error.message).toMatch(/item 1\b/)
    expect(error.message).toContain('max_turns')
  })

  it.each([
    ['a non-string, non-object item', '[42]'],
    ['a nested list', '[["a"]]'],
    ['a bad max-turns', '[{"prompt": "a", "max-turns": 0}]'],
    ['a fractional max-turns', '[{"prompt": "a", "max-turns": 1.5}]'],
    ['an unknown effort', '[{"prompt": "a", "effort": "extreme"}]'],
    ['a numeric id', '[{"prompt": "a", "id": 7}]']
  ])('%s', (_what, text) => {
    expect(refusal(text).message).toMatch(/item 1\b/)
  })

  it('invalid YAML/JSON', () => {
    expect(refusal('[{"prompt": "a"').message).toMatch(/not valid YAML\/JSON/)
  })

  it.each([
    '../x',
    '-x',
    'a..b',
    'x.lock',
    'x.',
    'Fix-Login',
    'a/b',
    'a b',
    'ü',
    'x'.repeat(64),
    '.x',
    '_x'
  ])("the given id '%s'", id => {
    const error = refusal(JSON.stringify([{ id, prompt: 'do it' }]))
    expect(error.message).toMatch(/item 1\b/)
    expect(error.message).toContain('not a valid id')
  })

  it('a 63-character id is the longest allowed', () => {
    const id = 'a'.repeat(63)
    expect(parse(JSON.stringify([{ id, prompt: 'p' }]))[0]?.branch).toBe(`fleet/${id}`)
  })

  it('duplicate ids, given or generated', () => {
    expect(refusal('- {id: a, prompt: x}\n- {id: a, prompt: y}').message).toMatch(
      /two tasks have the id 'a'/
    )
    expect(refusal('Fix it\nFix it').message).toMatch(/two tasks have the id/)
  })

  it('a YAML alias bomb is refused at once, not expanded', () => {
    const names = 'abcdefghi'.split('')
    const lines = [`- &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]`]
    for (let i = 1; i < names.length; i++) {
      const prev = `*${names[i - 1]}`
      lines.push(`- &${names[i]} [${Array(9).fill(prev).join(', ')}]`)
    }
    const started = performance.now()
    const error = refusal(lines.join('\n'))
    // Expanded, this is 9^9 (387 million) strings: only a refusal can come back this fast.
    expect(performance.now() - started).toBeLessThan(2000)
    expect(error.message).toMatch(/alias/i)
  })
})

describe('parseTasks at scale', () => {
  it('parses 1,000 tasks', () => {
    const prompts = Array.from({ length: 1000 }, (_, i) => `Task number ${i}: fix module ${i}`)
    const lines = parse(prompts.join('\n'))
    expect(lines.map(t => t.prompt)).toEqual(prompts)
    expect(new Set(lines.map(t => t.id)).size).toBe(1000)
    const yaml = parse(prompts.map((p, i) => `- id: t-${i}\n  prompt: "${p}"`).join('\n'))
    expect(yaml.map(t => t.id)).toEqual(prompts.map((_, i) => `t-${i}`))
  })

  it('keeps a 1 MB prompt verbatim (unicode, newlines, shell metacharacters)', () => {
    const chunk = 'Fix `rm -rf $HOME`; echo "$(id)" | tee \'x\' && ünïcødé 漢字 🚀\n\t<>&*?[]{}\\ '
    let prompt = ''
    while (prompt.length < 1024 * 1024) prompt += chunk
    prompt = `Start ${prompt} end`
    const [task] = parse(JSON.stringify([{ prompt }]))
    expect(task?.prompt.length).toBe(prompt.length)
    expect(task?.prompt === prompt).toBe(true)
    expect(task?.id).toBe(idFromPrompt(prompt))
  })
})
