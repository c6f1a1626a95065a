// A task's view shows the workspace's own checkout (issue #40 item 2), through dist/ with the real
// claude CLI, real git and the API mock, in the sandbox: taken when the workspace is exactly the
// base commit's files, with its `.git` (whose config holds the checkout's token) hidden from every
// cage; not taken when a step before left an ignored file or changed a tracked one, and then the
// worker sees the base's files and never the ignored one. The worker is the attacker: one Bash
// call probes the workspace's `.git` every way it can reach and writes what it found into the
// file it commits, which the test reads from the pushed branch.
import { execFile } from 'node:child_process'
import { readFile, rm, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { script } from '../../demo/model-server.js'
import { viewsUnsupported } from '../support/views.js'
import { byId, GITHUB_TOKEN, OWNER, REPO, type Stack, startStack } from '../../demo/stack.js'

const FULL = `${OWNER}/${REPO}`
const exec = promisify(execFile)
const why = await viewsUnsupported()

const FILES: Record<string, string> = {
  'README.md': '# widgets\n',
  '.gitignore': 'secret.env\nbuild/\n',
  'src/a.txt': 'a\n',
  'src/b.txt': 'b\n',
  'lib/x.txt': 'x\n',
  'lib/y.txt': 'y\n',
  'docs/d1.txt': 'd1\n',
  'docs/d2.txt': 'd2\n',
  'keep/k.txt': 'k\n',
  'tasks/.keep': ''
}

/**
 * The hostile worker's one Bash call: each probe prints `<name> yes|no`, whether it could read
 * what it names, and every probe's output is also searched for the token's config key.
 */
function probe(workspace: string, out: string): string {
  const lines = [
    'r() { if "$@" > /dev/null 2>&1; then echo yes; else echo no; fi; }',
    'found() { if "$@" 2> /dev/null | grep -qi extraheader; then echo yes; else echo no; fi; }',
    `ws='${workspace}'`,
    '{',
    '  echo "workspace-config $(r cat "$ws/.git/config")"',
    '  echo "workspace-listed $(r ls "$ws")"',
    '  echo "dotgit-config $(r cat .git/config)"',
    '  echo "dotgit-listed $(r ls .git/)"',
    '  echo "token-in-view $(found grep -rsi extraheader .)"',
    '  echo "token-in-mounts $(found cat /proc/self/mountinfo)"',
    '  echo "capeff $(grep CapEff /proc/self/status | cut -f2)"',
    // Setup's cage, the same view, tried what would break the worker's git: its findings.
    '  cat .setup-probe',
    '  echo "secret $(r cat secret.env)"',
    '  echo "a $(cat src/a.txt)"',
    // The view's overlay, as the cage sees it: its lower layers name the workspace or not.
    '  echo "lower-is-workspace $(if grep -q "lowerdir=[^ ]*:$ws[, ]" /proc/self/mountinfo; then echo yes; else echo no; fi)"',
    '  echo "hidden-first $(if grep -q "lowerdir=[^:, ]*hide[^:, ]*:$ws[, ]" /proc/self/mountinfo; then echo yes; else echo no; fi)"',
    `} > ${out}`,
    `git add -A && git commit -qm probe`
  ]
  return lines.join('\n')
}

const task = (stack: Stack, id: string) => ({
  id,
  prompt: `Probe ${id}.\n${script({
    key: `ws-${id}`,
    steps: [
      { tool: 'Bash', input: { command: probe(stack.workspace, `tasks/${id}.txt`) } },
      { text: 'Done.' }
    ]
  })}`
})

async function runOne(stack: Stack, id: string) {
  const run = await stack.run({
    inputs: { tasks: JSON.stringify([task(stack, id)]), isolation: 'sandbox', setup: SETUP_PROBE },
    env: { GITHUB_TOKEN },
    timeoutMs: 300_000
  })
  expect(run.exitCode, run.stdout + run.stderr).toBe(0)
  const r = byId(run).get(id)
  expect(r?.status, r?.error ?? run.stdout).toBe('pr-opened')
  const found = await stack.git.readFile(FULL, `fleet/${id}`, `tasks/${id}.txt`)
  const probed = new Map(
    (found ?? '')
      .trim()
      .split('\n')
      .map(l => [l.slice(0, l.indexOf(' ')), l.slice(l.indexOf(' ') + 1)] as const)
  )
  const note = /^.*task files: views of .*$/m.exec(run.stdout)?.[0] ?? '(no note)'
  return { run, probed, note, start: r?.['worker-start-ms'] }
}

/**
 * setup's probe, in a cage of the same view: the `.git` bound over the view's own unmounted, then
 * the hiding file removed, and what is then at `.git` read; a plain `.git` file left for the
 * worker's cage to bind its git over (setup's own git, its check, reads it too). Its findings are read by the worker's probe.
 */
const SETUP_PROBE = [
  'r() { if "$@" > /dev/null 2>&1; then echo yes; else echo no; fi; }',
  'cp .git /tmp/gitfile',
  '{',
  '  echo "setup-umount $(r umount .git)"',
  '  echo "setup-umounted-bytes $(wc -c < .git)"',
  '  echo "setup-umounted-token $(if grep -qi extraheader .git; then echo yes; else echo no; fi)"',
  '  echo "setup-umounted-config $(r cat .git/config)"',
  '  rm -rf .git',
  '  echo "setup-removed-config $(r cat .git/config)"',
  '  echo "setup-removed-listed $(r ls -A .git/)"',
  '  mkdir .git',
  '  echo "setup-made-config $(r cat .git/config)"',
  '  echo "setup-made-entries $(ls -A .git/ | wc -l)"',
  // Put back a plain `.git` where the attack left a directory (nothing to do where it failed).
  '  if [ -d .git ]; then rmdir .git && cp /tmp/gitfile .git; fi',
  '} > .setup-probe 2>&1'
].join('\n')

/**
 * A worker's every kind of change, left for the seal (no commit of its own): an edit, a removal,
 * a directory removed and made again, one removed whole, a new tree, an ignored file; and what
 * its own git is told to ask (the cage's clone's config), into a file of the commit.
 */
const CHANGES = [
  'echo more >> README.md',
  'rm src/b.txt',
  'rm -rf lib && mkdir lib && echo n > lib/new.txt',
  'rm -rf docs',
  'mkdir -p new/deep && echo deep > new/deep/n.txt',
  'mkdir -p build && echo o > build/o.txt',
  'git config core.fsmonitorHookVersion > tasks/hook.txt',
  // Files it never touched are marked unchanged (lower case), as its git read them after asking.
  'git ls-files -f keep/k.txt src/a.txt > tasks/marks.txt',
  'git status --porcelain > "$TMPDIR/status" && test -s "$TMPDIR/status"'
].join(' && ')

/** What no worker may ever reach, whichever base its view shows. */
function expectSealed(probed: Map<string, string>) {
  expect(probed.get('workspace-config')).toBe('no')
  expect(probed.get('workspace-listed')).toBe('no')
  expect(probed.get('dotgit-config')).toBe('no')
  expect(probed.get('token-in-view')).toBe('no')
  expect(probed.get('token-in-mounts')).toBe('no')
  expect(probed.get('setup-umounted-config')).toBe('no')
  expect(probed.get('setup-umounted-token')).toBe('no')
  expect(probed.get('setup-removed-config')).toBe('no')
  expect(probed.get('setup-removed-listed')).toBe('no')
  expect(probed.get('setup-made-config')).toBe('no')
  expect(probed.get('setup-made-entries')).toBe('0')
}

describe.skipIf(why !== undefined)(
  `the workspace's checkout as the tasks' view${why ? ` (skipped: ${why})` : ''}`,
  () => {
    let stack: Stack
    beforeAll(async () => {
      stack = await startStack({ files: FILES })
    }, 300_000)
    afterAll(async () => {
      await stack?.close()
    })

    it('is used when it is exactly the base, its .git out of every reach', async () => {
      // The token's config key is there to find, had the worker any way to the workspace's .git.
      expect(await readFile(path.join(stack.workspace, '.git', 'config'), 'utf8')).toMatch(
        /extraheader/
      )
      const { probed, note } = await runOne(stack, 'clean')
      expect(note).toMatch(/views of the workspace's checkout, its \.git hidden/)
      // The check ran beside the clone's own steps, not after them on the first task's way.
      expect(note).toMatch(/begun with the clone, waited for \d+ ms/)
      expect(probed.get('lower-is-workspace')).toBe('yes')
      expect(probed.get('a')).toBe('a')
      // No capability in the cage, though this action runs as root: the `.git` bound over the
      // view's stays. Below it is the hiding layer's empty file (the overlay's first lower layer).
      expect(probed.get('capeff')).toBe('0000000000000000')
      expect(probed.get('setup-umount')).toBe('no')
      expect(probed.get('hidden-first')).toBe('yes')
      expectSealed(probed)
    }, 400_000)

    it("a worker's every kind of change lands exactly through the seal, the cage's git told by the view's layer", async () => {
      const run = await stack.run({
        inputs: {
          tasks: JSON.stringify([
            {
              id: 'changes',
              prompt: `Change.\n${script({
                key: 'ws-changes',
                steps: [{ tool: 'Bash', input: { command: CHANGES } }, { text: 'Done.' }]
              })}`
            }
          ]),
          isolation: 'sandbox'
        },
        env: { GITHUB_TOKEN },
        timeoutMs: 300_000
      })
      expect(run.exitCode, run.stdout + run.stderr).toBe(0)
      const r = byId(run).get('changes')
      expect(r?.status, r?.error ?? run.stdout).toBe('pr-opened')
      expect(run.stdout).toMatch(/views of the workspace's checkout, its \.git hidden/)
      expect(run.stdout).toMatch(/its index marked unchanged, so a cage's git looks at the paths/)
      const tree = await exec('git', [
        '-C',
        stack.git.repoPath(FULL),
        'ls-tree',
        '-r',
        '--name-only',
        'fleet/changes'
      ])
      expect(tree.stdout.trim().split('\n').sort()).toEqual(
        [
          '.gitignore',
          'README.md',
          'keep/k.txt',
          'lib/new.txt',
          'new/deep/n.txt',
          'src/a.txt',
          'tasks/.keep',
          'tasks/hook.txt',
          'tasks/marks.txt'
        ].sort()
      )
      expect(await stack.git.readFile(FULL, 'fleet/changes', 'README.md')).toBe('# widgets\nmore\n')
      // The cage's own git asks the layer (git/fsmonitor.ts), with the protocol it speaks.
      expect(await stack.git.readFile(FULL, 'fleet/changes', 'tasks/hook.txt')).toBe('2\n')
      expect(await stack.git.readFile(FULL, 'fleet/changes', 'tasks/marks.txt')).toBe(
        'h keep/k.txt\nh src/a.txt\n'
      )
    }, 400_000)

    it("a verify that writes after the worker's seal is sealed too; one that writes nothing leaves the branch as it was", async () => {
      const worker = (id: string) => ({
        id,
        prompt: `Write.\n${script({
          key: `ws-${id}`,
          steps: [{ tool: 'Bash', input: { command: `echo w > ${id}.txt` } }, { text: 'Done.' }]
        })}`,
        verify: id === 'formats' ? `echo fmt >> ${id}.txt && echo v > ${id}-v.txt` : 'true'
      })
      const run = await stack.run({
        inputs: {
          tasks: JSON.stringify([worker('formats'), worker('checks')]),
          isolation: 'sandbox'
        },
        env: { GITHUB_TOKEN },
        timeoutMs: 300_000
      })
      expect(run.exitCode, run.stdout + run.stderr).toBe(0)
      const read = (id: string, file: string) => stack.git.readFile(FULL, `fleet/${id}`, file)
      expect(byId(run).get('formats')?.status).toBe('pr-opened')
      expect(await read('formats', 'formats.txt')).toBe('w\nfmt\n')
      expect(await read('formats', 'formats-v.txt')).toBe('v\n')
      expect(byId(run).get('checks')?.status).toBe('pr-opened')
      expect(await read('checks', 'checks.txt')).toBe('w\n')
      // One commit on the start: the worker's; the verify that wrote nothing added none.
      const count = await exec('git', [
        '-C',
        stack.git.repoPath(FULL),
        'rev-list',
        '--count',
        'main..fleet/checks'
      ])
      expect(count.stdout.trim()).toBe('1')
    }, 400_000)

    it('is not used when a step left an ignored file; the worker never sees it', async () => {
      const secret = path.join(stack.workspace, 'secret.env')
      await writeFile(secret, 'API_KEY=do-not-leak\n')
      try {
        const { probed, note } = await runOne(stack, 'ignored')
        expect(note).toMatch(/the workspace's is not used \(it holds files the commit does not/)
        expect(probed.get('lower-is-workspace')).toBe('no')
        expect(probed.get('secret')).toBe('no')
        expectSealed(probed)
      } finally {
        await rm(secret, { force: true })
      }
    }, 400_000)

    it('is not used when a tracked file changed; the worker sees the base commit', async () => {
      const changed = path.join(stack.workspace, 'src', 'a.txt')
      await writeFile(changed, 'written by a step before\n')
      try {
        const { run, probed, note } = await runOne(stack, 'dirty')
        expect(note).toMatch(
          /the workspace's is not used \(a file changed since it was checked out/
        )
        // The run's own checkout instead, its index marked once for the cages' git.
        expect(run.stdout).toMatch(/the views' index marked unchanged in \d+ ms/)
        expect(probed.get('lower-is-workspace')).toBe('no')
        expect(probed.get('a')).toBe('a')
        expectSealed(probed)
      } finally {
        await writeFile(changed, 'a\n')
      }
    }, 400_000)
  }
)
