import { readdirSync, readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'

// The engine's entry chunk is compiled at every start before the first git process: what only
// some triggers use (the Markdown and HTML readers of issues and PR threads, the planner) is in a
// chunk of its own, loaded when first needed (src/triggers.ts, docs/performance.md).
const dir = new URL('../../dist/engine/', import.meta.url)
const text = (name: string) => readFileSync(new URL(name, dir), 'utf8')

describe("the engine bundle's entry chunk", () => {
  it('holds no Markdown or HTML parser; a chunk loaded on demand does', () => {
    const lazy = readdirSync(dir).filter(f => /^\d+\.index\.js$/.test(f))
    expect(text('index.js')).not.toMatch(/micromark|parse5/)
    expect(lazy.filter(f => /micromark/.test(text(f))).length).toBeGreaterThan(0)
    expect(lazy.filter(f => /parse5/.test(text(f))).length).toBeGreaterThan(0)
  })
})
