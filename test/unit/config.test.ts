import { describe, expect, it } from 'vitest'
import { inputError as anInputError } from '../support/unit.js'
import { parseConfig, type Config } from '../../src/config.js'
import { INPUTS, inputEnvName, type InputName } from '../../src/inputs.js'

/** The environment the runner would give for these inputs. */
function env(inputs: Partial<Record<InputName, string>> = {}): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(inputs).map(([k, v]) => [inputEnvName(k), v]))
}

const inputError = (inputs: Partial<Record<InputName, string>>) => anInputError(inputs)

describe('inputEnvName', () => {
  it('upper-cases, keeps hyphens and turns spaces into underscores, as the runner does', () => {
    expect(inputEnvName('api-key')).toBe('INPUT_API-KEY')
    expect(inputEnvName('max turns')).toBe('INPUT_MAX_TURNS')
  })
})

describe('parseConfig defaults', () => {
  const config: Config = parseConfig({})

  it('applies the defaults of src/inputs.ts', () => {
    expect(config).toMatchObject({
      tasks: '',
      authHeader: 'auto',
      maxParallel: 'auto',
      maxTurns: 40,
      timeoutMs: 30 * 60_000,
      permissionMode: 'bypassPermissions',
      allowedTools: [],
      disallowedTools: [],
      tools: ['Bash', 'Edit', 'Read', 'Write'],
      setupTimeoutMs: 10 * 60_000,
      verifyTimeoutMs: 10 * 60_000,
      branchPrefix: 'fleet/',
      draft: false,
      commitAuthor: {
        name: 'github-actions[bot]',
        email: '41898282+github-actions[bot]@users.noreply.github.com'
      },
      triggerPhrase: '/fleet',
      queueLabel: 'fleet',
      maxTasks: 20,
      effort: 'high',
      claudeArgs: [],
      maxAttempts: 3,
      retryDelayMs: 20_000,
      deadlineMs: 340 * 60_000,
      dryRun: false
    })
  })

  it('leaves optional inputs undefined, and does not take the ${{ }} expression as a token', () => {
    for (const key of [
      'apiKey',
      'baseUrl',
      'model',
      'smallModel',
      'verify',
      'baseBranch'
    ] as const) {
      expect(config[key], key).toBeUndefined()
    }
    expect(config.githubToken).toBeUndefined()
    expect(config.tasksFile).toBeUndefined()
  })

  it('treats a blank input as unset (the runner passes every declared input)', () => {
    const blank = Object.fromEntries(Object.keys(INPUTS).map(k => [k, '  ']))
    expect(parseConfig(env(blank))).toEqual(config)
  })
})

describe('parseConfig values', () => {
  it('reads given values', () => {
    const c = parseConfig(
      env({
        'max-parallel': '8',
        'timeout-minutes': '0.5',
        'allowed-tools': 'Edit, Write\nBash(npm test)',
        tools: 'default',
        draft: 'TRUE',
        'base-url': 'https://api.z.ai/api/anthropic/',
        'commit-author': 'Fleet Bot <fleet@example.com>'
      })
    )
    expect(c.maxParallel).toBe(8)
    expect(parseConfig(env({ 'max-parallel': 'auto' })).maxParallel).toBe('auto')
    expect(c.timeoutMs).toBe(30_000)
    expect(c.allowedTools).toEqual(['Edit', 'Write', 'Bash(npm test)'])
    expect(c.tools).toBeUndefined()
    expect(c.draft).toBe(true)
    expect(c.baseUrl).toBe('https://api.z.ai/api/anthropic')
    expect(c.commitAuthor).toEqual({ name: 'Fleet Bot', email: 'fleet@example.com' })
  })
})

