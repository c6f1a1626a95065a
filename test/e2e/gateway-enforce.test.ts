// The gateway against a worker that calls it directly (curl from its Bash tool, with its own
// token), through dist/ and the real claude CLI: budgets that hold under a parallel burst, models
// the run did not configure, headers and betas by allowlist, a body over the API's limit, and
// usage as the endpoint bills it.
import { describe, expect, it } from 'vitest'
import { requestLog, useStack } from '../support/scenario.js'
import { RICH_BILLED } from '../../demo/model-billing.js'
import { type RecordedRequest, type Script, script } from '../../demo/model-server.js'
import { byId, OWNER, REPO, type Stack } from '../../demo/stack.js'
import { costOf } from '../../src/prices.js'
import { burst, directCurl } from '../support/gateway-curl.js'

const task = (id: string, s: Omit<Script, 'key'>) => ({
  id,
  prompt: `Task ${id}.\n${script({ key: id, ...s })}`
})

/** Twelve requests at once, each asking 64,000 output tokens, billed their worst case. */
const BURST = burst(12, {
  model: 'claude-opus-5-5',
  max_tokens: 64000,
  messages: [{ role: 'user', content: '[[fleet-burn]]' }]
})

/** The burst's requests as the endpoint saw them (the CLI's own carry the command, not as side). */
const burns = (stack: Stack) =>
  stack.model.requests.filter(
    q => q.outcome === 'side' && JSON.stringify(q.body).includes('[[fleet-burn]]')
  )

const total = (u: {
  input_tokens: number
  output_tokens: number
  cache_read_input_tokens?: number
  cache_creation_input_tokens?: number
}) =>
  u.input_tokens +
  u.output_tokens +
  (u.cache_read_input_tokens ?? 0) +
  (u.cache_creation_input_tokens ?? 0)

const toolResults = (qs: RecordedRequest[]) => qs.flatMap(q => q.toolResults).join('\n')

describe('budgets against a burst of direct requests', () => {
  const stack = useStack()

  it('a parallel burst never takes a task past max-task-tokens; the task ends failed, its work pushed', async () => {
    const burst = task('burst', {
      steps: [
        { tool: 'Write', input: { file_path: 'partial.txt', content: 'half done\n' } },
        { tool: 'Bash', input: { command: BURST } },
        { text: 'Finished.' }
      ]
    })
    const before = burns(stack).length
    const run = await stack.run({
      inputs: { tasks: JSON.stringify([burst]), 'max-task-tokens': '150000' }
    })
    const r = byId(run).get('burst')
    expect(r?.status, run.stdout).toBe('failed')
    expect(r?.error).toMatch(
      /^token budget (spent|too low for this request): .* \(budgets: task-tokens\); its partial work is on branch fleet\/burst$/
    )
    expect(await stack.git.readFile(`${OWNER}/${REPO}`, 'fleet/burst', 'partial.txt')).toBe(
      'half done\n'
    )
    const mine = burns(stack).slice(before)
    // Some of the burst got through, and every one of them was billed its whole worst case...
    expect(mine.length).toBeGreaterThanOrEqual(1)
    expect(mine.length).toBeLessThan(12)
    for (const q of mine) expect(q.usage?.output_tokens).toBeLessThanOrEqual(64000)
    // ...yet all the endpoint billed for this task stays within its budget.
    const billed = [...mine, ...stack.model.requestsFor('burst')]
      .map(q => (q.usage ? total(q.usage) : 0))
      .reduce((a, b) => a + b, 0)
    expect(billed).toBeLessThanOrEqual(150000)
    expect(total(r?.usage ?? { input_tokens: 0, output_tokens: 0 })).toBe(billed)
    const log = await requestLog(run, 'burst.1.requests.jsonl')
    expect(log.filter(l => l.status === 400).length).toBeGreaterThanOrEqual(12 - mine.length)
  })

  it('and past max-task-cost-usd, each request priced at its own model', async () => {
    const dear = task('dear', {
      steps: [{ tool: 'Bash', input: { command: BURST } }, { text: 'Done.' }]
    })
    const before = burns(stack).length
    const run = await stack.run({
      inputs: {
        tasks: JSON.stringify([dear]),
        prices: 'claude-opus-5-5: {input: 5, output: 25}',
        'max-task-cost-usd': '3'
      }
    })
    const r = byId(run).get('dear')
    expect(r?.status, run.stdout).toBe('failed')
    expect(r?.error).toMatch(
      /^cost budget (spent|too low for this request): .* \(budgets: task-cost-usd\)/
    )
    const mine = burns(stack).slice(before)
    expect(mine.length).toBeGreaterThanOrEqual(1)
    const price = { input: 5, output: 25 }
    const billed = [...mine, ...stack.model.requestsFor('dear')]
      .map(q => (q.usage ? costOf(q.usage, price) : 0))
      .reduce((a, b) => a + b, 0)
    expect(billed).toBeLessThanOrEqual(3)
    expect(r?.['cost-usd']).toBeCloseTo(billed, 9)
  })

  it('a burst that spends the run budget starts no new worker: the rest end not-started, naming it', async () => {
    const tasks = [
      task('r1', { steps: [{ tool: 'Bash', input: { command: BURST } }, { text: 'Done.' }] }),
      task('r2', { steps: [{ text: 'Done.' }] }),
      task('r3', { steps: [{ text: 'Done.' }] })
    ]
    const run = await stack.run({
      inputs: { tasks: JSON.stringify(tasks), 'max-run-tokens': '150000', 'max-parallel': '1' }
    })
    const out = byId(run)
    expect(out.get('r1')?.status, run.stdout).toBe('failed')
    for (const id of ['r2', 'r3']) {
      expect(out.get(id)?.status).toBe('not-started')
      expect(out.get(id)?.error).toMatch(
        /^token budget (spent|too low for this request): .* \(budgets: run-tokens\) before this task started$/
      )
      expect(stack.model.requestsFor(id)).toEqual([])
    }
  })
})

