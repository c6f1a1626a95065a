import { describe, expect, it } from 'vitest'
import { sandboxCommand, type SandboxSpec, writablePaths } from '../../src/cage/sandbox.js'
import type { View } from '../../src/domain.js'
import { outermost, ViewError, VIEWS_INIT, withViews } from '../../src/cage/views.js'

const view = (at: string, layer = '/tmp/fleet-sbx-1/caches/cache-0'): View => ({
  lower: at,
  at,
  upper: `${layer}/upper`,
  work: `${layer}/work`
})

const spec = (over: Partial<SandboxSpec> = {}): SandboxSpec => ({
  bwrap: '/usr/bin/bwrap',
  system: [{ kind: 'dir', path: '/usr' }],
  worktree: '/w/tree',
  cageDir: '/w/cage',
  network: { proxySocket: '/tmp/fleet-sbx-1/net/proxy.sock', proxyPort: 3128 },
  command: ['sh', '-c', 'npm ci'],
  env: { PATH: '/usr/bin' },
  ...over
})

describe('copy-on-write views', () => {
  it('mount in a namespace of their own, then become the inner command', () => {
    const cmd = withViews('/usr/bin/unshare', [view('/home/runner/.npm')], {
      file: '/usr/bin/bwrap',
      args: ['--unshare-user', '--', 'true']
    })
    expect(cmd.file).toBe('/usr/bin/unshare')
    expect(cmd.args).toEqual([
      '--user',
      '--map-root-user',
      '--mount',
      '--propagation',
      'private',
      '--',
      'sh',
      '-c',
      VIEWS_INIT,
      'fleet-views',
      '/home/runner/.npm',
      '/home/runner/.npm',
      '/tmp/fleet-sbx-1/caches/cache-0/upper',
      '/tmp/fleet-sbx-1/caches/cache-0/work',
      '--',
      '/usr/bin/bwrap',
      '--unshare-user',
      '--',
      'true'
    ])
  })

  it('enter a held view with nsenter, mounting only the rest in a mount namespace of their own', () => {
    const inner = { file: '/usr/bin/bwrap', args: ['--', 'true'] }
    const held = { nsenter: '/usr/bin/nsenter', pid: 4242 }
    const enter = ['--target', '4242', '--user', '--mount', '--preserve-credentials', '--']
    const init = ['sh', '-c', VIEWS_INIT, 'fleet-views']
    expect(withViews('/usr/bin/unshare', [], inner, held)).toEqual({
      file: '/usr/bin/nsenter',
      args: [...enter, ...init, '--', '/usr/bin/bwrap', '--', 'true']
    })
    const cache = view('/home/runner/.npm')
    const own = ['/usr/bin/unshare', '--mount', '--propagation', 'private', '--']
    expect(withViews('/usr/bin/unshare', [cache], inner, held).args).toEqual([
      ...enter,
      ...own,
      ...init,
      cache.lower,
      cache.at,
      cache.upper,
      cache.work,
      '--',
      '/usr/bin/bwrap',
      '--',
      'true'
    ])
  })

  it('leave a command without views as it is', () => {
    const inner = { file: '/usr/bin/bwrap', args: ['--', 'true'] }
    expect(withViews('/usr/bin/unshare', [], inner)).toBe(inner)
  })

  it('refuse a path overlayfs would misread, and a private layer inside what it shows', () => {
    for (const bad of ['/home/a,b', '/home/a:b', '/home/a\\b', 'relative', '/home/../etc', '/'])
      expect(() => withViews('/u', [view(bad)], { file: 'x', args: [] })).toThrow(ViewError)
    expect(() =>
      withViews('/u', [view('/home/r/.npm', '/home/r/.npm/layer')], { file: 'x', args: [] })
    ).toThrow(/must lie outside/)
  })

  it('keep only the outermost of nested caches', () => {
    expect(
      outermost(['/h/.cache/go-build', '/h/.cache', '/h/.npm', '/h/.cache', '/h/.npmrc-dir'])
    ).toEqual(['/h/.cache', '/h/.npm', '/h/.npmrc-dir'])
  })
})

