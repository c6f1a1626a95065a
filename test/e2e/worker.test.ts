// The worker's cage and routing, proven through dist/ and the real claude CLI: what a worker's
// tools could see is read from the scripted server's record of what it sent back.
import { describe, expect, it } from 'vitest'
import { expectOk, useStack } from '../support/scenario.js'
import { type RecordedRequest, script } from '../../demo/model-server.js'
import { secrets } from '../../demo/leaks.js'
import { byId, GITHUB_TOKEN, MODEL_KEY, results } from '../../demo/stack.js'

/** A task whose worker runs each command with Bash, one turn each, then says it is done. */
const bashTask = (id: string, commands: string[], extra: object = {}) => ({
  id,
  prompt: `Inspect the cage.\n${script({ key: id, steps: [...commands.map(command => ({ tool: 'Bash', input: { command } })), { text: 'Looked around.' }] })}`,
  ...extra
})

/** The output of the k-th command: the tool result the CLI sent back in the next request. */
function outputOf(requests: RecordedRequest[], k: number): string {
  const answered = requests.filter(r => r.outcome === 'reply' && r.step === k + 1)
  const text = answered[0]?.toolResults.join('\n')
  if (text === undefined)
    throw new Error(
      `no tool result for command ${k}: ${JSON.stringify(requests.map(r => [r.step, r.outcome]))}`
    )
  return text
}

/** `env` output as a name -> value map (multi-line values keep only their first line). */
function envOf(output: string): Map<string, string> {
  const vars = new Map<string, string>()
  for (const line of output.split('\n')) {
    const m = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(line)
    if (m?.[1] !== undefined) vars.set(m[1], m[2] ?? '')
  }
  return vars
}

// What a real runner puts in the action's environment besides the inputs: none may reach a worker.
const RUNNER_SECRETS = {
  GITHUB_TOKEN,
  ACTIONS_RUNTIME_TOKEN: 'actions-runtime-token-e2e-0123456789',
  ACTIONS_ID_TOKEN_REQUEST_TOKEN: 'actions-id-token-request-e2e-0123456789',
  ACTIONS_ID_TOKEN_REQUEST_URL: 'http://127.0.0.1:9/oidc',
  ACTIONS_RESULTS_URL: 'http://127.0.0.1:9/results',
  DEPLOY_PASSWORD: 'deploy-password-e2e-0123456789'
}

