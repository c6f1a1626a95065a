import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { excludePattern, sharedCaches } from '../../src/fleet/setup.js'
import { git as gitIn } from '../support/git.js'

describe('excludePattern', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'fleet-exclude-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))
  const git = (...args: string[]) => gitIn(dir, ...args)
  git('init', '-q')

  // Real git decides: each name setup left is excluded, and a look-alike next to it is not.
  it.each(['a*b', '[x].txt', 'q?', 'back\\slash', 'trailing ', '#hash', '!bang'])(
    'matches exactly %j',
    name => {
      writeFileSync(path.join(dir, name), '')
      writeFileSync(path.join(dir, 'other'), '')
      writeFileSync(path.join(dir, '.git', 'info', 'exclude'), excludePattern(name) + '\n')
      const left = git('ls-files', '-z', '--others', '--exclude-standard').split('\0')
      expect(left).not.toContain(name)
      expect(left).toContain('other')
      rmSync(path.join(dir, name))
    }
  )
})

describe('sharedCaches', () => {
  it("points npm, pip and Go at the runner's own caches, where setup-* actions restore them", () => {
    expect(sharedCaches({ HOME: '/home/runner' })).toEqual({
      npm_config_cache: '/home/runner/.npm',
      XDG_CACHE_HOME: '/home/runner/.cache',
      GOMODCACHE: '/home/runner/go/pkg/mod'
    })
  })
  it('keeps cache locations the runner set', () => {
    expect(
      sharedCaches({ HOME: '/h', npm_config_cache: '/c/npm', GOPATH: '/g', PIP_CACHE_DIR: '/p' })
    ).toMatchObject({ npm_config_cache: '/c/npm', GOMODCACHE: '/g/pkg/mod', PIP_CACHE_DIR: '/p' })
  })
})
