// Shared pieces of the landing e2e files: scripted workers, and the checks every run's report must
// pass (docs/contract.md's results fields, the summary's table and gantt).
import { execFile } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { beforeAll, expect } from 'vitest'
import { useTemp } from '../support/scenario.js'
import { script, type Step } from '../../demo/model-server.js'
import type { RunActionResult } from '../../demo/run-action.js'
import { OWNER, REPO, results, type Stack } from '../../demo/stack.js'

const exec = promisify(execFile)

/** A task prompt that plays `steps` (a final text step is added) under the model key `key`. */
export function scripted(key: string, steps: Step[], done = `Done (${key}).`): string {
  return `Task ${key}\n${script({ key, steps: [...steps, { text: done }] })}`
}

export const write = (file: string, content: string): Step => ({
  tool: 'Write',
  input: { file_path: file, content }
})

export const bash = (command: string): Step => ({ tool: 'Bash', input: { command } })

/**
 * A person's clone of the stack's repository for the describe block: made once the stack has
 * started, removed after the block's tests.
 */
export function useClone(stack: Stack, prefix: string): string {
  const dir = useTemp(prefix)
  beforeAll(async () => {
    await git(['clone', '--quiet', stack.git.repoPath(`${OWNER}/${REPO}`), dir], tmpdir())
  })
  return dir
}

/** Pat Person, who commits by hand beside the fleet. */
export const PERSON = ['-c', 'user.name=Pat Person', '-c', 'user.email=pat@example.com']

/**
 * A person's change on main: a clone of the remote `bare`, `file` written, committed as Pat
 * Person and pushed to main. Returns main's new head.
 */
export async function personMovesMain(bare: string, file: string, content: string, prefix: string) {
  const clone = await mkdtemp(path.join(tmpdir(), prefix))
  await git(['clone', '--quiet', bare, clone], tmpdir())
  await writeFile(path.join(clone, file), content)
  await git([...PERSON, 'commit', '--quiet', '-am', 'main moves'], clone)
  await git(['push', '--quiet', 'origin', 'HEAD:refs/heads/main'], clone)
  const main = (await git(['rev-parse', 'HEAD'], clone)).trim()
  await rm(clone, { recursive: true, force: true })
  return main
}

const STATUSES = [
  'pr-opened',
  'pr-updated',
  'no-changes',
  'verify-failed',
  'failed',
  'timed-out',
  'not-started',
  'refused',
  'up-to-date',
  'conflict'
]
const nullable = (type: string) => (v: unknown) => v === null || typeof v === type

/** Every field docs/contract.md names, with its type, on every entry of `results`. */
export function expectContractResults(run: RunActionResult, count: number): void {
  const raw = run.outputs.results ?? ''
  expect(() => void JSON.parse(raw), 'results is JSON').not.toThrow()
  const list = results(run)
  expect(list).toHaveLength(count)
  const checks: Record<string, (v: unknown) => boolean> = {
    id: v => typeof v === 'string' && v.length > 0,
    status: v => STATUSES.includes(v as string),
    branch: nullable('string'),
    'pr-number': nullable('number'),
    'pr-url': nullable('string'),
    turns: v => typeof v === 'number' && v >= 0,
    'duration-ms': v => typeof v === 'number' && v >= 0,
    'worker-start-ms': v => v === null || (typeof v === 'number' && v >= 0),
    usage: v =>
      typeof v === 'object' &&
      v !== null &&
      [
        'input_tokens',
        'output_tokens',
        'cache_read_input_tokens',
        'cache_creation_input_tokens'
      ].every(k => typeof (v as Record<string, unknown>)[k] === 'number'),
    error: nullable('string')
  }
  for (const entry of list as unknown as Record<string, unknown>[]) {
    for (const [field, ok] of Object.entries(checks)) {
      expect(entry, `results[${String(entry.id)}] has ${field}`).toHaveProperty([field])
      expect(
        ok(entry[field]),
        `results[${String(entry.id)}].${field} = ${JSON.stringify(entry[field])}`
      ).toBe(true)
    }
  }
}

/** The summary's table has one row per task and its mermaid gantt one bar per task. */
export function expectSummary(run: RunActionResult, ids: string[]): void {
  const summary = run.summary
  expect(summary).toContain('| task | status | PR | turns | tokens in / out | duration | model |')
  for (const id of ids) {
    const rows = summary.split('\n').filter(l => l.startsWith('|') && l.includes(`(\`${id}\`)`))
    expect(rows, `table row for ${id}`).toHaveLength(1)
  }
  const chart = /```mermaid\n([\s\S]*?)\n```/.exec(summary)?.[1]
  expect(chart, 'a mermaid block in the summary').toBeDefined()
  const lines = (chart ?? '').split('\n').map(l => l.trim())
  expect(lines[0]).toBe('gantt')
  const bars = lines.filter(l => /^\S+ :\w*, \d+, \d+$/.test(l))
  expect(bars.map(l => l.split(' ')[0]).sort()).toEqual([...ids].sort())
  for (const bar of bars) {
    const [start, end] = bar.split(', ').slice(1).map(Number)
    expect(end ?? -1).toBeGreaterThanOrEqual(start ?? Infinity)
  }
}

/** git with a config of its own making, so the machine's config plays no part. */
export async function git(args: string[], cwd: string): Promise<string> {
  const { stdout } = await exec('git', args, {
    cwd,
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: cwd,
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: '/dev/null',
      LC_ALL: 'C'
    }
  })
  return stdout
}

/** The duration cell of a PR body's worker table ("850 ms", "1.2 s", "2 min 3 s"), in ms. */
export function prBodyDurationMs(body: string | null | undefined): number {
  const row = (body ?? '').split('\n').find(l => /^\| \S+ \| \d+ \|/.test(l)) ?? ''
  const cell =
    row
      .split('|')
      .map(c => c.trim())
      .filter(Boolean)
      .at(-1) ?? ''
  const m = /^(?:(\d+) min )?(\d+(?:\.\d+)?) (ms|s)$/.exec(cell)
  if (!m) throw new Error(`no duration in the PR body's worker table: '${row}'`)
  const [, min = '0', n = '0', unit] = m
  return Number(min) * 60_000 + Number(n) * (unit === 'ms' ? 1 : 1000)
}
