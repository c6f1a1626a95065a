// The measurement behind docs/sandbox.md's choice: bubblewrap driven directly against
// @anthropic-ai/sandbox-runtime, 20 starts of `true` each. The library is not a dependency:
//   npm install --prefix /tmp/srt @anthropic-ai/sandbox-runtime@0.0.83
//   SRT=/tmp/srt/node_modules/@anthropic-ai/sandbox-runtime/dist/index.js node bench/sandbox-library.mjs
import { spawn } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
const { SandboxManager } = await import(process.env.SRT)
const N = 20
const dir = mkdtempSync(path.join(tmpdir(), 'srtb-'))
const run = (file, args, opts = {}) =>
  new Promise(r => {
    const c = spawn(file, args, { stdio: 'ignore', ...opts })
    c.on('close', code => r(code))
  })
async function time(label, fn) {
  await fn()
  const t0 = performance.now()
  for (let i = 0; i < N; i++) await fn()
  console.log(label, ((performance.now() - t0) / N).toFixed(1), 'ms/run')
}
const bw = [
  '--unshare-all',
  '--die-with-parent',
  '--new-session',
  '--ro-bind',
  '/usr',
  '/usr',
  '--ro-bind',
  '/etc',
  '/etc',
  '--symlink',
  'usr/bin',
  '/bin',
  '--symlink',
  'usr/lib',
  '/lib',
  '--symlink',
  'usr/lib64',
  '/lib64',
  '--proc',
  '/proc',
  '--dev',
  '/dev',
  '--tmpfs',
  '/tmp',
  '--bind',
  dir,
  dir,
  '--chdir',
  dir
]
await time('plain sh -c true          ', () => run('sh', ['-c', 'true']))
await time('bwrap direct              ', () => run('bwrap', [...bw, '--', 'sh', '-c', 'true']))
await time('bwrap + 2 socat forwards  ', () =>
  run('bwrap', [
    ...bw,
    '--',
    'sh',
    '-c',
    'socat TCP-LISTEN:4000,bind=127.0.0.1,fork,reuseaddr UNIX-CONNECT:/nonexist & socat TCP-LISTEN:4001,bind=127.0.0.1,fork,reuseaddr UNIX-CONNECT:/nonexist & while ! grep -q ":0FA1 00000000:0000 0A" /proc/net/tcp; do sleep 0.002; done; true'
  ])
)
const t0 = performance.now()
await SandboxManager.initialize({
  network: { allowedDomains: ['registry.npmjs.org'], deniedDomains: [] },
  filesystem: { denyRead: ['/root'], allowWrite: [dir], denyWrite: [] }
})
console.log('srt initialize            ', (performance.now() - t0).toFixed(1), 'ms (once)')
await time('srt wrapWithSandbox+spawn ', async () => {
  const cmd = await SandboxManager.wrapWithSandbox('true')
  await run(cmd, [], { shell: true, cwd: dir })
})
await SandboxManager.reset()
