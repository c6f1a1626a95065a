// Drives the real claude CLI through the scripted model server, the way the action runs workers.
import { execa } from 'execa'
import { mkdir, mkdtemp, readdir, readFile, realpath, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  script,
  scriptKey,
  startModelServer,
  sumUsage,
  type ModelServer,
  type Script,
  type Usage
} from '../../demo/model-server.js'

const CLAUDE = path.resolve('node_modules/.bin/claude')
const tempDirs: string[] = []

interface Run {
  exitCode: number | undefined
  cwd: string
  lines: Record<string, unknown>[]
  result: Record<string, unknown>
}

interface RunOptions {
  prompt: string
  auth?: { apiKey: string } | { token: string }
  env?: Record<string, string>
  args?: string[]
}

async function runWorker(server: ModelServer, o: RunOptions): Promise<Run> {
  const base = await mkdtemp(path.join(os.tmpdir(), 'model-server-test-'))
  tempDirs.push(base)
  const [cwd, home, config] = ['repo', 'home', 'config'].map(d => path.join(base, d)) as [
    string,
    string,
    string
  ]
  await Promise.all([cwd, home, config].map(d => mkdir(d)))
  await execa('git', ['init', '-q'], { cwd })
  const auth = o.auth ?? { apiKey: 'test-key' }
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    CLAUDE_CONFIG_DIR: config,
    ANTHROPIC_BASE_URL: server.url,
    ...('apiKey' in auth
      ? { ANTHROPIC_API_KEY: auth.apiKey }
      : { ANTHROPIC_AUTH_TOKEN: auth.token }),
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
    CLAUDE_CODE_MAX_RETRIES: '2',
    ...(process.getuid?.() === 0 ? { IS_SANDBOX: '1' } : {}),
    ...o.env
  }
  const args = ['-p', o.prompt, '--output-format', 'stream-json', '--verbose']
  args.push('--permission-mode', 'bypassPermissions', '--max-turns', '10')
  args.push('--tools', 'Bash,Edit,Read,Write', ...(o.args ?? []))
  // stdin 'ignore': with a pipe the CLI waits 3 s for input before starting.
  const child = await execa(CLAUDE, args, {
    cwd,
    env,
    extendEnv: false,
    stdin: 'ignore',
    reject: false,
    timeout: 240_000
  })
  const lines = child.stdout
    .split('\n')
    .filter(l => l.trim() !== '')
    .map(l => JSON.parse(l) as Record<string, unknown>)
  const result = lines.findLast(l => l.type === 'result')
  if (!result) throw new Error(`no result line; exit ${child.exitCode}; stderr: ${child.stderr}`)
  return { exitCode: child.exitCode, cwd: await realpath(cwd), lines, result }
}

function usageOf(result: Record<string, unknown>): Usage {
  const u = result.usage as Usage
  return {
    input_tokens: u.input_tokens,
    output_tokens: u.output_tokens,
    cache_read_input_tokens: u.cache_read_input_tokens,
    cache_creation_input_tokens: u.cache_creation_input_tokens
  }
}

let server: ModelServer
beforeAll(async () => {
  server = await startModelServer()
})
afterAll(async () => {
  await server.close()
  await Promise.all(tempDirs.map(d => rm(d, { recursive: true, force: true })))
})

