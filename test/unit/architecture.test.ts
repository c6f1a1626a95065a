// Issue 17: the layer rules of docs/architecture.md, checked on the import graph of src/.
// Arrows point down: a room may import its own files, rooms in a lower band and the base band.
// An upward arrow fails the test unless listed in EXCEPTIONS (empty today), and a listed one that
// is gone fails it too (so the list only shrinks).
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'

const ROOT = path.resolve(import.meta.dirname, '../..')
const SRC = path.join(ROOT, 'src')

/** Bands, highest first (docs/architecture.md). The room of src/x/y.ts is x, of src/x.ts is x. */
const BANDS: Record<string, number> = {
  // entry: the action, the CLI and the flow
  index: 7,
  cli: 7,
  main: 7,
  // what is asked: inputs, the event, the run's context, and the commands around the fleet
  config: 6,
  inputs: 6,
  event: 6,
  context: 6,
  triggers: 6,
  modes: 6,
  io: 6,
  doctor: 6,
  progress: 6,
  planning: 6,
  refreshing: 6,
  planner: 5,
  fleet: 4,
  // the edges: a worker, the model gateway, git, GitHub
  worker: 3,
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
  process: 0
}

/**
 * Upward arrows allowed for now, as `from -> to` rooms: none today. A debt added here needs a
 * comment saying why; remove the import, then its line here (the test insists).
 */
const EXCEPTIONS: Record<string, string> = {}

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap(e =>
    e.isDirectory()
      ? sources(path.join(dir, e.name))
      : e.name.endsWith('.ts')
        ? [path.join(dir, e.name)]
        : []
  )
}

function roomOf(file: string): string {
  const [first = ''] = path.relative(SRC, file).split(path.sep)
  return first.replace(/\.[jt]s$/, '')
}

/** Every import (static, dynamic, type-only, re-export) of every src/ file, resolved to a path. */
function importGraph(): { from: string; to: string }[] {
  const edges: { from: string; to: string }[] = []
  for (const file of sources(SRC)) {
    const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true)
    for (const { fileName } of info.importedFiles) {
      if (!fileName.startsWith('.')) continue
      edges.push({ from: file, to: path.resolve(path.dirname(file), fileName) })
    }
  }
  return edges
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

  it('only the CLI loads the demo, and only lazily; the demo imports only itself and the base', () => {
    const into = graph.filter(e => roomOf(e.to) === 'demo' && roomOf(e.from) !== 'demo')
    expect(into.map(e => rel(e.from))).toEqual(['src/cli.ts'])
    const cli = readFileSync(path.join(SRC, 'cli.ts'), 'utf8')
    expect(cli).toMatch(/await import\('\.\/demo\/demo\.js'\)/)
    expect(cli).not.toMatch(/^import [^\n]*'\.\/demo\//m)
    const out = graph.filter(
      e => roomOf(e.from) === 'demo' && roomOf(e.to) !== 'demo' && BANDS[roomOf(e.to)] !== 0
    )
    expect(out.map(e => `${rel(e.from)} -> ${rel(e.to)}`)).toEqual([])
  })

  it('one way to run a process: src/process.ts, and worker/spawn.ts for process groups', () => {
    // The demo's servers (git remote, Prism, the action under test) are long-lived children of
    // the test process, outside the action's bundle.
    const servers = ['src/demo/git-remote.ts', 'src/demo/prism.ts', 'src/demo/run-action.ts']
    const users = sources(SRC)
      .filter(f => /from '(node:)?child_process'|from 'execa'/.test(readFileSync(f, 'utf8')))
      .map(rel)
      .filter(f => !servers.includes(f))
    expect(users.sort()).toEqual(['src/process.ts', 'src/worker/spawn.ts'])
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
})
