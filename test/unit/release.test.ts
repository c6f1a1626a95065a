import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'

const root = path.resolve(import.meta.dirname, '../..')
const read = (file: string) => readFileSync(path.join(root, file), 'utf8')
const pkg = JSON.parse(read('package.json')) as { version: string; license: string }

interface Step {
  name?: string
  run?: string
}
const release = parse(read('.github/workflows/release.yml')) as {
  jobs: Record<string, { steps: Step[] }>
}

describe('release material', () => {
  it('LICENSE is the license package.json names', () => {
    expect(pkg.license).toBe('MIT')
    expect(read('LICENSE')).toMatch(/^MIT License\n/)
  })

  it("the release workflow's notes step gives the CHANGELOG section of this version, and only it", () => {
    const step = release.jobs.release?.steps.find(s => s.name === 'Release notes from CHANGELOG.md')
    expect(step?.run).toBeDefined()
    const temp = mkdtempSync(path.join(tmpdir(), 'fleet-release-'))
    try {
      const r = spawnSync('bash', ['-eo', 'pipefail', '-c', step?.run ?? ''], {
        cwd: root,
        env: { PATH: process.env.PATH, VERSION: pkg.version, RUNNER_TEMP: temp },
        encoding: 'utf8'
      })
      expect(r.status, r.stderr).toBe(0)
      const notes = readFileSync(path.join(temp, 'notes.md'), 'utf8')
      expect(notes).toContain('### Added')
      expect(notes).not.toMatch(/^## /m)
      expect(notes).not.toMatch(/^\[[^\]]*\]: /m)
    } finally {
      rmSync(temp, { recursive: true, force: true })
    }
  })

  it('a version without a CHANGELOG section gives no notes, so the release stops', () => {
    const step = release.jobs.release?.steps.find(s => s.name === 'Release notes from CHANGELOG.md')
    const temp = mkdtempSync(path.join(tmpdir(), 'fleet-release-'))
    try {
      const r = spawnSync('bash', ['-eo', 'pipefail', '-c', step?.run ?? ''], {
        cwd: root,
        env: { PATH: process.env.PATH, VERSION: '99.0.0', RUNNER_TEMP: temp },
        encoding: 'utf8'
      })
      expect(r.status).not.toBe(0)
    } finally {
      rmSync(temp, { recursive: true, force: true })
    }
  })
})