describe('scripted model server with the real claude CLI', () => {
  it('plays Write, Bash, text in the worker cwd and reports usage the CLI sums', async () => {
    const s: Script = {
      key: 'write-then-cat',
      steps: [
        { tool: 'Write', input: { file_path: 'notes/hello.txt', content: 'hello from step 0\n' } },
        { tool: 'Bash', input: { command: 'cat notes/hello.txt' } },
        { text: 'All done.' }
      ]
    }
    const run = await runWorker(server, { prompt: `Write a greeting.\n${script(s)}` })

    expect(run.exitCode).toBe(0)
    expect(run.result).toMatchObject({ is_error: false, num_turns: 3, result: 'All done.' })
    expect(await readFile(path.join(run.cwd, 'notes/hello.txt'), 'utf8')).toBe(
      'hello from step 0\n'
    )

    const seen = server.requestsFor('write-then-cat')
    expect(seen.map(r => [r.step, r.status, r.outcome])).toEqual([
      [0, 200, 'reply'],
      [1, 200, 'reply'],
      [2, 200, 'reply']
    ])
    expect(seen.every(r => r.cwd === run.cwd)).toBe(true)
    expect(seen[2]?.toolResults).toEqual([expect.stringContaining('hello from step 0')])
    // The relative path reached the CLI resolved against the worker's cwd.
    const toolUses = JSON.stringify(run.lines.filter(l => l.type === 'assistant'))
    expect(toolUses).toContain(JSON.stringify(path.join(run.cwd, 'notes/hello.txt')))

    const expected = server.usageFor('write-then-cat')
    expect(usageOf(run.result)).toEqual(expected)
    // A sum over three distinct turns, not the last turn's figures.
    expect(expected.input_tokens).toBe(seen.reduce((n, r) => n + (r.usage?.input_tokens ?? 0), 0))
    expect(expected.input_tokens).toBeGreaterThan(seen[2]?.usage?.input_tokens ?? Infinity)
  })

  it('keeps two concurrent workers on their own scripts', async () => {
    const scripts = ['alpha', 'beta'].map((name, i): Script => ({
      steps: [
        ...Array.from({ length: i + 1 }, (_, k) => ({
          tool: 'Write',
          input: { file_path: `${name}-${k}.txt`, content: `${name} ${k}` }
        })),
        { tool: 'Bash', input: { command: `cat ${name}-*.txt` } },
        { text: `${name} finished` }
      ],
      delayMs: 100
    }))
    const runs = await Promise.all(scripts.map(s => runWorker(server, { prompt: script(s) })))

    for (const [i, name] of ['alpha', 'beta'].entries()) {
      const run = runs[i]!
      const key = scriptKey(scripts[i]!)
      expect(run.result).toMatchObject({
        is_error: false,
        result: `${name} finished`,
        num_turns: i + 3
      })
      expect((await readdir(run.cwd)).filter(f => f !== '.git').sort()).toEqual(
        Array.from({ length: i + 1 }, (_, k) => `${name}-${k}.txt`)
      )
      const seen = server.requestsFor(key)
      expect(seen.map(r => r.step)).toEqual(Array.from({ length: i + 3 }, (_, k) => k))
      expect(seen.every(r => r.cwd === run.cwd)).toBe(true)
      expect(seen.at(-1)?.toolResults.join('')).toContain(`${name} 0`)
      expect(seen.at(-1)?.toolResults.join('')).not.toContain(i === 0 ? 'beta' : 'alpha')
      expect(usageOf(run.result)).toEqual(server.usageFor(key))
    }
    expect(scriptKey(scripts[0]!)).not.toBe(scriptKey(scripts[1]!))
  })

  it('exhausts the CLI retries on 529, and the next run of the same key succeeds', async () => {
    const s: Script = { steps: [{ text: 'recovered' }], faults: [{ status: 529, times: 3 }] }
    const key = scriptKey(s)
    const env = { CLAUDE_CODE_MAX_RETRIES: '2' }

    const failed = await runWorker(server, { prompt: script(s), env })
    expect(failed.exitCode).toBe(1)
    // Measured: subtype stays "success"; the result text carries our error message.
    expect(failed.result).toMatchObject({
      is_error: true,
      subtype: 'success',
      terminal_reason: 'api_error',
      api_error_status: 529,
      api_error_type: 'overloaded_error'
    })
    expect(failed.result.result).toMatch(/^API Error: 529 scripted 529 \(request 3\)/)
    expect(server.requestsFor(key).map(r => r.status)).toEqual([529, 529, 529])
    expect(usageOf(failed.result)).toEqual(server.usageFor(key))

    const again = await runWorker(server, { prompt: script(s), env })
    expect(again.exitCode).toBe(0)
    expect(again.result).toMatchObject({ is_error: false, result: 'recovered', num_turns: 1 })
    expect(server.requestsFor(key).map(r => r.status)).toEqual([529, 529, 529, 200])
    expect(usageOf(again.result)).toEqual(server.usageFor(key))
  })

  it('counts a dropped stream and survives a garbage body the way the CLI does', async () => {
    const s: Script = { key: 'flaky-transport', steps: [{ text: 'made it' }], drop: 1, garbage: 1 }
    const run = await runWorker(server, { prompt: script(s) })

    expect(run.result).toMatchObject({ is_error: false, result: 'made it' })
    const seen = server.requestsFor('flaky-transport')
    expect(seen.map(r => [r.outcome, r.stream])).toEqual([
      ['drop', true],
      ['garbage', true],
      ['reply', false] // the CLI fell back to a non-streaming request
    ])
    // Whether the CLI adds the dropped stream's message_start usage depends on whether it had read
    // that event when the connection was cut: a race inside the CLI no wait on our side can close
    // (under load it often has not). Either sum is what the CLI does; anything else is not.
    const withHead = server.usageFor('flaky-transport')
    const withoutHead = sumUsage(seen.filter(r => r.outcome !== 'drop').map(r => r.usage))
    expect(withHead).not.toEqual(withoutHead)
    expect([withHead, withoutHead]).toContainEqual(usageOf(run.result))
  })

  it('rejects unknown keys, records both auth headers and the model name', async () => {
    await using gated = await startModelServer({ acceptKeys: ['good-key'] })
    const s: Script = { key: 'auth', steps: [{ text: 'authorised' }] }
    const noRetry = { CLAUDE_CODE_MAX_RETRIES: '0' }
    const [denied, viaApiKey, viaBearer] = await Promise.all([
      runWorker(gated, { prompt: script(s), auth: { apiKey: 'bad-key' }, env: noRetry }),
      runWorker(gated, {
        prompt: script(s),
        auth: { apiKey: 'good-key' },
        args: ['--model', 'glm-test']
      }),
      runWorker(gated, {
        prompt: script(s),
        auth: { token: 'good-key' },
        env: { ...noRetry, ANTHROPIC_MODEL: 'glm-test' }
      })
    ])

    expect(denied.exitCode).toBe(1)
    expect(denied.result).toMatchObject({ is_error: true, api_error_status: 401 })
    expect(viaApiKey.result).toMatchObject({ is_error: false, result: 'authorised' })
    expect(viaBearer.result).toMatchObject({ is_error: false, result: 'authorised' })

    const seen = gated.requestsFor('auth')
    const rejected = seen.filter(r => r.status === 401)
    expect(rejected).toHaveLength(1)
    expect(rejected[0]).toMatchObject({ outcome: 'unauthorized', usage: undefined })
    expect(rejected[0]?.headers['x-api-key']).toBe('bad-key')

    const ok = seen.filter(r => r.status === 200)
    expect(ok).toHaveLength(2)
    const byKey = ok.find(r => r.headers['x-api-key'] === 'good-key')
    const byBearer = ok.find(r => r.headers.authorization === 'Bearer good-key')
    expect(byKey?.headers.authorization).toBeUndefined()
    expect(byBearer?.headers['x-api-key']).toBeUndefined()
    for (const r of [byKey, byBearer]) {
      expect(r?.model).toBe('glm-test')
      expect(r?.body).toMatchObject({ model: 'glm-test', stream: true })
      expect(r?.path).toBe('/v1/messages?beta=true')
      expect(r?.headers['anthropic-version']).toBe('2023-06-01')
      expect(r?.headers['user-agent']).toMatch(/^claude-cli\//)
    }
  })
})

describe('scripted model server without the CLI', () => {
  const post = (url: string, body: unknown) =>
    fetch(`${url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': 'k' },
      body: JSON.stringify(body)
    })
  const userSays = (text: string) => [{ role: 'user', content: [{ type: 'text', text }] }]
  const tools = [{ name: 'Bash', input_schema: { type: 'object' } }]

  it('answers side requests, non-streaming requests and default scripts with JSON', async () => {
    await using s = await startModelServer({
      defaultScript: prompt =>
        prompt.includes('list files')
          ? { key: 'ls', steps: [{ tool: 'Bash', input: { command: 'ls' } }] }
          : undefined
    })
    const side = await post(s.url, {
      model: 'm',
      messages: userSays('Summarise this.'),
      stream: false
    })
    expect(side.status).toBe(200)
    expect(await side.json()).toMatchObject({ content: [{ type: 'text', text: 'OK.' }] })

    const scripted = await post(s.url, {
      model: 'm',
      tools,
      stream: false,
      messages: userSays('<system-reminder>ctx</system-reminder>\nplease list files')
    })
    expect(await scripted.json()).toMatchObject({
      type: 'message',
      model: 'm',
      stop_reason: 'tool_use',
      content: [{ type: 'text' }, { type: 'tool_use', name: 'Bash', input: { command: 'ls' } }]
    })
    const plain = await post(s.url, { model: 'm', tools, stream: false, messages: userSays('hi') })
    expect(await plain.json()).toMatchObject({
      stop_reason: 'end_turn',
      content: [{ text: 'Done.' }]
    })
    expect(s.requests.map(r => [r.outcome, r.key === 'ls'])).toEqual([
      ['side', false],
      ['reply', true],
      ['reply', false]
    ])
  })

  it('gives faults proper Anthropic error bodies and rejects a broken script', async () => {
    await using s = await startModelServer()
    const faulty = { steps: [], faults: [{ status: 429, times: 1, retryAfter: 0 }] }
    const first = await post(s.url, { model: 'm', tools, messages: userSays(script(faulty)) })
    expect(first.status).toBe(429)
    expect(first.headers.get('retry-after')).toBe('0')
    expect(await first.json()).toEqual({
      type: 'error',
      error: { type: 'rate_limit_error', message: expect.any(String) as string }
    })
    const second = await post(s.url, { model: 'm', tools, messages: userSays(script(faulty)) })
    expect(second.status).toBe(200)

    const broken = await post(s.url, {
      model: 'm',
      tools,
      messages: userSays('[[fleet-script]] {not json [[/fleet-script]]')
    })
    expect(broken.status).toBe(400)
    expect(await broken.json()).toMatchObject({ error: { type: 'invalid_request_error' } })
  })

  it('refuses requests past maxConcurrent with a 429, a limit that can change while it runs', async () => {
    await using s = await startModelServer({ delayMs: 300 })
    const slow = () =>
      post(s.url, { model: 'm', tools, stream: false, messages: userSays('hold a moment') })
    expect((await Promise.all([slow(), slow()])).map(r => r.status)).toEqual([200, 200])
    s.setMaxConcurrent(1)
    // Held until released (not for a fixed time), so it is surely open when the next one comes.
    const held = post(s.url, {
      model: 'm',
      tools,
      stream: false,
      messages: userSays(script({ key: 'held', steps: [], holdAt: 0 }))
    })
    await expect.poll(() => s.open()).toBe(1)
    const refused = await slow()
    expect(refused.status).toBe(429)
    s.release('held')
    expect((await held).status).toBe(200)
    s.setMaxConcurrent(undefined)
    expect(s.requests.map(r => r.outcome)).toEqual(['reply', 'reply', 'reply', 'refused'])
  })

  it('holds the answer at holdAt until the test releases it, and answers at once after that', async () => {
    await using s = await startModelServer()
    const key = 'gate'
    const ask = () =>
      post(s.url, {
        model: 'm',
        tools,
        stream: false,
        messages: userSays(script({ key, steps: [{ text: 'one' }], holdAt: 0 }))
      })
    let answered = false
    const first = ask().then(r => ((answered = true), r))
    await expect.poll(() => s.open()).toBe(1)
    // Still held: a condition the test controls, so no time makes it answer.
    await expect.poll(() => s.requestsFor(key).length).toBe(1)
    expect(answered).toBe(false)
    s.release(key)
    expect((await first).status).toBe(200)
    expect((await ask()).status).toBe(200)
  })

  it('ends hanging requests on close', async () => {
    const s = await startModelServer()
    const pending = post(s.url, {
      model: 'm',
      tools,
      stream: true,
      messages: userSays(script({ steps: [], hang: true }))
    })
    // Recorded first, then played: wait until the server is hanging on it, not just holding it.
    await expect.poll(() => s.requests[0]?.outcome).toBe('hang')
    const started = Date.now()
    await s.close()
    await expect(pending).rejects.toThrow()
    // Well short of the CLI's request timeout: close ended it, it did not time out.
    expect(Date.now() - started).toBeLessThan(20_000)
    expect(s.requests[0]).toMatchObject({ outcome: 'hang', status: 0 })
  })
})
