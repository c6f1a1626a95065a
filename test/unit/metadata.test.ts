import { existsSync, readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { CURRENT_INPUTS, INPUTS, type InputSpec } from '../../src/inputs.js'
import { groupInputs } from '../../scripts/input-groups.js'

const root = new URL('../../', import.meta.url)
const read = (file: string) => readFileSync(new URL(file, root), 'utf8')

interface ActionYml {
  inputs: Record<
    string,
    { description?: string; required?: boolean; default?: string; deprecationMessage?: string }
  >
  outputs: Record<string, { description?: string }>
  runs: { using: string; main: string }
}
const action = parse(read('action.yml')) as ActionYml

// The public interface's fixed names (docs/contract.md), held here so a rename fails a test.
const CONTRACT_INPUTS = [
  'tasks',
  'tasks-file',
  'api-key',
  'base-url',
  'auth-header',
  'model',
  'small-model',
  'max-parallel',
  'max-turns',
  'timeout-minutes',
  'permission-mode',
  'allowed-tools',
  'disallowed-tools',
  'verify',
  'base-branch',
  'branch-prefix',
  'draft',
  'github-token',
  'trigger-phrase',
  'queue-label',
  'claude-path',
  'dry-run',
  'goal',
  'update-prs',
  'run-plan',
  'isolation',
  'allowed-domains',
  'merge-method',
  'mark-ready',
  'max-daily-cost-usd',
  'max-monthly-cost-usd',
  'max-user-daily-cost-usd'
]
const CONTRACT_DEFAULTS: Record<string, string> = {
  'auth-header': 'auto',
  'max-parallel': 'auto',
  'max-turns': '40',
  'timeout-minutes': '30',
  'permission-mode': 'bypassPermissions',
  'branch-prefix': 'fleet/',
  draft: 'false',
  'github-token': '${{ github.token }}',
  'trigger-phrase': '/fleet',
  'queue-label': 'fleet',
  'dry-run': 'false',
  'mark-ready': 'false',
  'run-plan': 'false',
  'update-prs': 'false',
  isolation: 'sandbox'
}
const CONTRACT_OUTPUTS = ['results', 'pull-requests', 'succeeded', 'failed']

describe('action.yml', () => {
  it('runs on node24 from dist/index.js', () => {
    expect(action.runs).toMatchObject({ using: 'node24', main: 'dist/index.js' })
  })

  it('declares exactly the inputs of src/inputs.ts, with the same defaults and descriptions', () => {
    expect(Object.keys(action.inputs).sort()).toEqual(Object.keys(INPUTS).sort())
    for (const [name, spec] of Object.entries(INPUTS as Record<string, InputSpec>)) {
      const declared = action.inputs[name]
      // A deprecated name has no default: the runner passes it only when a workflow gives it.
      expect(declared?.default, name).toBe(spec.deprecated ? undefined : spec.default)
      expect(declared?.description, name).toBe(spec.description)
    }
    expect(action.inputs['github-token']?.default).toBe('${{ github.token }}')
  })

  it("has every input the contract names, with the contract's defaults", () => {
    for (const name of CONTRACT_INPUTS) expect(action.inputs, name).toHaveProperty([name])
    for (const [name, value] of Object.entries(CONTRACT_DEFAULTS))
      expect(action.inputs[name]?.default, name).toBe(value)
    const marked = Object.entries(INPUTS)
      .filter(([, s]) => 'contract' in s && s.contract)
      .map(([n]) => n)
    expect(marked.sort()).toEqual([...CONTRACT_INPUTS].sort())
  })

  it('has at most 55 inputs besides the deprecated names, each of which says its new form', () => {
    const current = Object.entries(action.inputs).filter(([, spec]) => !spec.deprecationMessage)
    expect(current.length).toBeLessThanOrEqual(55)
    expect(current.map(([name]) => name).sort()).toEqual([...CURRENT_INPUTS].sort())
    for (const [name, spec] of Object.entries(INPUTS as Record<string, InputSpec>)) {
      if (!spec.deprecated) continue
      const message = action.inputs[name]?.deprecationMessage ?? ''
      expect(message, name).toContain(`'${name}'`)
      expect(message, name).toContain(`${spec.deprecated.input}: {`)
      expect(Object.keys(INPUTS), name).toContain(spec.deprecated.input)
    }
  })

  it('requires no input: api-key may come from the environment, the rest have defaults or are optional', () => {
    for (const [name, spec] of Object.entries(action.inputs))
      expect(spec.required ?? false, name).toBe(false)
  })

  it('has every output the contract names, each described', () => {
    for (const name of CONTRACT_OUTPUTS) {
      expect(action.outputs, name).toHaveProperty([name])
      expect(action.outputs[name]?.description, name).toBeTruthy()
    }
  })
})

/**
 * The input names listed in the README's inputs tables: every table whose first header cell is
 * "input" (one per heading of scripts/input-groups.ts).
 */
function readmeInputs(readme: string): string[] | undefined {
  const lines = readme.split('\n')
  const headers = lines.flatMap((l, i) => (/^\|\s*`?inputs?`?\s*\|/i.test(l) ? [i] : []))
  if (!headers.length) return undefined
  const names: string[] = []
  for (const header of headers)
    for (const line of lines.slice(header + 2)) {
      if (!line.startsWith('|')) break
      const name = /^\|\s*`([^`]+)`/.exec(line)?.[1]
      if (name) names.push(...name.split(/`,\s*`/))
    }
  return names
}

describe('README', () => {
  it('lists every input but the deprecated names in its inputs tables', ({ skip }) => {
    if (!existsSync(new URL('README.md', root))) skip('README.md does not exist yet')
    const names = readmeInputs(read('README.md'))
    if (!names) skip("README.md has no inputs table yet (a table whose first column is 'input')")
    expect([...(names ?? [])].sort()).toEqual([...CURRENT_INPUTS].sort())
  })

  it('reads every inputs table, not only the first', () => {
    const two =
      '| input | a |\n|---|---|\n| `x` | 1 |\n\n### B\n| input | a |\n|---|---|\n| `y` | 2 |'
    expect(readmeInputs(two)).toEqual(['x', 'y'])
  })

  it('places every input under a heading of scripts/input-groups.ts', () => {
    const { unplaced } = groupInputs(CURRENT_INPUTS)
    expect(unplaced, 'add these to a group in scripts/input-groups.ts').toEqual([])
    expect(groupInputs([...CURRENT_INPUTS, 'no-such-input']).unplaced).toEqual(['no-such-input'])
  })

  it('is an index: at most 300 lines, the two commands before the quick start', () => {
    const readme = read('README.md')
    expect(readme.split('\n').length).toBeLessThanOrEqual(300)
    const quickStart = readme.indexOf('## Quick start')
    for (const command of ['npm run demo', 'npm test']) {
      expect(readme.indexOf(command), command).toBeGreaterThan(0)
      expect(readme.indexOf(command), command).toBeLessThan(quickStart)
    }
  })
})
