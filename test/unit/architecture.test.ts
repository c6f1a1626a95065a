// Issue 17: the layer rules of docs/architecture.md, checked on the import graph of src/.
// Arrows point down: a room may import its own files, rooms in a lower band and the base band.
// An upward arrow fails the test unless listed in EXCEPTIONS (empty today), and a listed one that
// is gone fails it too (so the list only shrinks).
import { readdirSync, readFileSync, statSync } from 'node:fs'
import path from 'node:path'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'
import { tsSources } from '../support/unit.js'

const ROOT = path.resolve(import.meta.dirname, '../..')
const SRC = path.join(ROOT, 'src')
const DEMO = path.join(ROOT, 'demo')

/** Bands, highest first (docs/architecture.md). The room of src/x/y.ts is x, of src/x.ts is x. */
const BANDS: Record<string, number> = {
  // entry: the action, the CLI and the flow
  index: 7,
  cli: 7,
  engine: 7,
  main: 7,
  // what is asked: inputs, the event, the run's context, and the commands around the fleet
  config: 6,
  inputs: 6,
  event: 6,
  context: 6,
  triggers: 6,
  modes: 6,
  io: 6,
  'workflow-commands': 6,
  doctor: 6,
  progress: 6,
  // a run's pieces the entry strings together: preparing workers, the planner's and the refresh's
  // turns, cancel, shards' reports
  run: 6,
  planner: 5,
  fleet: 4,
  // spend held over every run: the ledger on its branch, the caps, the report
  spend: 4,
  // the edges: a worker, its cage (sandbox, container, views), the model gateway, git, GitHub
  worker: 3,
  cage: 3,
  gateway: 3,
  git: 3,
  github: 3,
  // pure renderers
  report: 2,
  // task lists, ids and slugs: pure, read by every room above
  tasks: 1,
  // the shared words and small helpers every room may use
  domain: 0,
  errors: 0,
  workspace: 0,
  process: 0,
  'child-env': 0,
  'inert-text': 0,
  // a model's price, a usage's cost, the prices input, a cost written out: gateway and reports
  prices: 0
}

/**
 * Upward arrows allowed for now, as `from -> to` rooms: none today. A debt added here needs a
 * comment saying why; remove the import, then its line here (the test insists).
 */
const EXCEPTIONS: Record<string, string> = {}

/**
 * Import cycles left for now, each as its files sorted and joined by ' <-> ': paid off by moving
 * the shared part into a file both import. The test fails on a new one and on a listed one gone.
 */
const CYCLES: string[] = []

/** The strongly connected components of more than one file (Tarjan), each a cycle of imports. */
function importCycles(edges: { from: string; to: string }[]): string[][] {
  const file = (p: string) => p.replace(/\.js$/, '.ts')
  const next = new Map<string, string[]>()
  for (const e of edges) next.set(file(e.from), [...(next.get(file(e.from)) ?? []), file(e.to)])
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const found: string[][] = []
  const visit = (v: string) => {
    index.set(v, index.size)
    low.set(v, index.get(v)!)
    stack.push(v)
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w)
        low.set(v, Math.min(low.get(v)!, low.get(w)!))
      } else if (stack.includes(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!))
    }
    if (low.get(v) !== index.get(v)) return
    const component: string[] = []
    let w: string | undefined
    do {
      w = stack.pop()!
      component.push(w)
    } while (w !== v)
    if (component.length > 1) found.push(component)
  }
  for (const v of next.keys()) if (!index.has(v)) visit(v)
  return found
}

const sources = tsSources

function roomOf(file: string): string {
  const [first = ''] = path.relative(SRC, file).split(path.sep)
  return first.replace(/\.[jt]s$/, '')
}

/** Every import (static, dynamic, type-only, re-export) of every src/ file, resolved to a path. */
function importGraph(dir = SRC): { from: string; to: string }[] {
  const edges: { from: string; to: string }[] = []
  for (const file of sources(dir)) {
    const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true)
    for (const { fileName } of info.importedFiles) {
      if (!fileName.startsWith('.')) continue
      edges.push({ from: file, to: path.resolve(path.dirname(file), fileName) })
    }
  }
  return edges
}

