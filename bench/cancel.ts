// How long a run takes to stop when the runner cancels it (SIGTERM) during a long verify: the
// runner sends SIGKILL 7.5 s later, so a run that is not over by then reports nothing. Each round
// starts the action through dist/ with the real CLI (demo/stack.ts), waits until the verify's
// `sleep` runs, sends SIGTERM and times the action's exit. Prints each time, the median and the
// load average; in the sandbox and in isolation: process.
// Run: npm run bench:cancel (BENCH_CANCEL_RUNS=3 by default).
import { randomInt } from 'node:crypto'
import { loadavg } from 'node:os'
import {
  processesMentioning,
  signalAction,
  task,
  waitForAsync,
  writeThenDone
} from '../test/e2e/faults-support.js'
import { byId, startStack } from '../demo/stack.js'

const runs = Number(process.env.BENCH_CANCEL_RUNS ?? 3)

async function stopTime(isolation: string): Promise<number> {
  const stack = await startStack()
  try {
    const sleep = `sleep 300.${randomInt(100_000, 999_999)}`
    const tasks = [task('cut', { steps: writeThenDone('w.txt') })]
    const running = stack.run({
      inputs: { tasks: JSON.stringify(tasks), verify: sleep, isolation }
    })
    await waitForAsync('the verify', async () => (await processesMentioning(sleep)).length > 0)
    const at = Date.now()
    await signalAction(stack.workspace, 'SIGTERM')
    const run = await running
    const ms = Date.now() - at
    const status = byId(run).get('cut')?.status
    if (status !== 'cancelled') throw new Error(`expected the task cancelled, got ${status}`)
    return ms
  } finally {
    await stack.close()
  }
}

for (const isolation of ['sandbox', 'process']) {
  const times: number[] = []
  for (let i = 0; i < runs; i++) times.push(await stopTime(isolation))
  const median = [...times].sort((a, b) => a - b)[Math.floor(times.length / 2)]
  console.log(
    `${isolation}: stopped in ${times.map(t => `${t} ms`).join(', ')}; median ${median} ms; load ${loadavg()
      .map(l => l.toFixed(1))
      .join(' ')}`
  )
}