describe("the sandbox with setup's caches", () => {
  it('binds each view over its own path and runs bwrap as the runner inside the views namespace', () => {
    const cmd = sandboxCommand(
      spec({
        views: [view('/home/runner/.npm')],
        scratch: [{ dir: '/tmp/fleet-sbx-1/caches/cache-1', at: '/home/runner/go/pkg/mod' }],
        viewsBy: { unshare: '/usr/bin/unshare', uid: 1001, gid: 118 }
      })
    )
    expect(cmd.file).toBe('/usr/bin/unshare')
    const bwrapAt = cmd.args.indexOf('/usr/bin/bwrap')
    expect(cmd.args[bwrapAt - 1]).toBe('--')
    expect(cmd.args.slice(bwrapAt + 1, bwrapAt + 5)).toEqual(['--uid', '1001', '--gid', '118'])
    expect(writablePaths(cmd.args).sort()).toEqual(
      ['/w/tree', '/w/cage', '/home/runner/.npm', '/home/runner/go/pkg/mod'].sort()
    )
    // The scratch dir is the private one, shown at the cache's path; the view is its own path.
    const binds = cmd.args.flatMap((a, i) => (a === '--bind' ? [cmd.args.slice(i + 1, i + 3)] : []))
    expect(binds).toContainEqual(['/home/runner/.npm', '/home/runner/.npm'])
    expect(binds).toContainEqual(['/tmp/fleet-sbx-1/caches/cache-1', '/home/runner/go/pkg/mod'])
  })

  it('refuses views it has no way to mount', () => {
    expect(() => sandboxCommand(spec({ views: [view('/home/runner/.npm')] }))).toThrow(
      /no way to mount/
    )
  })

  it('is plain bwrap without views', () => {
    const cmd = sandboxCommand(spec())
    expect(cmd.file).toBe('/usr/bin/bwrap')
    expect(cmd.args).not.toContain('--uid')
  })
})

describe("the sandbox with the task's files as a view", () => {
  const taskView: View = {
    lower: '/t/fleet/checkouts/abc',
    at: '/w/tree',
    upper: '/t/fleet/views/t1/upper',
    work: '/t/fleet/views/t1/work'
  }
  const by = { unshare: '/usr/bin/unshare', uid: 1001, gid: 118 }

  it("mounts the task's view at its worktree first, and the worktree stays its only task files", () => {
    const cmd = sandboxCommand(
      spec({ worktreeView: taskView, views: [view('/home/runner/.npm')], viewsBy: by })
    )
    expect(cmd.file).toBe('/usr/bin/unshare')
    const at = cmd.args.indexOf('fleet-views')
    expect(cmd.args.slice(at + 1, at + 9)).toEqual([
      '/t/fleet/checkouts/abc',
      '/w/tree',
      '/t/fleet/views/t1/upper',
      '/t/fleet/views/t1/work',
      '/home/runner/.npm',
      '/home/runner/.npm',
      '/tmp/fleet-sbx-1/caches/cache-0/upper',
      '/tmp/fleet-sbx-1/caches/cache-0/work'
    ])
    // Neither the shared checkout nor the task's private layer is shown to the command itself.
    const bwrapArgs = cmd.args.slice(cmd.args.indexOf('/usr/bin/bwrap'))
    expect(bwrapArgs.join(' ')).not.toContain('/t/fleet')
    expect(writablePaths(cmd.args).sort()).toEqual(['/home/runner/.npm', '/w/cage', '/w/tree'])
  })

  it('refuses a view mounted anywhere but the worktree, or with no way to mount it', () => {
    expect(() =>
      sandboxCommand(spec({ worktreeView: { ...taskView, at: '/w/other' }, viewsBy: by }))
    ).toThrow(/not at its worktree/)
    expect(() => sandboxCommand(spec({ worktreeView: taskView }))).toThrow(/no way to mount/)
  })
})