/** The imports and re-exports of `file` into `room` that bring values, not types alone. */
function valueImportsOf(file: string, text: string, room: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest)
  return source.statements.flatMap(s => {
    if (!(ts.isImportDeclaration(s) || ts.isExportDeclaration(s))) return []
    if (!s.moduleSpecifier || !ts.isStringLiteral(s.moduleSpecifier)) return []
    const to = path.resolve(path.dirname(file), s.moduleSpecifier.text)
    if (roomOf(to) !== room) return []
    const clause = ts.isImportDeclaration(s) ? s.importClause : undefined
    const bindings = clause?.namedBindings
    const typeOnly = ts.isExportDeclaration(s)
      ? s.isTypeOnly
      : clause !== undefined &&
        (clause.isTypeOnly ||
          (clause.name === undefined &&
            bindings !== undefined &&
            ts.isNamedImports(bindings) &&
            bindings.elements.length > 0 &&
            bindings.elements.every(e => e.isTypeOnly)))
    return typeOnly ? [] : [`${path.relative(ROOT, file)} -> ${path.relative(ROOT, to)}`]
  })
}

const graph = importGraph()
const rel = (p: string) => path.relative(ROOT, p)

describe('the layers of src/ (docs/architecture.md)', () => {
  it('reads a real graph', () => {
    expect(graph.length).toBeGreaterThan(100)
    expect(graph.some(e => rel(e.from) === 'src/main.ts')).toBe(true)
  })

  it('no src/ file imports test/ (or anything outside src/)', () => {
    const outside = graph.filter(e => !e.to.startsWith(SRC + path.sep)).map(e => rel(e.from))
    expect(outside).toEqual([])
  })

  it('every room has a band', () => {
    const rooms = new Set(sources(SRC).map(roomOf))
    rooms.delete('demo')
    rooms.delete('types')
    expect([...rooms].filter(r => BANDS[r] === undefined)).toEqual([])
  })

  it('the demo lives outside src/ and uses only its base band (no bundle carries it)', () => {
    const demo = importGraph(DEMO)
    const out = demo.filter(e => !e.to.startsWith(DEMO + path.sep))
    const notBase = out.filter(e => !e.to.startsWith(SRC + path.sep) || BANDS[roomOf(e.to)] !== 0)
    expect(out.length).toBeGreaterThan(0)
    expect(notBase.map(e => `${rel(e.from)} -> ${rel(e.to)}`)).toEqual([])
  })

  it('neither bundle carries the demo: no stand-in and no API spec in dist/', () => {
    const bundled = readdirSync(path.join(ROOT, 'dist'), { recursive: true, withFileTypes: true })
      .filter(e => e.isFile())
      .map(e => path.join(e.parentPath, e.name))
    expect(bundled.some(f => f.endsWith(path.join('cli', 'index.js')))).toBe(true)
    const carrying = bundled.filter(f =>
      /startModelServer|startGitHubMock|startGitRemote|"openapi":/.test(readFileSync(f, 'utf8'))
    )
    expect(carrying.map(rel)).toEqual([])
  })

  it('dist/ holds one engine: the artifact client once, and at most 10 MB in all', () => {
    const files = readdirSync(path.join(ROOT, 'dist'), { recursive: true, withFileTypes: true })
      .filter(e => e.isFile())
      .map(e => path.join(e.parentPath, e.name))
    const artifactClients = files.filter(f =>
      readFileSync(f, 'utf8').includes('class DefaultArtifactClient')
    )
    expect(artifactClients.map(rel)).toHaveLength(1)
    const bytes = files.reduce((sum, f) => sum + statSync(f).size, 0)
    expect(bytes).toBeLessThanOrEqual(10 * 1000 * 1000)
  })

  it('one way to run a process: src/process.ts, for every child the action starts', () => {
    const users = sources(SRC)
      .filter(f => /from '(node:)?child_process'|from 'execa'/.test(readFileSync(f, 'utf8')))
      .map(rel)
    expect(users.sort()).toEqual(['src/process.ts'])
  })

  it('no Octokit call outside src/github/ (the one facade for GitHub)', () => {
    const call = /\boctokit\.(?:rest|request|paginate|graphql)\b/
    const outside = sources(SRC)
      .filter(f => !f.startsWith(path.join(SRC, 'github') + path.sep))
      .filter(f => call.test(readFileSync(f, 'utf8')))
      .map(rel)
    expect(outside).toEqual([])
    expect(call.test('await gh.octokit.rest.issues.get({})')).toBe(true)
  })

  it('no Octokit outside src/github/: not its name, its type nor a client (the GitHub object owns it)', () => {
    const named = /octokit/i
    const outside = sources(SRC)
      .filter(f => !f.startsWith(path.join(SRC, 'github') + path.sep))
      .filter(f => named.test(readFileSync(f, 'utf8')))
      .map(rel)
    expect(outside).toEqual([])
    // The rule can fail: src/github/ itself names it, as any file outside would.
    expect(named.test(readFileSync(path.join(SRC, 'github', 'client.ts'), 'utf8'))).toBe(true)
  })

  it('arrows point down, but for the listed exceptions, and every exception still exists', () => {
    const upward = new Map<string, string[]>()
    for (const { from, to } of graph) {
      const a = roomOf(from)
      const b = roomOf(to)
      if (a === b || a === 'demo' || b === 'demo' || b === 'types') continue
      const [ra = -1, rb = -1] = [BANDS[a], BANDS[b]]
      if (rb === 0 || rb <= ra) continue
      const key = `${a} -> ${b}`
      upward.set(key, [...(upward.get(key) ?? []), `${rel(from)} -> ${rel(to)}`])
    }
    const fresh = [...upward].filter(([key]) => !(key in EXCEPTIONS)).map(([, files]) => files)
    expect(fresh.flat()).toEqual([])
    const gone = Object.keys(EXCEPTIONS).filter(key => !upward.has(key))
    expect(gone).toEqual([])
  })

  it('worker/ imports nothing from report/ (its words are made inert below both)', () => {
    const reporting = graph
      .filter(e => roomOf(e.from) === 'worker' && roomOf(e.to) === 'report')
      .map(e => `${rel(e.from)} -> ${rel(e.to)}`)
    expect(reporting).toEqual([])
  })

  it('worker/ takes only types from cage/: the cage runs the worker, not the other way', () => {
    const worker = sources(path.join(SRC, 'worker'))
    const cageEdges = graph.filter(e => roomOf(e.from) === 'worker' && roomOf(e.to) === 'cage')
    expect(cageEdges.length).toBeGreaterThan(0)
    expect(worker.flatMap(f => valueImportsOf(f, readFileSync(f, 'utf8'), 'cage'))).toEqual([])
  })

  it('tells a value import from a type-only one (the check can fail)', () => {
    const made = path.join(SRC, 'worker', 'made-up.ts')
    const found = (text: string) => valueImportsOf(made, text, 'cage').length
    expect(found("import { holdView } from '../cage/views.js'")).toBe(1)
    expect(found("import { type View, holdView } from '../cage/views.js'")).toBe(1)
    expect(found("export { holdView } from '../cage/views.js'")).toBe(1)
    expect(found("import '../cage/views.js'")).toBe(1)
    expect(found("import type { View } from '../cage/views.js'")).toBe(0)
    expect(found("import { type View } from '../cage/views.js'")).toBe(0)
    expect(found("export type { View } from '../cage/views.js'")).toBe(0)
    expect(found("import { holdView } from '../git/git.js'")).toBe(0)
  })

  it('no import cycle, even between two files of one room, but for the listed ones', () => {
    const cycles = importCycles(graph).map(files => files.map(rel).sort().join(' <-> '))
    expect(cycles.filter(c => !CYCLES.includes(c))).toEqual([])
    expect(CYCLES.filter(c => !cycles.includes(c))).toEqual([])
  })

  it('finds a cycle when there is one (the check can fail)', () => {
    const edge = (from: string, to: string) => ({ from: `/s/${from}.ts`, to: `/s/${to}.js` })
    const found = importCycles([edge('a', 'b'), edge('b', 'c'), edge('c', 'a'), edge('c', 'd')])
    expect(found.map(files => files.sort())).toEqual([['/s/a.ts', '/s/b.ts', '/s/c.ts']])
  })
})
