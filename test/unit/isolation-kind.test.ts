// Issue 27: cage/isolation.ts is the one file that knows which isolation a run uses. Every
// other file of src/ asks the Isolation it prepared; none compares against an isolation's name.
// The files that implement one isolation (cage/sandbox*.ts, cage/container*.ts) are its own.
import { readFileSync } from 'node:fs'
import path from 'node:path'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'
import { tsSources } from '../support/unit.js'
import { parseConfig } from '../../src/config.js'
import { inputEnvName } from '../../src/inputs.js'
import { PROCESS_WARNING, prepareIsolation } from '../../src/cage/isolation.js'

const ROOT = path.resolve(import.meta.dirname, '../..')
const SRC = path.join(ROOT, 'src')
const NAMES = new Set(['sandbox', 'container', 'process'])
const OWN = /^src\/cage\/(isolation|sandbox[^/]*|container[^/]*)\.ts$/

const sources = tsSources

const isName = (node: ts.Node) =>
  (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) && NAMES.has(node.text)

const EQUALITY = new Set([
  ts.SyntaxKind.EqualsEqualsEqualsToken,
  ts.SyntaxKind.ExclamationEqualsEqualsToken,
  ts.SyntaxKind.EqualsEqualsToken,
  ts.SyntaxKind.ExclamationEqualsToken
])

/**
 * Where a source branches on an isolation's name: `x === 'container'` (either side, any equality),
 * `case 'sandbox':`, or a lookup keyed by an `isolation` field (`{...}[config.isolation]`).
 */
export function branchesOnIsolation(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true)
  const found: string[] = []
  const at = (node: ts.Node) =>
    `${file}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}: ${node.getText()}`
  const visit = (node: ts.Node): void => {
    if (
      ts.isBinaryExpression(node) &&
      EQUALITY.has(node.operatorToken.kind) &&
      (isName(node.left) || isName(node.right))
    )
      found.push(at(node))
    if (ts.isCaseClause(node) && isName(node.expression)) found.push(at(node.expression))
    if (
      ts.isElementAccessExpression(node) &&
      ts.isPropertyAccessExpression(node.argumentExpression) &&
      node.argumentExpression.name.text === 'isolation'
    )
      found.push(at(node))
    ts.forEachChild(node, visit)
  }
  visit(source)
  return found
}

describe('the isolation kind is known in one place (cage/isolation.ts)', () => {
  it('no file of src/ outside the isolation and its implementations compares an isolation name', () => {
    const files = sources(SRC).map(f => path.relative(ROOT, f))
    expect(files.length).toBeGreaterThan(100)
    const branching = files
      .filter(f => !OWN.test(f))
      .flatMap(f => branchesOnIsolation(f, readFileSync(path.join(ROOT, f), 'utf8')))
    expect(branching).toEqual([])
  })

  it('the isolation module itself is found branching (the check reads real code)', () => {
    const own = 'src/cage/isolation.ts'
    expect(branchesOnIsolation(own, readFileSync(path.join(ROOT, own), 'utf8'))).not.toEqual([])
  })

  it('finds each way a made-up source could branch on the kind', () => {
    const made = [
      "if (config.isolation !== 'container') listenOnLoopback()",
      "const root = 'sandbox' === opts.isolation",
      'const warn = run.config.isolation == `process`',
      "switch (config.isolation) { case 'sandbox': break }",
      'const host = HOSTS[config.isolation]'
    ]
    const found = made.map(text => branchesOnIsolation('made-up.ts', text))
    expect(found.map(f => f.length)).toEqual([1, 1, 1, 1, 1])
    expect(found[0]?.[0]).toBe("made-up.ts:1: config.isolation !== 'container'")
  })

  it('lets alone what only names a kind or compares other strings', () => {
    const fine = [
      "const kinds = ['sandbox', 'container', 'process'] as const",
      "log('isolation: sandbox needs bwrap')",
      "if (mode === 'plan') planOnly()",
      'const isRoot = ctx.isRoot && ctx.isolation.keepsRunnerUser'
    ]
    expect(fine.flatMap(text => branchesOnIsolation('fine.ts', text))).toEqual([])
  })
})

describe('what callers ask the Isolation instead of its name', () => {
  const prepared = (inputs: Record<string, string>) => {
    const env = Object.fromEntries(Object.entries(inputs).map(([k, v]) => [inputEnvName(k), v]))
    return prepareIsolation(parseConfig(env), { host: {}, log: () => undefined })
  }
  const runner = { file: '/usr/bin/claude', version: '2.1.332' }

  it('process: the runner user, loopback, the runner binary, and the warning', async () => {
    const iso = await prepared({ isolation: 'process' })
    expect([iso.keepsRunnerUser, iso.seesRunnerPaths, iso.bindsCaches]).toEqual([true, true, false])
    expect(iso.warning).toBe(PROCESS_WARNING)
    expect(await iso.gatewayHost({})).toBe('127.0.0.1')
    const logged: string[] = []
    expect(
      await iso.claude(
        () => Promise.resolve(runner),
        m => logged.push(m)
      )
    ).toEqual(runner)
    expect(logged).toEqual(['claude: 2.1.332 (/usr/bin/claude)'])
    expect(iso.refused()).toEqual([])
  })

  it("container: its own user and paths, the image's binary (the runner's never resolved)", async () => {
    const iso = await prepared({ isolation: 'container' })
    expect([iso.keepsRunnerUser, iso.seesRunnerPaths, iso.bindsCaches]).toEqual([
      false,
      false,
      false
    ])
    expect(iso.warning).toBeUndefined()
    const resolve = () => Promise.reject(new Error('the runner binary was resolved'))
    const claude = await iso.claude(resolve, () => undefined)
    expect(claude.file).toBe('claude')
    expect(claude.version).toMatch(/^the one in ghcr\.io\//)
  })

  it("container: a task's files are a view on podman (overlay volumes), a worktree on docker", async () => {
    const podman = await prepared({ isolation: 'container', 'container-runtime': 'podman' })
    const docker = await prepared({ isolation: 'container', 'container-runtime': 'docker' })
    expect([podman.views, docker.views]).toEqual([true, false])
    // Under a root action the container's user is the image's (1001), who must own the checkout.
    const root = process.getuid?.() === 0
    expect(podman.viewOwner).toBe(root ? '1001:1001' : undefined)
    expect((await prepared({ isolation: 'process' })).views).toBe(false)
  })

  it('a caged command never gets the model key, whatever the kind', async () => {
    const iso = await prepared({ isolation: 'process' })
    const result = await iso.run({
      taskId: 't',
      label: 'verify',
      command: 'test -z "$ANTHROPIC_API_KEY$ANTHROPIC_AUTH_TOKEN" && test "$KEEP" = yes',
      cwd: process.cwd(),
      env: {
        PATH: process.env.PATH ?? '',
        ANTHROPIC_API_KEY: 'k',
        ANTHROPIC_AUTH_TOKEN: 'k',
        KEEP: 'yes'
      },
      timeoutMs: 60_000,
      host: {},
      log: () => undefined
    })
    expect(result.exitCode).toBe(0)
  })
})
