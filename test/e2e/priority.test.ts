// Issue 40, through dist/ and the real claude CLI: a task's own commands run below the action
// (src/process/priority.ts). What the worker's tools run has the lowest nice value; the worker's
// session's scheduling group (autogroup) is lowered too, and so is the session of each tool's
// shell (the CLI starts every one in a session of its own), in a process and in the sandbox.
import { existsSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { expectOk, useStack } from '../support/scenario.js'
import { byId } from '../../demo/stack.js'
import { bash, task, write } from './faults-support.js'

// The tool's shell: its nice (field 19 of its stat: the 17th from the state), and the groups of
// the worker (the parent of the tool's session leader) and of the tool itself, once both are
// lowered (or after five seconds).
const LOOK = [
  'read -r st </proc/self/stat; set -- ${st##*) }; echo "NICE=${17}"; sid=$4',
  'read -r st </proc/$sid/stat; set -- ${st##*) }; worker=$2',
  'low() { for p; do grep -q "nice 19" /proc/$p/autogroup || return 1; done; }',
  'if [ -e /proc/self/autogroup ]; then',
  '  t=0; until low $worker self || [ $t -ge 50 ]; do t=$((t+1)); sleep 0.1; done',
  '  echo "WORKER=$(cat /proc/$worker/autogroup)"; echo "TOOL=$(cat /proc/self/autogroup)"',
  'fi'
].join('\n')

const GROUPED = existsSync('/proc/self/autogroup')

describe('a task’s own commands run below the action', () => {
  const stack = useStack()

  for (const isolation of ['process', 'sandbox'] as const)
    it(`in isolation: ${isolation}, the worker runs in a lowered group, its tools at nice 19 in lowered groups`, async ({
      skip
    }) => {
      if (isolation === 'sandbox' && stack.isolation !== 'sandbox') skip('no sandbox here')
      const id = `below-${isolation}`
      const steps = [bash(LOOK), write('low.txt'), { text: 'Looked.' }]
      const run = await stack.run({
        inputs: { tasks: JSON.stringify([task(id, { steps })]), isolation }
      })
      expectOk(run)
      expect(byId(run).get(id)?.status).toBe('pr-opened')
      const said = stack.model
        .requestsFor(id)
        .filter(q => q.outcome === 'reply' && q.step === 1)
        .flatMap(q => q.toolResults)
        .join('\n')
      expect(said).toMatch(/^NICE=19$/m)
      if (!GROUPED) return
      expect(said).toMatch(/^WORKER=\/autogroup-\d+ nice 19$/m)
      expect(said).toMatch(/^TOOL=\/autogroup-\d+ nice 19$/m)
    })
})
