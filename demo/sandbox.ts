/**
 * Whether this machine can make the sandbox's namespaces (bubblewrap and socat installed, user
 * namespaces allowed). Where it cannot, the e2e stack runs its scenarios in isolation: process and
 * says why once, and the tests about the sandbox itself skip with that reason (docs/sandbox.md).
 */
import { randomBytes } from 'node:crypto'
import { appendFile, chmod, readFile, realpath, rm, stat, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { run, runOk } from '../src/process.js'

export type SandboxSupport = { ok: true } | { ok: false; reason: string }

let cached: Promise<SandboxSupport> | undefined

function probe(file: string, args: string[]) {
  return run(file, args, { timeoutMs: 20_000, env: process.env })
}

async function check(): Promise<SandboxSupport> {
  if (process.platform !== 'linux') return { ok: false, reason: `${process.platform} is not Linux` }
  const socat = await probe('socat', ['-V'])
  if (socat.exitCode !== 0) return { ok: false, reason: 'socat is not installed' }
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
  if (bwrap.exitCode === 127) return { ok: false, reason: 'bubblewrap (bwrap) is not installed' }
  if (bwrap.exitCode !== 0)
    return {
      ok: false,
      reason: `the kernel refuses bubblewrap's namespaces here (${bwrap.stderr.trim() || `exit ${bwrap.exitCode}`})`
    }
  return { ok: true }
}

export function sandboxSupport(): Promise<SandboxSupport> {
  cached ??= check()
  return cached
}

/** Gives `dir` and everything in it to `user` (symlinks themselves, never what they point at). */
export async function chownTree(dir: string, user: { uid: number; gid: number }): Promise<void> {
  await runOk('chown', ['-R', '-h', `${user.uid}:${user.gid}`, '--', dir], { env: process.env })
}

/** The runner users this process made (makeRunnerUser), not yet removed. */
const mine = new Set<string>()

/**
 * Where a test file that puts modes back while another file's runner user still runs leaves
 * them for the last one to put back: "<mode in octal> <dir>" lines.
 */
const HANDED_OVER = '/tmp/fleet-e2e-opened-paths'

/** Whether another process's runner user (another test file's, running beside this one) exists. */
async function othersRunning(): Promise<boolean> {
  const passwd = await readFile('/etc/passwd', 'utf8')
  return passwd
    .split('\n')
    .map(line => line.split(':')[0] ?? '')
    .some(name => name.startsWith('fleet-e2e-') && !mine.has(name))
}

/**
 * Lets another user reach `files` (the action's dist/, node, claude): adds traverse (o+x, never
 * read) to each ancestor directory that lacks it, as a checkout in a private dir (mktemp -d, a
 * root's home) has. Returns how to put the modes back: at once when no other test file's runner
 * user is there, else handed over to the last of them (the files run side by side, and one whose
 * run still goes would lose its way to dist/).
 */
export async function openPathsFor(files: string[]): Promise<() => Promise<void>> {
  const changed = new Map<string, number>()
  for (const file of files) {
    for (
      let dir = path.dirname(await realpath(file));
      dir !== path.dirname(dir);
      dir = path.dirname(dir)
    ) {
      if (changed.has(dir)) continue
      const mode = (await stat(dir)).mode & 0o7777
      if ((mode & 0o001) !== 0) continue
      await chmod(dir, mode | 0o001)
      changed.set(dir, mode)
    }
  }
  return async () => {
    const lines = [...changed].map(([dir, mode]) => `${mode.toString(8)} ${dir}\n`)
    if (await othersRunning()) {
      await appendFile(HANDED_OVER, lines.join(''))
      return
    }
    const handed = await readFile(HANDED_OVER, 'utf8').catch(() => '')
    await rm(HANDED_OVER, { force: true })
    for (const line of [...lines, ...handed.split('\n')]) {
      const [, mode, dir] = /^([0-7]+) (.+)$/.exec(line.trim()) ?? []
      if (mode && dir) await chmod(dir, parseInt(mode, 8)).catch(() => undefined)
    }
  }
}

/**
 * Why a test that runs the action as a hosted runner's user (makeRunnerUser) cannot run on this
 * machine, or undefined when it can: it needs the sandbox and root to make that user.
 */
export async function runnerUserSkip(): Promise<string | undefined> {
  const support = await sandboxSupport()
  if (!support.ok) return support.reason
  if (process.getuid?.() !== 0)
    return 'the run as a non-root runner user with passwordless sudo needs root to make that user'
  return undefined
}

/**
 * A runner user: non-root, passwordless sudo (as GitHub documents for hosted runners), its home
 * at `home`. Needs root; `remove` takes the user and its sudoers entry away again.
 */
export async function makeRunnerUser(home: string) {
  const name = `fleet-e2e-${randomBytes(3).toString('hex')}`
  await runOk('useradd', ['--home-dir', home, '--no-create-home', '--user-group', name], {
    env: process.env
  })
  const sudoers = `/etc/sudoers.d/${name}`
  await writeFile(sudoers, `${name} ALL=(ALL) NOPASSWD:ALL\n`, { mode: 0o440 })
  mine.add(name)
  const uid = Number((await runOk('id', ['-u', name], { env: process.env })).stdout.trim())
  const gid = Number((await runOk('id', ['-g', name], { env: process.env })).stdout.trim())
  return {
    name,
    uid,
    gid,
    async remove() {
      await rm(sudoers, { force: true })
      await run('userdel', [name], { env: process.env })
      mine.delete(name)
    }
  }
}
