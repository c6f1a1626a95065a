// Issue 8: the leak scan runs after every e2e scenario, and can fail.
// 1. Enforcement: only demo/stack.ts may run the action (its run() ends in assertNoLeaks), and
//    a file that runs a built entry point itself (the CLI test) must call assertNoLeaks.
// 2. The scanner: a secret planted in each place it reads is found there.
import { execFileSync } from 'node:child_process'
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { assertNoLeaks, secrets } from '../../demo/leaks.js'
import type { Stack } from '../../demo/stack.js'
import type { RunActionResult } from '../../demo/run-action.js'

const E2E = path.resolve(import.meta.dirname, '../e2e')
const HARNESS = path.resolve(import.meta.dirname, '../../demo/stack.ts')

/** Why an e2e source file could run the action (or a built entry point) without the leak scan. */
function bypasses(source: string): string[] {
  const found: string[] = []
  if (/\brunAction\s*\(/.test(source)) found.push('calls runAction() directly')
  const imports = [
    ...source.matchAll(/^\s*import\s+(type\s+)?([^;]*?)\s+from\s+['"]([^'"]+)['"]/gms)
  ]
  for (const [, typeOnly, what = '', from = ''] of imports) {
    if (!/run-action(\.js)?$/.test(from)) continue
    // `import { type X }` and `import type { X }` bring in no code.
    const values = typeOnly
      ? []
      : what
          .replace(/[{}]/g, '')
          .split(',')
          .map(s => s.trim())
          .filter(s => s && !s.startsWith('type '))
    if (values.length) found.push(`imports ${values.join(', ')} from run-action`)
  }
  if (/\bimport\s*\(\s*['"][^'"]*run-action/.test(source))
    found.push('imports run-action dynamically')
  // Anything that spawns processes and names a built entry point runs the product itself.
  const spawns = /from\s+['"](node:)?child_process['"]|from\s+['"]execa['"]/.test(source)
  // A string naming the build (comments stripped: "through dist/" in prose runs nothing).
  const code = source.replace(/\/\*[\s\S]*?\*\/|^\s*\/\/.*$/gm, '')
  const entry = /(['"`])[^'"`\n]*\bdist\b[^'"`\n]*\1|ACTION_ENTRY/.test(code)
  if (spawns && entry && !/\bassertNoLeaks\s*\(/.test(source))
    found.push('runs a dist/ entry point without assertNoLeaks()')
  return found
}

describe('every e2e scenario goes through the leak scan', () => {
  it('no e2e file but the harness runs the action, and a file that runs the CLI scans it itself', async () => {
    const files = (await readdir(E2E)).filter(f => f.endsWith('.ts'))
    expect(files.length).toBeGreaterThan(10)
    const offences: string[] = []
    for (const file of files) {
      for (const why of bypasses(await readFile(path.join(E2E, file), 'utf8')))
        offences.push(`${file}: ${why}`)
    }
    expect(offences).toEqual([])
    // The one allowed to spawn dist/ itself really is checked by the rule above.
    expect(await readFile(path.join(E2E, 'cli.test.ts'), 'utf8')).toMatch(/assertNoLeaks\(stack, /)
  })

  it('the harness: run() calls runAction once and always ends in assertNoLeaks on its result', async () => {
    const source = await readFile(HARNESS, 'utf8')
    const body = /async run\(r\) \{([\s\S]*?)\n {4}\},\n {4}async close/.exec(source)?.[1] ?? ''
    expect(body.match(/\brunAction\(/g)).toHaveLength(1)
    expect(body).toMatch(
      /const result = await runAction\([\s\S]*\n\s+await assertNoLeaks\(stack, result\)\n\s+return result$/
    )
    expect(source.match(/\brunAction\(/g)).toHaveLength(1)
  })

  it('the rule catches each way around it', () => {
    const ok = [
      "import { byId, type Stack, startStack } from './stack.js'\nawait stack.run({})",
      "import type { RunActionResult } from '../../demo/run-action.js'",
      "import { type RunActionResult } from '../../demo/run-action.js'",
      "import { spawn } from 'node:child_process'\nconst CLI = 'dist/cli/index.js'\nawait assertNoLeaks(stack, shaped)",
      "// Proven through dist/ and the real CLI.\nimport { execFile } from 'node:child_process'"
    ]
    for (const source of ok) expect(bypasses(source), source).toEqual([])
    const bad: Array<[string, RegExp]> = [
      ['const r = await runAction({ inputs })', /calls runAction/],
      ["import { runAction } from '../../demo/run-action.js'", /imports runAction from run-action/],
      [
        "import {\n  ACTION_ENTRY,\n  type RunActionResult\n} from '../../demo/run-action.js'",
        /imports ACTION_ENTRY/
      ],
      ["const m = await import('../../demo/run-action.js')", /dynamically/],
      [
        "import { spawn } from 'node:child_process'\nspawn(process.execPath, ['dist/index.js'])",
        /without assertNoLeaks/
      ],
      [
        "import { execa } from 'execa'\nawait execa('node', [path.join(root, 'dist', 'index.js')])",
        /without assertNoLeaks/
      ]
    ]
    for (const [source, why] of bad) expect(bypasses(source).join('; '), source).toMatch(why)
  })
})

// ---- the scanner itself ------------------------------------------------------------------------

interface Fake {
  stack: Stack
  run: RunActionResult
  bare: string
  transcripts: string
  preserved: string
}

/** A stack-shaped record of a clean run: every place the scan reads, with nothing secret in it. */
async function fakeRun(root: string): Promise<Fake> {
  const bare = path.join(root, 'remote.git')
  const runnerTemp = path.join(root, 'runner')
  const transcripts = path.join(runnerTemp, 'fleet-worker', '1-0', 'transcripts')
  const preserved = path.join(runnerTemp, 'fleet-worker', '1-0', 'preserved')
  await mkdir(transcripts, { recursive: true })
  await mkdir(preserved, { recursive: true })
  await writeFile(path.join(transcripts, 'a.1.jsonl'), '{"type":"result"}\n')
  await writeFile(path.join(preserved, 'a.bundle'), 'bundle bytes\n')
  git(['init', '--quiet', '--bare', bare], root)
  const stack = {
    github: {
      requests: [{ method: 'GET', path: '/repos/acme/widgets' }],
      state: { pulls: [{ body: 'a PR' }] }
    },
    model: {
      requests: [{ key: 'a', step: 0, body: { messages: [{ role: 'user', content: 'hi' }] } }]
    },
    git: { repoPath: () => bare }
  } as unknown as Stack
  const run: RunActionResult = {
    exitCode: 0,
    signal: null,
    stdout: `::add-mask::${secrets()['GitHub token']}\nrunning\n`,
    stderr: '',
    outputs: { results: '[]' },
    summary: '| task | status |',
    runnerTemp,
    durationMs: 1
  }
  return { stack, run, bare, transcripts, preserved }
}

function git(args: string[], cwd: string): string {
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: {
      PATH: process.env.PATH,
      HOME: cwd,
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_AUTHOR_NAME: 'T',
      GIT_AUTHOR_EMAIL: 't@example.com',
      GIT_COMMITTER_NAME: 'T',
      GIT_COMMITTER_EMAIL: 't@example.com'
    }
  })
}

/** Pushes one commit to the fake remote, with `text` in a file or in the message. */
async function pushCommit(
  fake: Fake,
  root: string,
  where: 'content' | 'message',
  text: string
): Promise<void> {
  const work = await mkdtemp(path.join(root, 'work-'))
  git(['init', '--quiet', '-b', 'fleet/a'], work)
  await writeFile(path.join(work, 'file.txt'), where === 'content' ? `x ${text} y\n` : 'plain\n')
  git(['add', 'file.txt'], work)
  git(['commit', '--quiet', '-m', where === 'message' ? `fix: ${text}` : 'fix: plain'], work)
  git(['push', '--quiet', fake.bare, 'fleet/a'], work)
}

type Plant = (fake: Fake, secret: string, root: string) => Promise<void> | void

const PLACES: Record<string, [string | RegExp, Plant]> = {
  stdout: ['stdout', (f, s) => void (f.run.stdout += `token is ${s}\n`)],
  stderr: ['stderr', (f, s) => void (f.run.stderr += s)],
  outputs: ['outputs', (f, s) => void (f.run.outputs.results = JSON.stringify([{ error: s }]))],
  'step summary': ['step summary', (f, s) => void (f.run.summary += `\n${s}`)],
  'API requests': [
    'GitHub API requests',
    (f, s) => void (f.stack.github.requests as unknown[]).push({ body: { body: s } })
  ],
  'a PR body or comment': [
    'GitHub API state',
    (f, s) =>
      void ((f.stack.github.state as unknown as { pulls: { body: string }[] }).pulls[0]!.body = s)
  ],
  'what a worker sent the model': [
    /model request a step 0/,
    (f, s) => void ((f.stack.model.requests[0] as { body: unknown }).body = { tool_result: s })
  ],
  transcript: [
    /\/transcripts\/a\.1\.jsonl$/,
    (f, s) => writeFile(path.join(f.transcripts, 'a.1.jsonl'), `{"line":"${s}"}\n`)
  ],
  'preserved bundle': [
    /\/preserved\/a\.bundle$/,
    (f, s) => writeFile(path.join(f.preserved, 'a.bundle'), `bundle ${s}\n`)
  ],
  'pushed file': ['pushed commits', (f, s, root) => pushCommit(f, root, 'content', s)],
  'pushed commit message': ['pushed commits', (f, s, root) => pushCommit(f, root, 'message', s)]
}
describe('the leak scanner', () => {
  let root: string
  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'fleet-leak-scan-'))
  })
  afterAll(async () => rm(root, { recursive: true, force: true }))

  it('passes a clean run, ::add-mask:: lines included', async () => {
    const fake = await fakeRun(await mkdtemp(path.join(root, 'clean-')))
    await expect(assertNoLeaks(fake.stack, fake.run)).resolves.toBeUndefined()
  })

  for (const [place, [where, plant]] of Object.entries(PLACES)) {
    it(`finds every secret form planted in ${place}`, async () => {
      for (const [name, secret] of Object.entries(secrets())) {
        const dir = await mkdtemp(path.join(root, 'case-'))
        const fake = await fakeRun(dir)
        await plant(fake, secret, dir)
        const error = await assertNoLeaks(fake.stack, fake.run).then(
          () => new Error('no leak reported'),
          (e: unknown) => e as Error
        )
        expect(error.message, `${name} in ${place}`).toMatch(/^secrets leaked:/)
        const lines = error.message.split('\n').slice(1)
        const hit = lines.find(l => l.startsWith(`${name} found in `))
        expect(hit, `${name} in ${place}: ${error.message}`).toBeDefined()
        expect(hit?.slice(`${name} found in `.length)).toMatch(
          typeof where === 'string' ? new RegExp(`^${where}$`) : where
        )
      }
    })
  }
})
