// Issue #40 item 5, through dist/: tasks that finish while another task's push is in flight have
// their branches pushed together in the next push, and the remote sees fewer pushes than tasks;
// each task's outcome is its own branch's verdict: the one branch the remote's update hook refuses
// fails its task alone (kept as a bundle), and every other branch lands with its PR.
import { chmod, readFile, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { useStack, useTemp } from '../support/scenario.js'
import { expectContractResults, scripted, write } from './landing-support.js'
import { byId, OWNER, REPO } from '../../demo/stack.js'

const NAME = `${OWNER}/${REPO}`

describe('landing: pushes that coalesce', () => {
  const stack = useStack()
  const dir = useTemp('fleet-push-coalesce-')

  it('several tasks finishing together: fewer pushes than tasks, each branch landed, one refused alone', async () => {
    const bare = stack.git.repoPath(NAME)
    const log = path.join(dir, 'pushes.log')
    const hook = async (name: string, lines: string[]) => {
      const file = path.join(bare, 'hooks', name)
      await writeFile(file, `#!/bin/sh\n${lines.join('\n')}\n`)
      await chmod(file, 0o755)
    }
    // Each push's refs logged, and held 3 s: tasks that finish meanwhile must wait for it.
    await hook('pre-receive', [
      'refs=$(cat)',
      `printf '%s\\n--\\n' "$refs" >> '${log}'`,
      'sleep 3',
      'exit 0'
    ])
    // This one ref alone is refused; the others in the same push land.
    await hook('update', [
      'if [ "$1" = refs/heads/fleet/refused ]; then echo "refused-marker: not this one" >&2; exit 1; fi',
      'exit 0'
    ])
    const ids = ['one', 'two', 'three', 'refused', 'four']
    const tasks = ids.map(id => ({
      id,
      prompt: scripted(id, [write(`${id}.txt`, `work of ${id}\n`)])
    }))
    try {
      const run = await stack.run({
        inputs: { tasks: JSON.stringify(tasks), 'max-parallel': '5', isolation: 'process' }
      })
      expect(run.exitCode, run.stdout + run.stderr).not.toBe(0)
      expectContractResults(run, ids.length)
      const out = byId(run)
      const branches = await stack.git.branches(NAME)
      for (const id of ids.filter(i => i !== 'refused')) {
        expect(out.get(id)?.status, `${id}: ${out.get(id)?.error}`).toBe('pr-opened')
        expect(await stack.git.readFile(NAME, `fleet/${id}`, `${id}.txt`)).toBe(`work of ${id}\n`)
      }
      const refused = out.get('refused')
      expect(refused?.status).toBe('failed')
      expect(refused?.error).toContain('refused-marker: not this one')
      expect(refused?.error).toContain('[remote rejected] (hook declined)')
      expect(refused?.error).toMatch(/preserved in \S+\.bundle/)
      expect(Object.keys(branches)).not.toContain('fleet/refused')

      // What the remote saw: each push's fleet branches.
      const pushes = (await readFile(log, 'utf8'))
        .split('--\n')
        .map(block => [...block.matchAll(/ refs\/heads\/(fleet\/\S+)$/gm)].map(m => m[1]))
        .filter(refs => refs.length > 0)
      // Without coalescing: one push a task. With it: fewer, one of them carrying several
      // branches, and the refused branch's own push again alone (its verdict) at most once more.
      expect(pushes.length, JSON.stringify(pushes)).toBeLessThan(ids.length)
      expect(Math.max(...pushes.map(p => p.length)), JSON.stringify(pushes)).toBeGreaterThan(1)
      for (const id of ids)
        expect(pushes.flat().filter(b => b === `fleet/${id}`).length).toBeGreaterThan(0)
    } finally {
      await hook('pre-receive', ['exit 0'])
      await hook('update', ['exit 0'])
    }
  })
})
