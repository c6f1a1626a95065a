import { spawnSync } from 'node:child_process'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { idFromPrompt, idProblem, validateBranchPrefix } from '../../src/tasks/ids.js'
import { parseTasks, TaskListError } from '../../src/tasks/parse.js'

/** git's own verdict on a branch name: the rules the id check must be at least as strict as. */
function gitAcceptsBranch(branch: string): boolean {
  return (
    spawnSync('git', ['check-ref-format', '--branch', branch], { stdio: 'ignore' }).status === 0
  )
}

const SHELL = [
  '`',
  '$',
  '(',
  ')',
  ';',
  '&',
  '|',
  '<',
  '>',
  '"',
  "'",
  '\\',
  '*',
  '?',
  '~',
  '#',
  '!',
  '{',
  '}',
  '\n',
  '\t',
  ' ',
  '-',
  '.',
  '/',
  ':',
  '@',
  '^',
  '[',
  ']'
]

/** Prompts as users and issues write them: any unicode, shell syntax, newlines, dots and dashes. */
const prompt = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 300 }),
  fc.string({ unit: 'grapheme', maxLength: 120 }),
  fc.string({
    unit: fc.constantFrom(...SHELL, 'a', 'Z', '9', 'é', '..', '.lock', '\u0000', '\u202e'),
    maxLength: 80
  }),
  fc.stringMatching(/^[A-Za-z0-9 .-]{0,200}$/)
)

/** Ids a user might give: mostly near-valid, so the boundary cases are hit often. */
const givenId = fc.oneof(
  fc.stringMatching(/^[a-z0-9._-]{1,70}$/),
  fc.string({
    unit: fc.constantFrom(
      'a',
      '0',
      '.',
      '-',
      '_',
      '/',
      '..',
      '.lock',
      '@{',
      'A',
      ' ',
      '~',
      '^',
      ':',
      '\\'
    ),
    maxLength: 20
  }),
  fc.string({ unit: 'binary', maxLength: 70 })
)

describe('the git oracle', () => {
  it('is real: git refuses what its rules forbid', () => {
    expect(gitAcceptsBranch('fleet/fix-login')).toBe(true)
    for (const bad of [
      'fleet/a..b',
      'fleet/x.lock',
      'fleet/.x',
      'fleet/a b',
      'fleet/x.',
      '-x',
      'fleet/a~1'
    ]) {
      expect(gitAcceptsBranch(bad), bad).toBe(false)
    }
  })
})

describe('idProblem', () => {
  it.each(['a', '0', 'fix-login-3f2a1c', 'issue-12-3', 'v1.2_x', 'a'.repeat(63)])(
    'accepts %s',
    id => {
      expect(idProblem(id)).toBeUndefined()
    }
  )

  it.each([
    '',
    '../x',
    '-x',
    '.x',
    'a..b',
    'x.lock',
    'x.',
    'Fix',
    'a/b',
    'a b',
    'a:b',
    'a'.repeat(64)
  ])("refuses '%s'", id => {
    expect(idProblem(id)).toMatch(/not a valid id/)
  })
})

describe('idFromPrompt', () => {
  it('is a slug of the first words plus 6 hex of the hash', () => {
    expect(idFromPrompt('Fix the login bug, please!')).toMatch(
      /^fix-the-login-bug-please-[0-9a-f]{6}$/
    )
    expect(idFromPrompt('¿¿¿ 🚀 !!!')).toMatch(/^task-[0-9a-f]{6}$/)
  })

  it('is stable for the same prompt and differs for different prompts', () => {
    fc.assert(
      fc.property(prompt, prompt, (a, b) => {
        expect(idFromPrompt(a)).toBe(idFromPrompt(a))
        if (a !== b) expect(idFromPrompt(a)).not.toBe(idFromPrompt(b))
      }),
      { numRuns: 500 }
    )
    // Same first words, different text: the hash tells them apart.
    expect(idFromPrompt('Fix the bug in a.ts')).not.toBe(idFromPrompt('Fix the bug in b.ts'))
  })

  it('always yields a valid id whose branch git accepts (property, real git)', () => {
    fc.assert(
      fc.property(prompt, p => {
        const id = idFromPrompt(p)
        expect(idProblem(id)).toBeUndefined()
        expect(id.startsWith('-')).toBe(false)
        expect(id).not.toContain('..')
        expect(id).not.toMatch(/\p{Cc}/u)
        expect(Buffer.byteLength(`fleet/${id}`)).toBeLessThan(255)
        expect(gitAcceptsBranch(`fleet/${id}`)).toBe(true)
      }),
      { numRuns: 200 }
    )
  })
})

describe('given ids (property, real git)', () => {
  it('are refused, or make a branch git accepts under the prefix', () => {
    let accepted = 0
    let refused = 0
    fc.assert(
      fc.property(givenId, id => {
        let branch: string
        try {
          const [task] = parseTasks(JSON.stringify([{ id, prompt: 'do it' }]), 'tasks', 'fleet/')
          branch = task?.branch ?? ''
        } catch (error) {
          expect(error).toBeInstanceOf(TaskListError)
          refused++
          return
        }
        accepted++
        expect(branch).toBe(`fleet/${id}`)
        expect(id.startsWith('-')).toBe(false)
        expect(gitAcceptsBranch(branch)).toBe(true)
      }),
      { numRuns: 300 }
    )
    // Both sides of the boundary were exercised.
    expect(accepted).toBeGreaterThan(20)
    expect(refused).toBeGreaterThan(20)
  })
})

describe('validateBranchPrefix', () => {
  it('accepted prefixes make branches git accepts (property, real git)', () => {
    const prefix = fc.string({
      unit: fc.constantFrom('a', 'Z', '0', '.', '-', '_', '/', 'lock', '@', ' '),
      maxLength: 16
    })
    fc.assert(
      fc.property(prefix, p => {
        if (validateBranchPrefix(p) === undefined) expect(gitAcceptsBranch(`${p}task-1`)).toBe(true)
      }),
      { numRuns: 200 }
    )
  })
})
