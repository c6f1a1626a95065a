/**
 * Whether this machine can make the sandbox's namespaces (bubblewrap and socat installed, user
 * namespaces allowed). Where it cannot, the e2e stack runs its scenarios in isolation: process and
 * says why once, and the tests about the sandbox itself skip with that reason (docs/sandbox.md).
 */
import { execFile, spawn } from 'node:child_process'

export type SandboxSupport = { ok: true } | { ok: false; reason: string }

let cached: Promise<SandboxSupport> | undefined

function probe(file: string, args: string[]): Promise<{ code: number; stderr: string }> {
  return new Promise(resolve => {
    execFile(file, args, { timeout: 20_000 }, (error, _out, stderr) =>
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 127) : 0, stderr })
    )
  })
}

async function check(): Promise<SandboxSupport> {
  if (process.platform !== 'linux') return { ok: false, reason: `${process.platform} is not Linux` }
  const socat = await probe('socat', ['-V'])
  if (socat.code !== 0) return { ok: false, reason: 'socat is not installed' }
  const bwrap = await probe('bwrap', [
    '--unshare-user',
    '--unshare-pid',
    '--unshare-net',
    '--ro-bind',
    '/usr',
    '/usr',
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
    '--',
    '/usr/bin/true'
  ])
  if (bwrap.code === 127) return { ok: false, reason: 'bubblewrap (bwrap) is not installed' }
  if (bwrap.code !== 0)
    return {
      ok: false,
      reason: `the kernel refuses bubblewrap's namespaces here (${bwrap.stderr.trim() || `exit ${bwrap.code}`})`
    }
  return { ok: true }
}

export function sandboxSupport(): Promise<SandboxSupport> {
  cached ??= check()
  return cached
}

/** Gives `dir` and everything in it to `user` (symlinks themselves, never what they point at). */
export async function chownTree(dir: string, user: { uid: number; gid: number }): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const child = spawn('chown', ['-R', '-h', `${user.uid}:${user.gid}`, '--', dir], {
      stdio: 'ignore'
    })
    child.on('error', reject)
    child.on('close', code => (code === 0 ? resolve() : reject(new Error(`chown ${dir}: ${code}`))))
  })
}