describe('models, headers and bodies the run did not ask for', () => {
  const stack = useStack()

  it('refuses an unconfigured model with no upstream request, and passes only allowlisted headers and betas', async () => {
    const sneaky = {
      cookie: 'session=stolen',
      'x-portkey-provider': 'openai',
      'anthropic-beta': 'context-1m-2025-08-07,claude-code-20250219'
    }
    const commands = [
      directCurl({
        model: 'claude-opus-4-1',
        max_tokens: 64000,
        messages: [{ role: 'user', content: 'hi' }]
      }),
      directCurl(
        { model: 'glm-4.6', max_tokens: 100, messages: [{ role: 'user', content: 'headers' }] },
        '',
        sneaky
      )
    ].join('; ')
    const t = task('direct', {
      steps: [{ tool: 'Bash', input: { command: commands } }, { text: 'Done.' }]
    })
    const run = await stack.run({
      inputs: { tasks: JSON.stringify([t]), model: 'glm-4.6', 'allowed-betas': 'effort-2025-11-24' }
    })
    expect(byId(run).get('direct')?.status, run.stdout).toBe('no-changes')
    expect(stack.model.requests.filter(q => q.model === 'claude-opus-4-1')).toEqual([])
    expect(toolResults(stack.model.requestsFor('direct'))).toMatch(/^400\n200$/m)
    const log = await requestLog(run, 'direct.1.requests.jsonl')
    expect(log).toContainEqual(
      expect.objectContaining({
        status: 400,
        attempts: 0,
        model: 'claude-opus-4-1',
        error:
          "model 'claude-opus-4-1' is not one this run configured: the fleet's gateway forwards only 'claude-haiku-4-5', 'claude-haiku-4-5-20251001', 'claude-haiku-5-5', 'glm-4.6'"
      })
    )
    const plain = stack.model.requests.find(q => JSON.stringify(q.body).includes('"headers"'))
    expect(plain?.headers['anthropic-beta']).toBe('claude-code-20250219')
    expect(plain?.headers.cookie).toBeUndefined()
    expect(plain?.headers['x-portkey-provider']).toBeUndefined()
    const dropped = log.flatMap(l => (Array.isArray(l.dropped) ? (l.dropped as string[]) : []))
    expect(dropped).toEqual(
      expect.arrayContaining([
        'cookie',
        'x-portkey-provider',
        'anthropic-beta: context-1m-2025-08-07'
      ])
    )
    // The CLI's own requests: only the allowlist reached the endpoint.
    const allowed = [
      'accept',
      'accept-encoding',
      'authorization', // the real key, in the configured header
      'anthropic-beta',
      'anthropic-version',
      'connection',
      'content-length',
      'content-type',
      'host',
      'user-agent',
      'x-api-key',
      'x-app'
    ]
    for (const q of stack.model.requestsFor('direct')) {
      expect(Object.keys(q.headers).filter(h => !allowed.includes(h))).toEqual([])
      for (const beta of (q.headers['anthropic-beta'] ?? '').split(','))
        expect(beta === '' || beta !== 'context-1m-2025-08-07').toBe(true)
    }
  })

  it('answers a 100 MiB body 413 before reading it; nothing reaches the endpoint', async () => {
    const big = `head -c 104857600 /dev/zero | tr '\\0' ' ' > /tmp/big.json; ${directCurl({}, '').replace(`-d '{}'`, '--data-binary @/tmp/big.json')}`
    const t = task('huge', {
      steps: [{ tool: 'Bash', input: { command: big } }, { text: 'Done.' }]
    })
    const before = stack.model.requests.length
    const run = await stack.run({ inputs: { tasks: JSON.stringify([t]) } })
    expect(byId(run).get('huge')?.status, run.stdout).toBe('no-changes')
    expect(toolResults(stack.model.requestsFor('huge'))).toMatch(/413/)
    const side = stack.model.requests.slice(before).filter(q => q.key !== 'huge')
    expect(side).toEqual([])
    const log = await requestLog(run, 'huge.1.requests.jsonl')
    expect(log).toContainEqual(expect.objectContaining({ status: 413, attempts: 0 }))
  })
})

