// Fairness at the gateway, through dist/, the real claude CLI and the sandbox: how many requests
// the CLI really has in flight (three subagents at once included), max-requests-per-worker
// holding that to a cap without refusing anything, and a hostile worker bursting requests at the
// gateway with its own token while an honest sibling is still served in turn.
import { describe, expect, it } from 'vitest'
import { requestLog as readRequestLog, useStack } from '../support/scenario.js'
import { type Script, script } from '../../demo/model-server.js'
import type { RunActionResult } from '../../demo/run-action.js'
import { byId } from '../../demo/stack.js'
import { burst } from '../support/gateway-curl.js'

const MODEL = 'glm-4.6'

/**
 * A task's script, whose steps may carry scripts of their own (a subagent's prompt, a curl's
 * body): their markers are written as JSON escapes, so the server finds the outer block whole and
 * the inner ones arrive as plain text where the CLI sends them.
 */
const task = (id: string, s: Omit<Script, 'key'>) => {
  const [head, outer, ...inner] = script({ key: id, ...s }).split('[[')
  const close = inner.pop() ?? ''
  const hidden = inner.map(part => `\\u005b\\u005b${part}`).join('')
  return { id, prompt: `Task ${id}.\n${head}[[${outer}${hidden}[[${close}` }
}

interface Line {
  at: string
  ms: number
  status: number
  attempts: number
  sentAt?: number
  releasedAt?: number
  queuedMs?: number
  workerInFlight?: number
  error?: string
}

const requestLog = (run: RunActionResult, name: string) => readRequestLog<Line>(run, name)

/** Forwarded requests as upstream intervals: from leaving the queue to the answer's end. */
const upstream = (log: Line[]) =>
  log
    .filter(l => l.attempts > 0 && l.sentAt !== undefined)
    .map(l => ({ from: l.sentAt ?? 0, to: l.releasedAt ?? Date.parse(l.at) + l.ms }))

/** The most intervals open at one instant (an end at the same ms as a start does not overlap). */
function peak(spans: { from: number; to: number }[]): number {
  const edges = spans.flatMap(s => [
    { t: s.from, d: 1 },
    { t: s.to, d: -1 }
  ])
  edges.sort((a, b) => a.t - b.t || a.d - b.d)
  let open = 0
  let most = 0
  for (const e of edges) most = Math.max(most, (open += e.d))
  return most
}

/** A worker that starts three subagents in one answer (parallel tool use), each a 1.5 s turn. */
const subagents = (id: string) => {
  const agent = (n: string) => ({
    tool: 'Agent',
    input: {
      description: `look ${n}`,
      subagent_type: 'general-purpose',
      prompt: `Look at ${n}.\n${script({ key: `${id}-${n}`, delayMs: 1500, steps: [{ text: `${n} looked.` }] })}`
    }
  })
  return task(id, {
    delayMs: 200,
    steps: [
      { ...agent('a'), also: [agent('b'), agent('c')] },
      { tool: 'Write', input: { file_path: `${id}.txt`, content: 'after the agents\n' } },
      { text: 'Done.' }
    ]
  })
}

describe('requests in flight per worker', () => {
  const stack = useStack()

  it('measures the CLI with three subagents at once, then holds it to max-requests-per-worker: 2 without refusing', async () => {
    const withCap = (id: string, cap: string) =>
      stack.run({
        inputs: {
          tasks: JSON.stringify([subagents(id)]),
          model: MODEL,
          tools: 'default',
          'max-requests-per-worker': cap
        }
      })
    const open = await withCap('open', '1000')
    expect(byId(open).get('open')?.status, open.stdout).toBe('pr-opened')
    const measured = peak(upstream(await requestLog(open, 'open.1.requests.jsonl')))
    console.log(`measured: the CLI had at most ${measured} requests in flight (three subagents)`)
    for (const n of ['a', 'b', 'c']) expect(stack.model.requestsFor(`open-${n}`).length).toBe(1)
    // The three subagents' turns overlap: the CLI does send them at once.
    expect(measured).toBeGreaterThanOrEqual(3)
    expect(measured).toBeLessThan(8) // the default cap sits above it

    const capped = await withCap('capped', '2')
    expect(byId(capped).get('capped')?.status, capped.stdout).toBe('pr-opened')
    const log = await requestLog(capped, 'capped.1.requests.jsonl')
    expect(peak(upstream(log))).toBeLessThanOrEqual(2)
    for (const l of log) expect(l.workerInFlight ?? 0).toBeLessThanOrEqual(2)
    // Nothing was refused: the third subagent waited for a slot (and said so in its log line).
    expect(log.filter(l => l.status >= 400)).toEqual([])
    expect(Math.max(...log.map(l => l.queuedMs ?? 0))).toBeGreaterThan(0)
  })
})

