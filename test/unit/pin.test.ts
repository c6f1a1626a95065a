import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { CLAUDE_CODE_VERSION } from '../../src/worker/install.js'

describe('the pinned claude CLI', () => {
  it('is the exact version of @anthropic-ai/claude-code in package.json', () => {
    const pkg = JSON.parse(
      readFileSync(new URL('../../package.json', import.meta.url), 'utf8')
    ) as {
      dependencies: Record<string, string>
    }
    const declared = pkg.dependencies['@anthropic-ai/claude-code']
    // An exact version: a range would let the installed CLI drift from the one tested.
    expect(declared).toMatch(/^\d+\.\d+\.\d+$/)
    expect(CLAUDE_CODE_VERSION).toBe(declared)
  })
})

describe('the pinned undici', () => {
  it('is the one copy in the bundle: the version the @actions packages carry', () => {
    const lock = JSON.parse(
      readFileSync(new URL('../../package-lock.json', import.meta.url), 'utf8')
    ) as { packages: Record<string, { version?: string; dev?: boolean }> }
    // Another major beside theirs put three copies (3.4 MB) in dist/index.js, each compiled at
    // every start (docs/performance.md, "Cut in the third round").
    const copies = Object.entries(lock.packages).filter(
      ([where, p]) => where.endsWith('node_modules/undici') && !p.dev
    )
    expect(copies.map(([where]) => where)).toEqual(['node_modules/undici'])
  })
})