describe('the worker cage', () => {
  const stack = useStack()

  it('hides the GitHub token, the checkout credential and runner variables from a worker', async () => {
    // The worker holds only a token of the action's model gateway, which puts the real key on
    // each request: printing its whole environment and config files shows no model key.
    const task = bashTask('cage', [
      'env',
      'cat .git/config 2>&1; cat .git; common=$(git rev-parse --path-format=absolute --git-common-dir); echo COMMON=$common; cat "$common/config"',
      'git config --list --show-origin 2>&1',
      'cat $GITHUB_WORKSPACE/.git/config 2>&1; ls -la ~; echo HOME=$HOME; echo CONFIG_DIR_FILES=$(ls -A "$CLAUDE_CONFIG_DIR"); cat "$CLAUDE_CONFIG_DIR/settings.json"; cat "$CLAUDE_CONFIG_DIR"/*.json "$CLAUDE_CONFIG_DIR"/.claude.json 2>&1 | head -c 8000',
      // The checkout itself, by its absolute path: counts, never prints, so the leak scan still
      // guards everything the worker sent.
      `test -r '${stack.workspace}/.git/config' && echo WORKSPACE-CONFIG-READABLE; grep -c extraheader '${stack.workspace}/.git/config'`
    ])
    const run = await stack.run({ inputs: { tasks: JSON.stringify([task]) }, env: RUNNER_SECRETS })
    expectOk(run)
    expect(byId(run).get('cage')?.status).toBe('no-changes')

    const requests = stack.model.requestsFor('cage')
    const outputs = [0, 1, 2, 3, 4].map(k => outputOf(requests, k))
    const seen = outputs.slice(0, 4).join('\n')
    for (const [name, secret] of Object.entries({ ...secrets(), ...RUNNER_SECRETS })) {
      expect(seen, `${name} visible to the worker`).not.toContain(secret)
    }
    expect(seen).not.toMatch(/extraheader/i)
    expect(seen).not.toMatch(/GITHUB_TOKEN|ACTIONS_|INPUT_/)
    expect(seen).not.toMatch(/basic [A-Za-z0-9+/=]{20,}/i)

    const env = envOf(outputs[0] ?? '')
    const leakedNames = [...env.keys()].filter(
      n => /^(GITHUB_|ACTIONS_|INPUT_|RUNNER_)/.test(n) || n in RUNNER_SECRETS
    )
    expect(leakedNames).toEqual([])
    expect(env.get('DISABLE_AUTOUPDATER')).toBe('1')
    expect(env.get('CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC')).toBe('1')
    expect(env.get('CLAUDE_CODE_MAX_RETRIES')).toMatch(/^\d+$/)
    // A per-worker gateway token, and the gateway on loopback, not the endpoint.
    expect(env.get('ANTHROPIC_AUTH_TOKEN')).toMatch(/^fleet-[A-Za-z0-9_-]{32}$/)
    expect(env.get('ANTHROPIC_BASE_URL')).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect(env.get('ANTHROPIC_BASE_URL')).not.toBe(stack.model.url)
    expect(seen).not.toContain(MODEL_KEY)
    // ... and the endpoint still got the real key on every request the task made.
    expect(requests.every(r => r.headers.authorization === `Bearer ${MODEL_KEY}`)).toBe(true)
    // IS_SANDBOX only as root (claude refuses bypassPermissions as root without it), and logged.
    const root = process.getuid?.() === 0
    expect(env.get('IS_SANDBOX')).toBe(root ? '1' : undefined)
    expect(run.stdout.includes('IS_SANDBOX=1')).toBe(root)
    const configDir = env.get('CLAUDE_CONFIG_DIR') ?? ''
    const home = env.get('HOME') ?? ''
    expect(configDir.startsWith(run.runnerTemp)).toBe(true)
    expect(configDir).toMatch(/\/workers\/cage\.1\/config$/)
    expect(home.startsWith(run.runnerTemp)).toBe(true)
    expect(home).not.toBe(process.env.HOME)

    if (stack.isolation === 'sandbox') {
      // Its .git points at its own clone in its cage: no remote, no credential, nothing shared.
      expect(outputs[1]).toMatch(/gitdir: .*\/workers\/cage\.1\/git\/\.git/)
      expect(outputs[1]).toMatch(/COMMON=.*\/workers\/cage\.1\/git\/\.git/)
      expect(outputs[1]).not.toMatch(/\[remote "origin"\]/)
      expect(outputs[2]).not.toMatch(/remote\.origin\.url=/)
    } else {
      // Its own .git is a worktree link into the fleet's own clone, whose config has no credential.
      expect(outputs[1]).toMatch(/gitdir: .*\/worktrees\/cage/)
      expect(outputs[1]).toContain(`COMMON=${run.runnerTemp}/fleet-worker/`)
      expect(outputs[1]).toMatch(/\[remote "origin"\]/)
      expect(outputs[2]).toMatch(/remote\.origin\.url=/)
    }
    expect(outputs[1]).toContain('cat: .git/config: Not a directory')
    // No workspace path to follow: GITHUB_WORKSPACE is not in its environment.
    expect(outputs[3]).toMatch(/cat: \/\.git\/config: No such file or directory/)
    expect(outputs[3]).toContain(`HOME=${home}`)
    // The per-worker config dir holds the settings the action seeded and what this CLI run wrote
    // itself (.claude.json, sessions, ...): no credentials and nothing of the host's ~/.claude.
    const files = /^CONFIG_DIR_FILES=(.*)$/m.exec(outputs[3] ?? '')?.[1]?.split(' ') ?? []
    expect(files).toContain('settings.json')
    expect(files).not.toContain('.credentials.json')
    expect(outputs[3]).toMatch(/"disableAllHooks": true/)
    expect(outputs[3]).toMatch(/"effortLevel": "high"/)
    // Without the CLI's git instructions: no start-up git status in its first message, no `gh`
    // and commit guidance in its Bash tool (the action commits and opens the PR).
    expect(outputs[3]).toMatch(/"includeGitInstructions": false/)
    const first = requests[0]?.body as {
      messages: unknown[]
      tools: { name: string; description?: string }[]
    }
    expect(JSON.stringify(first.messages[0])).toContain('Inspect the cage.')
    expect(JSON.stringify(first.messages[0])).not.toContain('# gitStatus')
    const bash = first.tools.find(t => t.name === 'Bash')?.description ?? ''
    expect(bash).toContain('Executes a bash command')
    expect(bash).not.toMatch(/^# Git$|`gh` CLI/m)

    if (stack.isolation === 'sandbox') {
      // The sandbox does not show the checkout at all, even to a worker that knows its path.
      expect(outputs[4]).not.toContain('WORKSPACE-CONFIG-READABLE')
      expect(outputs[4]).toMatch(/No such file or directory/)
    } else {
      // The limit of a process-mode cage: the worker runs as the runner's user, so a worker that
      // knows (or guesses) the checkout's absolute path can still read its .git/config.
      expect(outputs[4]).toContain('WORKSPACE-CONFIG-READABLE')
      expect(outputs[4]).toMatch(/^1$/m)
    }
  })
})

describe('routing to the model endpoint', () => {
  const stack = useStack()

  it('sends the key as a bearer token, maps model and small-model, and honours a task model', async () => {
    const tasks = [
      bashTask('route-main', ['env | grep ^ANTHROPIC_ | grep -v -e _TOKEN= -e _KEY=']),
      { ...bashTask('route-own', ['true']), model: 'glm-own' }
    ]
    const run = await stack.run({
      inputs: {
        tasks: JSON.stringify(tasks),
        'auth-header': 'bearer',
        model: 'glm-test',
        'small-model': 'glm-small'
      }
    })
    expectOk(run)
    expect(results(run).map(r => r.status)).toEqual(['no-changes', 'no-changes'])

    const main = stack.model.requestsFor('route-main')
    const own = stack.model.requestsFor('route-own')
    expect(main.length).toBeGreaterThanOrEqual(2)
    expect(own.length).toBeGreaterThanOrEqual(2)
    for (const r of [...main, ...own]) {
      expect(r.headers.authorization).toBe(`Bearer ${MODEL_KEY}`)
      expect(r.headers['x-api-key']).toBeUndefined()
    }
    expect(main.map(r => r.model)).toEqual(main.map(() => 'glm-test'))
    expect(own.map(r => r.model)).toEqual(own.map(() => 'glm-own'))
    expect(JSON.stringify(main[0]?.body)).toContain('"model":"glm-test"')

    const env = envOf(outputOf(main, 0))
    expect(env.get('ANTHROPIC_DEFAULT_HAIKU_MODEL')).toBe('glm-small')
    expect(env.get('ANTHROPIC_DEFAULT_OPUS_MODEL')).toBe('glm-test')
    expect(env.get('ANTHROPIC_DEFAULT_SONNET_MODEL')).toBe('glm-test')
    expect(byId(run).get('route-own')?.model).toBe('glm-own')
    expect(byId(run).get('route-main')?.model).toBe('glm-test')
  })

  it('sends the key as x-api-key when asked', async () => {
    const run = await stack.run({
      inputs: {
        tasks: JSON.stringify([bashTask('route-xkey', ['true'])]),
        'auth-header': 'x-api-key'
      }
    })
    expectOk(run)
    const requests = stack.model.requestsFor('route-xkey')
    expect(requests.length).toBeGreaterThanOrEqual(2)
    for (const r of requests) {
      expect(r.headers['x-api-key']).toBe(MODEL_KEY)
      expect(r.headers.authorization).toBeUndefined()
    }
  })
})