/** Twelve requests at once with the worker's own token, each held 2 s by the endpoint. */
const BURST = burst(12, {
  model: MODEL,
  max_tokens: 100,
  messages: [
    {
      role: 'user',
      content: script({ key: 'hog-burst', delayMs: 2000, steps: [{ text: 'held' }] })
    }
  ]
})

describe('a worker bursting at the gateway beside an honest sibling', () => {
  const stack = useStack()

  it('holds the burst to its cap, and the sibling goes at the next free slot every time', async () => {
    const hog = task('hog', {
      steps: [{ tool: 'Bash', input: { command: BURST } }, { text: 'Burst sent.' }]
    })
    const calm = task('calm', {
      delayMs: 300,
      steps: [
        { tool: 'Bash', input: { command: 'sleep 1' } },
        { tool: 'Write', input: { file_path: 'calm.txt', content: 'calm\n' } },
        { tool: 'Bash', input: { command: 'cat calm.txt' } },
        { tool: 'Bash', input: { command: 'wc -l calm.txt' } },
        { text: 'Done.' }
      ]
    })
    const run = await stack.run({
      inputs: {
        tasks: JSON.stringify([hog, calm]),
        model: MODEL,
        'max-parallel': '2',
        'model-concurrency': '2',
        'max-requests-per-worker': '2'
      }
    })
    const out = byId(run)
    expect(out.get('calm')?.status, run.stdout).toBe('pr-opened')
    expect(out.get('hog')?.status, run.stdout).toBe('no-changes')
    // Every burst request was served (waited, never refused): twelve 200s.
    const results = stack.model.requestsFor('hog').flatMap(q => q.toolResults)
    expect(results.join('\n').match(/^200$/gm)?.length).toBe(12)
    expect(stack.model.requestsFor('hog-burst').length).toBe(12)

    const hogLog = await requestLog(run, 'hog.1.requests.jsonl')
    const calmLog = await requestLog(run, 'calm.1.requests.jsonl')
    expect(peak(upstream(hogLog))).toBeLessThanOrEqual(2)
    for (const l of hogLog) expect(l.workerInFlight ?? 0).toBeLessThanOrEqual(2)
    // The burst did queue (else this test proves nothing)...
    expect(hogLog.filter(l => (l.queuedMs ?? 0) > 0).length).toBeGreaterThanOrEqual(8)
    // ...and while a calm request waited, at most one hog request left the queue ahead of it
    // (served in turn: a tie on requests in flight goes to whichever was served longer ago).
    const hogSent = hogLog.flatMap(l => (l.sentAt === undefined ? [] : [l.sentAt]))
    const calmWaits = calmLog.filter(l => l.sentAt !== undefined && (l.queuedMs ?? 0) > 0)
    for (const l of calmWaits) {
      const from = (l.sentAt ?? 0) - (l.queuedMs ?? 0)
      const passed = hogSent.filter(t => t > from && t < (l.sentAt ?? 0))
      expect(passed.length, JSON.stringify(l)).toBeLessThanOrEqual(1)
    }
    console.log(
      `calm: ${calmLog.length} requests, ${calmWaits.length} waited (longest ${Math.max(0, ...calmLog.map(l => l.queuedMs ?? 0))} ms); hog: ${hogLog.length} requests, peak ${peak(upstream(hogLog))} in flight`
    )
  })
})