describe('parseConfig refuses bad values with a message naming the input and the expected form', () => {
  const numeric: [InputName, string[], RegExp][] = [
    [
      'max-parallel',
      ['abc', '0', '-1', '1.5', '65', 'Infinity', 'NaN', 'Auto'],
      /whole number 1 to 64, or auto/
    ],
    ['max-turns', ['ten', '0', '2.5', '1001'], /whole number 1 to 1000/],
    ['timeout-minutes', ['soon', '0', '-3', '361'], /number 0.01 to 360/],
    ['verify-timeout-minutes', ['x', '0'], /number 0.01 to 360/],
    ['max-tasks', ['many', '0', '3.5'], /whole number 1 to 1000/],
    ['max-attempts', ['0', '11', 'x'], /whole number 1 to 10/],
    ['retry-delay-seconds', ['-1', '601', 'x'], /number 0 to 600/],
    ['deadline-minutes', ['0', 'x'], /number 0.01 to 10000/]
  ]
  for (const [name, bad, form] of numeric) {
    it.each(bad)(`${name}: '%s'`, value => {
      const error = inputError({ [name]: value })
      expect(error.input).toBe(name)
      expect(error.message).toContain(`'${name}'`)
      expect(error.message).toMatch(form)
      expect(error.message).toContain(`'${value}'`)
    })
  }

  it.each(['0x10', '1e1', '0b11'])(
    "max-parallel: '%s' is not written as a whole number and is refused",
    value => {
      expect(inputError({ 'max-parallel': value }).input).toBe('max-parallel')
    }
  )

  it.each(['draft', 'dry-run'] as const)('%s must be true or false', name => {
    for (const value of ['yes', '1', 'on', 'tru']) {
      const error = inputError({ [name]: value })
      expect(error.input).toBe(name)
      expect(error.message).toMatch(/true or false/)
    }
  })

  it.each([
    ['auth-header', 'basic', /auto, bearer, x-api-key/],
    ['permission-mode', 'yolo', /bypassPermissions, acceptEdits, dontAsk, default, plan/],
    ['effort', 'extreme', /low, medium, high, xhigh, max/]
  ] as const)('%s is one of its values', (name, value, form) => {
    const error = inputError({ [name]: value })
    expect(error.input).toBe(name)
    expect(error.message).toMatch(form)
  })

  it('permission-mode dontAsk without allowed-tools is refused, and pointed at allowed-tools', () => {
    const error = inputError({ 'permission-mode': 'dontAsk' })
    expect(error.input).toBe('permission-mode')
    expect(error.message).toContain('allowed-tools')
    expect(
      parseConfig(env({ 'permission-mode': 'dontAsk', 'allowed-tools': 'Edit' })).permissionMode
    ).toBe('dontAsk')
  })

  it.each([
    '-p',
    '--print',
    '--output-format json',
    '--output-format=text',
    '--verbose --settings x.json'
  ])("claude-args '%s' is refused: the action sets those flags", args => {
    const error = inputError({ 'claude-args': args })
    expect(error.input).toBe('claude-args')
    expect(error.message).toMatch(/set by the action/)
  })

  it('claude-args that do not touch reserved flags pass through, split on whitespace', () => {
    expect(
      parseConfig(env({ 'claude-args': '--fallback-model  glm-4.5\n--debug' })).claudeArgs
    ).toEqual(['--fallback-model', 'glm-4.5', '--debug'])
  })

  it.each([
    'ftp://models.example',
    'api.z.ai',
    'javascript:alert(1)',
    'file:///etc/passwd',
    'http://'
  ])("base-url '%s' must be an http(s) URL", value => {
    const error = inputError({ 'base-url': value })
    expect(error.input).toBe('base-url')
    expect(error.message).toMatch(/http\(s\) URL/)
  })

  it('base-url accepts http on loopback (test servers, gateways)', () => {
    expect(parseConfig(env({ 'base-url': 'http://127.0.0.1:8080' })).baseUrl).toBe(
      'http://127.0.0.1:8080'
    )
  })

  it.each([
    'Fleet Bot',
    'fleet@example.com',
    '<fleet@example.com>',
    'Fleet <a b@c>',
    'Fleet <>',
    'Fleet <x'
  ])("commit-author '%s' must be 'Name <email>'", value => {
    const error = inputError({ 'commit-author': value })
    expect(error.input).toBe('commit-author')
    expect(error.message).toContain("'Name <email>'")
  })

  it.each(['-fleet/', 'fleet//', 'a..b/', 'fleet.lock/', 'fleet/.x/', 'fleet wood/', 'Fleet/ü'])(
    "branch-prefix '%s' that would make an invalid ref is refused",
    value => {
      expect(inputError({ 'branch-prefix': value }).input).toBe('branch-prefix')
    }
  )
})

describe('update-prs', () => {
  it('is off by default and on when asked', () => {
    expect(parseConfig(env()).updatePrs).toBe(false)
    expect(parseConfig(env({ 'update-prs': 'true' })).updatePrs).toBe(true)
  })

  it('refuses tasks, tasks-file or goal beside it, naming the input and the fix', () => {
    for (const extra of [{ tasks: 'do x' }, { 'tasks-file': 't.yml' }, { goal: 'do y' }]) {
      const error = inputError({ 'update-prs': 'true', ...extra })
      expect(error.message).toContain('update-prs')
      expect(error.message).toContain('runs no task')
    }
  })

  it('names a value that is not a boolean', () => {
    expect(inputError({ 'update-prs': 'yes please' }).message).toContain('update-prs')
  })
})

describe('the landing train: mode: merge, merge-method, mark-ready', () => {
  it('takes mode: merge; merge-method empty (the repository decides) or one of three; mark-ready off', () => {
    const c = parseConfig(env({ mode: 'merge' }))
    expect(c.mode).toBe('merge')
    expect(c.mergeMethod).toBeUndefined()
    expect(c.markReady).toBe(false)
    expect(parseConfig(env({ 'merge-method': 'rebase', 'mark-ready': 'true' }))).toMatchObject({
      mergeMethod: 'rebase',
      markReady: true
    })
  })

  it('names merge-method and the three values when given another', () => {
    const error = inputError({ 'merge-method': 'fast-forward' })
    expect(error.input).toBe('merge-method')
    expect(error.message).toContain('expected merge, squash or rebase')
    expect(error.message).toContain("'fast-forward'")
  })
})

describe('land', () => {
  it('is true by default and false only for the modes that run workers', () => {
    expect(parseConfig(env()).land).toBe(true)
    expect(parseConfig(env({ land: 'false' })).land).toBe(false)
    expect(parseConfig(env({ land: 'false', mode: 'run' })).land).toBe(false)
    for (const mode of ['plan', 'report', 'land']) {
      const error = inputError({ land: 'false', mode })
      expect(error.input).toBe('land')
      expect(error.message).toMatch(`not mode: ${mode}`)
    }
    expect(inputError({ land: 'maybe' }).message).toMatch(/expected true or false, got 'maybe'/)
    expect(parseConfig(env({ mode: 'land' })).mode).toBe('land')
  })
})
