import * as core from '@actions/core'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { inputEnvName, parseFileCommand, runAction } from '../../demo/run-action.js'

describe('parseFileCommand', () => {
  let dir: string
  let saved: string | undefined

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'file-command-'))
    saved = process.env.GITHUB_OUTPUT
  })

  afterEach(async () => {
    if (saved === undefined) delete process.env.GITHUB_OUTPUT
    else process.env.GITHUB_OUTPUT = saved
    await rm(dir, { recursive: true, force: true })
  })

  it('reads back what @actions/core setOutput writes (heredoc format)', async () => {
    const file = join(dir, 'output')
    await writeFile(file, '')
    process.env.GITHUB_OUTPUT = file
    const report = { tasks: [{ id: 't1', outcome: 'landed' }], note: 'a=b<<c' }
    core.setOutput('pr-urls', 'http://x/pull/1\nhttp://x/pull/2')
    core.setOutput('report', report)
    core.setOutput('empty', '')
    core.setOutput('count', 3)

    const written = await readFile(file, 'utf8')
    expect(written).toMatch(/^pr-urls<<ghadelimiter_[0-9a-f-]{36}\n/)
    expect(parseFileCommand(written)).toEqual({
      'pr-urls': 'http://x/pull/1\nhttp://x/pull/2',
      report: JSON.stringify(report),
      empty: '',
      count: '3'
    })
  })

  it('reads name=value lines, as `echo "x=y" >> $GITHUB_OUTPUT` writes them', () => {
    const content = 'landed=2\nurl=http://h/p?a=1&b=2\nexpr=x<<y\n\nlanded=3\n'
    expect(parseFileCommand(content)).toEqual({
      landed: '3',
      url: 'http://h/p?a=1&b=2',
      expr: 'x<<y'
    })
  })

  it('mixes both formats, keeps blank lines inside a heredoc, and accepts CRLF', () => {
    const content = 'a=1\r\nbody<<EOF\r\nline 1\r\n\r\nline 3\r\nEOF\r\nb=2\r\n'
    expect(parseFileCommand(content)).toEqual({ a: '1', body: 'line 1\n\nline 3', b: '2' })
  })

  it('rejects what the runner rejects', () => {
    expect(() => parseFileCommand('no separator here\n')).toThrow(/Invalid file command/)
    expect(() => parseFileCommand('=value\n')).toThrow(/empty name/)
    expect(() => parseFileCommand('x<<EOF\nnever closed\n')).toThrow(/no closing 'EOF'/)
  })
})

describe('inputEnvName', () => {
  it('follows @actions/core: spaces to underscores, hyphens kept, upper case', () => {
    expect(inputEnvName('api-key')).toBe('INPUT_API-KEY')
    expect(inputEnvName('max parallel')).toBe('INPUT_MAX_PARALLEL')
  })

  it('is the name core.getInput reads', () => {
    const name = inputEnvName('anthropic-api-key')
    process.env[name] = '  secret  '
    try {
      expect(core.getInput('anthropic-api-key')).toBe('secret')
    } finally {
      delete process.env[name]
    }
  })
})

describe('runAction onStdout', () => {
  /** Runs `script` as the action's entry: its stdout, and the pieces onStdout heard. */
  async function hear(script: string) {
    const dir = await mkdtemp(join(tmpdir(), 'run-action-'))
    try {
      const entry = join(dir, 'entry.mjs')
      await writeFile(entry, script)
      const chunks: string[] = []
      const run = await runAction({
        inputs: {},
        eventName: 'workflow_dispatch',
        payload: {},
        workspace: dir,
        repository: 'o/r',
        serverUrl: 'http://127.0.0.1:1',
        apiUrl: 'http://127.0.0.1:1',
        entry,
        onStdout: text => chunks.push(text)
      })
      await rm(run.runnerTemp, { recursive: true, force: true })
      return { stdout: run.stdout, chunks }
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  }

  it('hears the stdout as it comes, a character split between two writes whole', async () => {
    // 'é' is two bytes: the first ends one write, the second starts the next, 50 ms later.
    const { stdout, chunks } = await hear(
      'process.stdout.write(Buffer.from([0x61, 0xc3]))\nsetTimeout(() => process.stdout.write(Buffer.from([0xa9, 0x0a])), 50)\n'
    )
    expect(stdout).toBe('aé\n')
    expect(chunks.join('')).toBe('aé\n')
    expect(chunks.length).toBeGreaterThanOrEqual(2)
  })

  it('hears a character left unfinished at the end as stdout holds it', async () => {
    const { stdout, chunks } = await hear('process.stdout.write(Buffer.from([0x61, 0xc3]))\n')
    expect(stdout).toBe('a\ufffd')
    expect(chunks.join('')).toBe(stdout)
  })
})
