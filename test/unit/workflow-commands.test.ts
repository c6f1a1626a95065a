// src/workflow-commands.ts writes what @actions/core 3.0.1 writes (docs/decisions/0011): each
// command is given the same input through both, and their stdout, output file and summary file
// must be the same, byte for byte (the outputs' random delimiters set aside).
import * as core from '@actions/core'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import * as commands from '../../src/workflow-commands.js'

/** What `fn` wrote to stdout. */
async function stdoutOf(fn: () => unknown): Promise<string> {
  const lines: string[] = []
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation(chunk => {
    lines.push(String(chunk))
    return true
  })
  try {
    await fn()
  } finally {
    spy.mockRestore()
  }
  return lines.join('')
}

const MESSAGES = [
  'plain',
  '100% done',
  'two\nlines\r\nand a CR',
  'a: colon, a comma',
  '::warning::nested command',
  '%0A already escaped',
  'emoji 👉 and — dashes',
  ''
]

describe('the workflow commands, as @actions/core writes them', () => {
  let dir: string
  const saved = { ...process.env }
  const exitCode = process.exitCode
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'fleet-commands-'))
  })
  afterEach(async () => {
    process.env = { ...saved }
    process.exitCode = exitCode
    await rm(dir, { recursive: true, force: true })
  })

  it.each(MESSAGES)('info, warning, error, add-mask and group of %j', async message => {
    const ours = await stdoutOf(async () => {
      commands.info(message)
      commands.warning(message)
      commands.error(message)
      commands.setSecret(message)
      await commands.group(message, () => Promise.resolve())
    })
    const theirs = await stdoutOf(async () => {
      core.info(message)
      core.warning(message)
      core.error(message)
      core.setSecret(message)
      await core.group(message, () => Promise.resolve())
    })
    expect(ours).toBe(theirs)
  })

  it('setFailed: the error command and exit code 1', async () => {
    const ours = await stdoutOf(() => commands.setFailed('3 of 4 tasks did not land:\nx'))
    expect(process.exitCode).toBe(1)
    process.exitCode = 0
    const theirs = await stdoutOf(() => core.setFailed('3 of 4 tasks did not land:\nx'))
    expect(process.exitCode).toBe(1)
    expect(ours).toBe(theirs)
  })

  it('a group ends even when its work throws, and the error is the work’s', async () => {
    const ours = await stdoutOf(() =>
      commands.group('g', () => Promise.reject(new Error('boom'))).catch((e: Error) => e.message)
    )
    expect(ours).toBe('::group::g\n::endgroup::\n')
  })

  it('outputs: the same heredocs in $GITHUB_OUTPUT, each with its own random delimiter', async () => {
    const values = { results: '[{"id":"a"}]', 'pr-urls': 'http://x/pull/1\nhttp://x/pull/2', e: '' }
    const written = async (set: (name: string, value: string) => void, file: string) => {
      await writeFile(file, '')
      process.env.GITHUB_OUTPUT = file
      for (const [name, value] of Object.entries(values)) set(name, value)
      return readFile(file, 'utf8')
    }
    const ours = await written(commands.setOutput, join(dir, 'ours'))
    const theirs = await written(core.setOutput, join(dir, 'theirs'))
    const delimiters = (text: string) => text.match(/ghadelimiter_[0-9a-f-]{36}/g) ?? []
    expect(new Set(delimiters(ours)).size).toBe(3)
    const plain = (text: string) => text.replace(/ghadelimiter_[0-9a-f-]{36}/g, 'D')
    expect(plain(ours)).toBe(plain(theirs))
  })

  it('outputs without $GITHUB_OUTPUT: the set-output command; a missing file is an error', async () => {
    delete process.env.GITHUB_OUTPUT
    const ours = await stdoutOf(() => commands.setOutput('a,b', 'x:y\nz'))
    const theirs = await stdoutOf(() => core.setOutput('a,b', 'x:y\nz'))
    expect(ours).toBe(theirs)
    process.env.GITHUB_OUTPUT = join(dir, 'absent')
    expect(() => commands.setOutput('a', 'b')).toThrow(
      `Missing file at path: ${join(dir, 'absent')}`
    )
  })

  it('the job summary: appended as written; no $GITHUB_STEP_SUMMARY is the toolkit’s error', async () => {
    const ours = join(dir, 'ours.md')
    const theirs = join(dir, 'theirs.md')
    await writeFile(ours, 'before\n')
    await writeFile(theirs, 'before\n')
    process.env.GITHUB_STEP_SUMMARY = ours
    await commands.appendSummary('## Fleet\n\n| a | b |\n')
    process.env.GITHUB_STEP_SUMMARY = theirs
    await core.summary.addRaw('## Fleet\n\n| a | b |\n').write()
    expect(await readFile(ours, 'utf8')).toBe(await readFile(theirs, 'utf8'))
    delete process.env.GITHUB_STEP_SUMMARY
    const said = await core.summary
      .addRaw('x')
      .write()
      .then(
        () => '',
        (e: Error) => e.message
      )
    core.summary.emptyBuffer()
    await expect(commands.appendSummary('x')).rejects.toThrow(said)
  })
})
