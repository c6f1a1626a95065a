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
