// What setup changed in a view, read from the view's private layer on the host (fleet/setup-layer.ts):
// a real overlay (mounted in a user namespace, as the sandbox does), a setup's changes made through
// it, and git's status of only the listed paths compared with git's walk of the whole view.
import { execFileSync } from 'node:child_process'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { layerPaths } from '../../src/fleet/setup-layer.js'
import { parseStatus, STATUS_ARGS } from '../../src/fleet/setup-check.js'

const GIT_ENV = {
  PATH: process.env.PATH ?? '/usr/bin:/bin',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 't',
  GIT_AUTHOR_EMAIL: 't@example.com',
  GIT_COMMITTER_NAME: 't',
  GIT_COMMITTER_EMAIL: 't@example.com'
}

/** `script` run in the view (cwd), with the overlay mounted as the sandbox mounts a task's view. */
type Layers = { lower: string; upper: string; work: string; at: string }

function inView(d: Layers, script: string, args: string[] = []): string {
  const mount = `mount -t overlay v -o "userxattr,lowerdir=$1,upperdir=$2,workdir=$3" -- "$4" && cd "$4" && shift 4 && ${script}`
  return execFileSync(
    'unshare',
    [
      '--user',
      '--map-root-user',
      '--mount',
      'sh',
      '-c',
      mount,
      'v',
      d.lower,
      d.upper,
      d.work,
      d.at,
      ...args
    ],
    { env: GIT_ENV, encoding: 'utf8' }
  )
}

describe("setup's changes, read from its view's private layer", () => {
  let root: string
  let d: Layers
  beforeEach(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'fleet-setup-layer-'))
    d = Object.fromEntries(
      ['lower', 'upper', 'work', 'at'].map(n => [n, path.join(root, n)])
    ) as Layers
    await Promise.all(Object.values(d).map(p => mkdir(p)))
    // The lower layer: a checkout of a commit, as the run's own checkout or the workspace.
    const files: Record<string, string> = {
      '.gitignore': '*.log\n',
      'keep.txt': 'k',
      'mod.txt': 'm',
      'gone.txt': 'g',
      'src/a/one.ts': '1',
      'src/a/two.ts': '2',
      'src/b.ts': 'b',
      'remade/old.txt': 'o',
      'remade/sub/deep.txt': 'd',
      'lib/x.ts': 'x'
    }
    for (const [f, c] of Object.entries(files)) {
      await mkdir(path.dirname(path.join(d.lower, f)), { recursive: true })
      await writeFile(path.join(d.lower, f), c)
    }
    execFileSync('git', ['init', '-q'], { cwd: d.lower, env: GIT_ENV })
    execFileSync('git', ['add', '-A'], { cwd: d.lower, env: GIT_ENV })
    execFileSync('git', ['commit', '-qm', 'base'], { cwd: d.lower, env: GIT_ENV })
  })
  afterEach(async () => {
    execFileSync('chmod', ['-R', 'u+rwx', root])
    await rm(root, { recursive: true, force: true })
  })

  const whole = () => parseStatus(inView(d, `git ${STATUS_ARGS.join(' ')}`))
  const only = (paths: string[]) =>
    parseStatus(inView(d, `git --literal-pathspecs ${STATUS_ARGS.join(' ')} -- "$@"`, paths))
  const sorted = (l: { tracked: string[]; untracked: string[] }) => ({
    tracked: [...l.tracked].sort(),
    untracked: [...l.untracked].sort()
  })

  it('names every kind of change, and git on those paths decides as on the whole view', async () => {
    inView(
      d,
      [
        'mkdir -p node_modules/p && echo 1 > node_modules/p/i.js', // a new directory
        'echo u > src/a/new.ts', // a new file in a directory the commit has
        'echo i > src/debug.log', // an ignored one
        'echo changed >> mod.txt', // a changed tracked file
        'rm gone.txt', // a removed one (a whiteout)
        'touch -d 2001-01-01 keep.txt', // its metadata only: copied up, unchanged for git
        'ln -s /etc/passwd link', // a symlink, never followed
        'mkfifo fifo' // a FIFO, never opened
      ].join(' && ')
    )
    const layer = await layerPaths(d.upper, d.lower)
    if ('whole' in layer) throw new Error(layer.whole)
    expect([...layer.paths].sort()).toEqual(
      expect.arrayContaining(['fifo', 'gone.txt', 'keep.txt', 'link', 'mod.txt', 'node_modules'])
    )
    expect(layer.paths).toContain('src/a/new.ts')
    expect(layer.paths).toContain('src/debug.log')
    const full = sorted(whole())
    expect(full).toEqual({
      tracked: ['gone.txt', 'mod.txt'],
      // git lists no FIFO, whole or not
      untracked: ['link', 'node_modules/', 'src/a/new.ts']
    })
    expect(sorted(only(layer.paths))).toEqual(full)
  })

  it('catches a directory removed and made again by its probe (an opaque directory)', async () => {
    inView(d, 'rm -rf remade && mkdir remade && echo n > remade/new.txt')
    const layer = await layerPaths(d.upper, d.lower)
    if ('whole' in layer) throw new Error(layer.whole)
    expect(layer.probes).toHaveLength(1)
    expect(layer.probes[0]).toMatch(/^remade\//)
    // git on the listed paths sees the probe gone: the caller then walks the whole view.
    const listed = only(layer.paths)
    expect(listed.tracked).toContain(layer.probes[0])
    expect(sorted(whole())).toEqual({
      tracked: ['remade/old.txt', 'remade/sub/deep.txt'],
      untracked: ['remade/new.txt']
    })
  })

  it('a directory removed and made again whole, each file the same, needs no probe', async () => {
    inView(d, 'rm -rf lib && mkdir lib && echo -n x > lib/x.ts')
    const layer = await layerPaths(d.upper, d.lower)
    if ('whole' in layer) throw new Error(layer.whole)
    expect(layer.probes).toEqual([])
    expect(sorted(only(layer.paths))).toEqual(sorted(whole()))
    expect(sorted(whole())).toEqual({ tracked: [], untracked: [] })
  })

  it('lists nothing when setup changed nothing', async () => {
    inView(d, 'cat keep.txt > /dev/null')
    expect(await layerPaths(d.upper, d.lower)).toEqual({ paths: [], probes: [] })
  })

  it('falls back to the whole walk for a directory it cannot read, and for too many entries', async () => {
    inView(d, 'echo n > src/a/n.ts && chmod 000 src/a')
    if (process.getuid?.() !== 0)
      expect(await layerPaths(d.upper, d.lower)).toMatchObject({ whole: /could not be read/ })
    inView(d, 'chmod 755 src/a && cd src && seq -f f%g 0 100 | xargs touch')
    expect(await layerPaths(d.upper, d.lower, 100)).toMatchObject({ whole: /over 100 entries/ })
    expect(await layerPaths(d.upper, d.lower)).not.toHaveProperty('whole')
  })
})