describe('usage as billed', () => {
  const stack = useStack()

  it('counts compaction iterations, 1-hour and 5-minute cache writes and web searches, streamed and JSON; costs them at the prices', async () => {
    const t = (id: string, extra: object) =>
      task(id, {
        steps: [
          { tool: 'Write', input: { file_path: `${id}.txt`, content: 'x\n' } },
          { text: 'Done.' }
        ],
        billing: 'rich',
        ...extra
      })
    const run = await stack.run({
      inputs: {
        tasks: JSON.stringify([t('rich', {}), t('richjson', { garbage: 1 })]),
        prices: 'claude-opus-5-5: {input: 5, output: 25}'
      }
    })
    const out = byId(run)
    const price = { input: 5, output: 25 }
    expect(stack.model.requestsFor('richjson').some(q => !q.stream && q.outcome === 'reply')).toBe(
      true
    )
    for (const id of ['rich', 'richjson']) {
      expect(out.get(id)?.status, run.stdout).toBe('pr-opened')
      const answered = stack.model.requestsFor(id).filter(q => q.outcome === 'reply').length
      const n = (k: number) => k * answered
      expect(out.get(id)?.usage).toEqual({
        input_tokens: n(RICH_BILLED.input_tokens),
        output_tokens: n(RICH_BILLED.output_tokens),
        cache_read_input_tokens: n(RICH_BILLED.cache_read_input_tokens),
        cache_creation_input_tokens: n(RICH_BILLED.cache_creation_input_tokens),
        cache_creation: { ephemeral_5m_input_tokens: n(100), ephemeral_1h_input_tokens: n(200) },
        server_tool_use: { web_search_requests: n(2) }
      })
      expect(out.get(id)?.['cost-usd']).toBeCloseTo(answered * costOf(RICH_BILLED, price), 9)
    }
  })
})
