import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { parseConfig } from '../../src/config.js'
import { tasksFromInputs } from '../../src/tasks/from-inputs.js'
import { insideWorkspace } from '../../src/workspace.js'

describe('paths given in inputs stay inside the workspace', () => {
  it('resolves paths inside, refuses the workspace itself and anything beyond it', () => {
    expect(insideWorkspace('/ws', 'tasks.yml')).toBe('/ws/tasks.yml')
    expect(insideWorkspace('/ws', '.github/fleet/tasks.yml')).toBe('/ws/.github/fleet/tasks.yml')
    // A name that merely starts with two dots is still inside.
    expect(insideWorkspace('/ws', '..tasks.yml')).toBe('/ws/..tasks.yml')
    expect(insideWorkspace('/ws', '.')).toBeUndefined()
    expect(insideWorkspace('/ws', '..')).toBeUndefined()
    expect(insideWorkspace('/ws', '../other/tasks.yml')).toBeUndefined()
    expect(insideWorkspace('/ws', 'a/../../etc/passwd')).toBeUndefined()
    expect(insideWorkspace('/ws', '/etc/passwd')).toBeUndefined()
  })

  it('an id in both tasks and tasks-file is refused, naming the tasks input', async () => {
    const ws = await mkdtemp(path.join(tmpdir(), 'fleet-ws-'))
    try {
      await writeFile(path.join(ws, 'tasks.yml'), '- id: same\n  prompt: from the file\n')
      const config = parseConfig({
        INPUT_TASKS: '- id: same\n  prompt: from the input\n',
        'INPUT_TASKS-FILE': 'tasks.yml'
      })
      await expect(tasksFromInputs(config, ws)).rejects.toThrow(
        /^Input 'tasks': 'tasks' and 'tasks-file' together: two tasks have the id 'same'; ids must be unique$/
      )
      const outside = parseConfig({ 'INPUT_TASKS-FILE': '../tasks.yml' })
      await expect(tasksFromInputs(outside, ws)).rejects.toThrow(
        /Input 'tasks-file'.*outside the workspace/
      )
    } finally {
      await rm(ws, { recursive: true, force: true })
    }
  })
})
