// Every child the action starts gets an environment it chose (src/child-env.ts, worker/env.ts,
// git's gitEnv): a call of process.ts's run/runOk or worker/spawn.ts's spawnGroup without an
// `env` would hand the child the action's own environment, the GitHub token and the model key
// included. Read from the source with TypeScript's parser, as the layer test reads imports; an
// options object built elsewhere (a variable) is taken on trust.
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'

const SRC = path.resolve(import.meta.dirname, '../../src')
const STARTERS = new Set(['run', 'runOk', 'spawnGroup'])

/** `file:line callee(...)` of every call of a starter whose options carry no `env`. */
function callsWithoutEnv(file: string): string[] {
  const text = readFileSync(file, 'utf8')
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true)
  const found: string[] = []
  const visit = (node: ts.Node) => {
    if (
      ts.isCallExpression(node) &&
      ts.isIdentifier(node.expression) &&
      STARTERS.has(node.expression.text) &&
      node.arguments.length >= 2
    ) {
      const opts = node.arguments[2]
      const hasEnv =
        opts !== undefined &&
        (!ts.isObjectLiteralExpression(opts) ||
          opts.properties.some(
            p =>
              (ts.isPropertyAssignment(p) || ts.isShorthandPropertyAssignment(p)) &&
              p.name.getText(source) === 'env'
          ) ||
          opts.properties.some(p => ts.isSpreadAssignment(p)))
      if (!hasEnv) {
        const { line } = source.getLineAndCharacterOfPosition(node.getStart(source))
        found.push(`${path.relative(SRC, file)}:${line + 1} ${node.expression.text}`)
      }
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  return found
}

describe('child processes', () => {
  it('every run, runOk and spawnGroup in src/ passes an environment (the demo stand-ins aside)', () => {
    const files = readdirSync(SRC, { recursive: true, withFileTypes: true })
      .filter(e => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.d.ts'))
      .map(e => path.join(e.parentPath, e.name))
      .filter(f => !f.startsWith(path.join(SRC, 'demo')))
    expect(files.length).toBeGreaterThan(50)
    expect(files.flatMap(callsWithoutEnv)).toEqual([])
  })

  it('finds a call without one, and takes a call with one', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'child-spawns-'))
    const file = path.join(dir, 'a.ts')
    writeFileSync(
      file,
      [
        "await runOk('npm', ['install'], { cwd: '/x' })",
        "await run('git', ['status'])",
        "spawnGroup('sh', ['-c', 'x'], { cwd, env })",
        "await run('git', ['status'], { env: gitEnv(host), timeoutMs: 1 })",
        "await runOk('x', [], options)"
      ].join('\n')
    )
    expect(callsWithoutEnv(file).map(c => c.replace(/^.*a\.ts/, 'a.ts'))).toEqual([
      'a.ts:1 runOk',
      'a.ts:2 run'
    ])
  })
})
