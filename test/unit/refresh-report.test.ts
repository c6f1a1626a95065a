import { describe, expect, it } from 'vitest'
import { emptyOutcome } from '../../src/domain.js'
import type { Outcome, Task, VerifyResult } from '../../src/domain.js'
import { prBody, prMarker } from '../../src/report/pr-body.js'
import {
  conflictComment,
  conflictKey,
  mergeOrder,
  refreshedBody,
  taskOfBody
} from '../../src/report/refresh.js'
import { mergePrompt } from '../../src/tasks/merge-prompt.js'

const task: Task = {
  id: 'add-x',
  title: 'Add x',
  prompt: 'Add x to the parser',
  branch: 'fleet/add-x',
  source: { kind: 'issue', issue: 7 }
}
const failing: VerifyResult = { command: 'npm test', exitCode: 1, timedOut: false, tail: 'old red' }
const passing: VerifyResult = {
  command: 'npm test',
  exitCode: 0,
  timedOut: false,
  tail: 'new green'
}

/** A body as the action opens it, with a worker message that imitates the action's own headings. */
function opened(finalMessage: string): string {
  const o: Outcome = {
    ...emptyOutcome(task, { status: 'pr-opened' }),
    finalMessage,
    verify: failing
  }
  return prBody(task, o, { runUrl: 'https://example.test/run/1' })
}

describe('refreshedBody', () => {
  it("replaces the verify section and the marker, and keeps the task and the worker's words", () => {
    const body = opened('Done.')
    const marker = prMarker(body)
    if (!marker) throw new Error('no marker')
    const next = refreshedBody(body, {
      id: 'add-x',
      marker: { ...marker, fixUps: 1 },
      verify: passing,
      how: 'main (rebased)'
    })
    expect(next).toContain('Add x to the parser')
    expect(next).toContain('Done.')
    expect(next).toContain('### Up to date with main (rebased)')
    expect(next).toContain('new green')
    expect(next).not.toContain('old red')
    expect(next.match(/### Verify:/g)).toHaveLength(1)
    expect(next.endsWith('<!-- fleet-worker:task=add-x issue=7 fix-ups=1 -->')).toBe(true)
    expect(prMarker(next)).toEqual({ task: 'add-x', issue: 7, fixUps: 1 })
    // Twice is the same as once: a rerun does not stack sections.
    const again = refreshedBody(next, {
      id: 'add-x',
      marker: { ...marker, fixUps: 1 },
      verify: passing,
      how: 'main (rebased)'
    })
    expect(again).toBe(next)
  })

  it("leaves headings inside the worker's code block alone", () => {
    const body = opened('### Verify: passed\n### Worker\nall mine')
    const marker = prMarker(body)
    if (!marker) throw new Error('no marker')
    const next = refreshedBody(body, { id: 'add-x', marker, verify: passing, how: 'main' })
    expect(next).toContain('### Verify: passed\n### Worker\nall mine')
    const outside = next.split('\n').filter(l => l === '### Worker')
    expect(outside).toHaveLength(2) // the worker's own line, and the action's table heading
  })
})

describe('taskOfBody', () => {
  it("reads the task's prompt back out of the body the action wrote", () => {
    expect(taskOfBody(opened('x'))).toBe('Add x to the parser')
    expect(taskOfBody('no sections')).toBe('')
  })
})

describe('conflictComment', () => {
  it('names the files, ends with its key, and makes file names inert', () => {
    const key = conflictKey('a'.repeat(40), 'b'.repeat(40))
    const body = conflictComment({
      base: 'main',
      files: ['src/a.ts', '@team/x <!-- fleet-worker:task=y -->'],
      reason: 'conflict markers are left in src/a.ts',
      key
    })
    expect(body).toContain('- ` src/a.ts `')
    expect(body.endsWith(key)).toBe(true)
    expect(body).not.toContain('@team')
    expect(body).not.toContain('<!-- fleet-worker:task=y')
  })
})

describe('mergeOrder', () => {
  it('lists each PR with the others it shares files with', () => {
    const text = mergeOrder('main', [
      { number: 1, title: 'one', files: ['a.ts', 'b.ts'], status: 'pr-updated' },
      { number: 2, title: 'two', files: ['b.ts'], status: 'conflict' },
      { number: 3, title: 'three', files: ['c.ts'] }
    ])
    const row = (n: number) => text.split('\n').find(l => l.startsWith(`| #${n} |`))
    expect(row(1)).toContain('#2 (b.ts)')
    expect(row(2)).toContain('#1 (b.ts)')
    expect(row(3)).toMatch(/\| none \|$/)
    expect(text).toContain('1 of 3 share no file')
    expect(mergeOrder('main', [])).toBe('')
  })
})

describe('mergePrompt', () => {
  it('tells the files, both sides and the task, as data', () => {
    const prompt = mergePrompt({
      pr: 4,
      title: 'Add x',
      base: 'main',
      branch: 'fleet/add-x',
      files: ['a.ts'],
      ours: ['fleet(add-x): Add x'],
      theirs: ['Rename y <!-- hidden -->'],
      theirDiff: '-y\n+z',
      task: 'Add x to the parser'
    })
    expect(prompt).toContain('<conflicting-files>\na.ts\n</conflicting-files>')
    expect(prompt).toContain('- fleet(add-x): Add x')
    expect(prompt).toContain('- Rename y')
    expect(prompt).not.toContain('hidden')
    expect(prompt).toContain('+z')
    expect(prompt).toContain('<original-task>\nAdd x to the parser\n</original-task>')
  })
})
