import { describe, expect, it } from 'vitest'
import { inputError } from '../support/unit.js'
import { parseConfig, readConfig } from '../../src/config.js'
import {
  CURRENT_INPUTS,
  INPUTS,
  type InputSpec,
  MAPPING_INPUTS,
  inputEnvName,
  newForm
} from '../../src/inputs.js'

/** The environment the runner would give for these inputs. */
function env(inputs: Record<string, string> = {}): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(inputs).map(([k, v]) => [inputEnvName(k), v]))
}

const specs = INPUTS as Record<string, InputSpec>
const deprecated = Object.entries(specs).flatMap(([name, spec]) =>
  spec.deprecated ? [{ name, ...spec.deprecated }] : []
)

describe('the input count', () => {
  it('is at most 55 without the deprecated names, and each deprecated name has a current home', () => {
    expect(CURRENT_INPUTS.length).toBeLessThanOrEqual(55)
    expect(CURRENT_INPUTS.length + deprecated.length).toBe(Object.keys(INPUTS).length)
    for (const d of deprecated) expect(CURRENT_INPUTS, d.name).toContain(d.input)
    // Every mapping holds at least two settings, so folding made the list shorter.
    for (const m of MAPPING_INPUTS)
      expect(deprecated.filter(d => d.input === m).length, m).toBeGreaterThanOrEqual(2)
  })
})

describe('container', () => {
  it('sets each container setting from its key, the rest at their defaults', () => {
    const c = parseConfig(
      env({ isolation: 'container', container: 'runtime: podman\nmemory: 8g\ncpus: 1.5' })
    ).container
    expect(c).toEqual({
      runtime: 'podman',
      image: INPUTS['container-image'].default,
      cpus: '1.5',
      memory: '8g',
      pidsLimit: 1024,
      network: 'bridge'
    })
  })

  it('takes the flow form a workflow writes on one line', () => {
    const c = parseConfig(env({ container: '{pids-limit: 64, network: none}' })).container
    expect(c).toMatchObject({ pidsLimit: 64, network: 'none' })
    const egress = parseConfig(env({ container: '{network: allowed-domains}' })).container
    expect(egress.network).toBe('allowed-domains')
  })

  it('names the mapping and its key when a value is wrong', () => {
    const e = inputError({ container: '{pids-limit: 0}' })
    expect(e.input).toBe('container')
    expect(e.message).toMatch(/^Input 'container': pids-limit: expected a whole number 1 to/)
    const runtime = inputError({ container: '{runtime: lxc}' })
    expect(runtime.message).toContain("runtime: expected one of docker, podman, got 'lxc'")
    const host = inputError({ isolation: 'container', container: '{network: host}' })
    expect(host.input).toBe('container')
    expect(host.message).toContain('network:')
  })

  it('refuses an unknown key, a non-mapping and bad YAML, listing the keys it takes', () => {
    for (const text of ['{cpu: 2}', '[image, cpus]', 'image: [', 'just a string']) {
      const e = inputError({ container: text })
      expect(e.input, text).toBe('container')
      expect(e.message, text).toContain('image, runtime, cpus, memory, pids-limit, network')
    }
    expect(inputError({ container: '{cpu: 2}' }).message).toContain("unknown key 'cpu'")
    expect(inputError({ container: '{memory: {soft: 2g}}' }).message).toContain(
      "'memory' is not a plain value"
    )
  })
})

describe('budgets', () => {
  it('sets every budget and spend cap from its key', () => {
    const c = parseConfig(
      env({
        prices: 'default: {input: 3, output: 15}',
        budgets:
          'task-tokens: 100000\nrun-tokens: 900000\ntask-cost-usd: 0.50\nrun-cost-usd: 5\ndaily-cost-usd: 20\nmonthly-cost-usd: 300\nuser-daily-cost-usd: 4'
      })
    )
    expect(c.budgets).toEqual({
      taskTokens: 100000,
      runTokens: 900000,
      taskCostUsd: 0.5,
      runCostUsd: 5
    })
    expect(c.spend.caps).toEqual({ daily: 20, monthly: 300, userDaily: 4 })
    expect(c.spend.ledger).toBe('fleet-ledger')
  })

  it('leaves a key with no value as no budget', () => {
    const c = parseConfig(env({ budgets: 'task-tokens:\nrun-tokens: 10' }))
    expect(c.budgets).toMatchObject({ taskTokens: undefined, runTokens: 10 })
  })

  it('names budgets and the key when a budget is wrong or unpriced', () => {
    const bad = inputError({ budgets: '{task-tokens: 1.5}' })
    expect(bad.input).toBe('budgets')
    expect(bad.message).toContain('task-tokens: expected a whole number of tokens above 0')
    const unpriced = inputError({ budgets: '{daily-cost-usd: 10}' })
    expect(unpriced.input).toBe('budgets')
    expect(unpriced.message).toContain('daily-cost-usd: a cost budget needs your prices')
  })
})

describe('prices: default', () => {
  it('prices every model not listed with the default entry, cache prices included', () => {
    const c = parseConfig(
      env({
        prices:
          'glm-4.6: {input: 0.6, output: 2.2}\ndefault: {input: 3, output: 15, cache-read: 0.3}'
      })
    )
    expect(c.prices).toEqual({
      models: { 'glm-4.6': { input: 0.6, output: 2.2 } },
      fallback: { input: 3, output: 15, cacheRead: 0.3 }
    })
    expect(c.price).toEqual({ input: 3, output: 15, cacheRead: 0.3 })
  })

  it('still reads price-input and price-output, with a warning for each', () => {
    const { config, deprecations } = readConfig(env({ 'price-input': '1', 'price-output': '2' }))
    expect(config.prices?.fallback).toEqual({ input: 1, output: 2 })
    expect(deprecations).toHaveLength(2)
    expect(deprecations[0]).toContain("Input 'price-input' is deprecated")
    expect(deprecations[0]).toContain('prices: {default: {input: …, output: …}}')
  })

  it('refuses price-input beside a default entry, naming both', () => {
    const e = inputError({
      'price-input': '1',
      'price-output': '2',
      prices: 'default: {input: 3, output: 15}'
    })
    expect(e.input).toBe('prices')
    expect(e.message).toContain("'price-input'")
    expect(e.message).toContain('prices: default')
  })
})

describe('the other mappings', () => {
  it('retries, gateway, pull-request, follow-ups and timeouts set their settings', () => {
    const c = parseConfig(
      env({
        retries: '{max-attempts: 5, delay-seconds: 2.5}',
        gateway:
          '{concurrency: 4, requests-per-worker: 2, allowed-betas: [context-1m-2025-08-07, a-b], record-bodies: true}',
        'pull-request': 'labels: [fleet, bot]\nreviewers: alice, bob\nassignees: [carol]',
        'follow-ups': '{address-reviews: true, fix-failing-checks: true, max-fix-ups: 0}',
        timeouts: '{setup: 5, verify: 0.5, deadline: 120}'
      })
    )
    expect(c).toMatchObject({
      maxAttempts: 5,
      retryDelayMs: 2500,
      modelConcurrency: 4,
      maxRequestsPerWorker: 2,
      allowedBetas: ['context-1m-2025-08-07', 'a-b'],
      recordBodies: true,
      labels: ['fleet', 'bot'],
      reviewers: ['alice', 'bob'],
      assignees: ['carol'],
      addressReviews: true,
      fixFailingChecks: true,
      maxFixUps: 0,
      setupTimeoutMs: 5 * 60_000,
      verifyTimeoutMs: 30_000,
      deadlineMs: 120 * 60_000
    })
  })

  it('keeps the defaults when a mapping is empty', () => {
    const blank = Object.fromEntries(MAPPING_INPUTS.map(m => [m, '']))
    expect(parseConfig(env(blank))).toEqual(parseConfig({}))
  })

  it('names the mapping and key of a wrong value', () => {
    const cases: [string, string, string][] = [
      ['retries', '{max-attempts: 11}', 'max-attempts: expected a whole number 1 to 10'],
      ['gateway', '{concurrency: many}', 'concurrency: expected auto or a whole number'],
      ['gateway', '{record-bodies: yes}', "record-bodies: expected true or false, got 'yes'"],
      ['follow-ups', '{max-fix-ups: -1}', 'max-fix-ups: expected a whole number 0 to 20'],
      ['timeouts', '{deadline: 0}', 'deadline: expected a number 0.01 to 10000'],
      ['pull-request', '{draft: true}', "unknown key 'draft'"]
    ]
    for (const [input, text, message] of cases) {
      const e = inputError({ [input]: text })
      expect(e.input, text).toBe(input)
      expect(e.message, text).toContain(message)
    }
  })
})

describe('deprecated names', () => {
  it('each still sets its setting, with one warning naming the old input and the new form', () => {
    const c = readConfig(env({ 'container-cpus': '3', 'max-task-tokens': '500', labels: 'x,y' }))
    expect(c.config.container.cpus).toBe('3')
    expect(c.config.budgets.taskTokens).toBe(500)
    expect(c.config.labels).toEqual(['x', 'y'])
    expect(c.deprecations).toEqual([
      'Input \'labels\' is deprecated and read only until the next minor release: use pull-request: {labels: "x,y"} instead.',
      "Input 'container-cpus' is deprecated and read only until the next minor release: use container: {cpus: 3} instead.",
      "Input 'max-task-tokens' is deprecated and read only until the next minor release: use budgets: {task-tokens: 500} instead."
    ])
  })

  it('warns for none when only the current inputs are given', () => {
    expect(
      readConfig(env({ container: '{cpus: 3}', budgets: '{task-tokens: 5}' })).deprecations
    ).toEqual([])
  })

  it('every deprecated name is read, and refused beside its mapping key, naming both', () => {
    for (const d of deprecated.filter(d => d.input !== 'prices')) {
      const priced = { prices: 'default: {input: 1, output: 1}' }
      const alone = readConfig(env({ ...priced, [d.name]: valueFor(d.name) }))
      expect(alone.deprecations, d.name).toHaveLength(1)
      expect(alone.deprecations[0], d.name).toContain(`'${d.name}'`)
      expect(alone.deprecations[0], d.name).toContain(`${d.input}: {${d.key}: `)
      const both = inputError({
        ...priced,
        [d.name]: valueFor(d.name),
        [d.input]: `${d.key}: ${valueFor(d.name)}`
      })
      expect(both.input, d.name).toBe(d.input)
      expect(both.message, d.name).toContain(`'${d.name}' and '${d.input}: ${d.key}'`)
    }
  })

  it('an error about a value given by the old name names the old name', () => {
    const e = inputError({ 'container-pids-limit': '0' })
    expect(e.input).toBe('container-pids-limit')
  })

  it('newForm shows the value, quoted when YAML would need it', () => {
    expect(newForm('container-memory', '8g')).toBe('container: {memory: 8g}')
    expect(newForm('labels', 'a, b')).toBe('pull-request: {labels: "a, b"}')
    expect(newForm('model')).toBe('model')
  })
})

/** A valid value for each deprecated setting. */
function valueFor(name: string): string {
  const values: Record<string, string> = {
    'container-image': 'img:1',
    'container-runtime': 'podman',
    'container-cpus': '1',
    'container-memory': '1g',
    'container-pids-limit': '10',
    'container-network': 'none',
    'model-concurrency': '3',
    'record-bodies': 'true',
    'address-reviews': 'true',
    'fix-failing-checks': 'true',
    'allowed-betas': 'a-b',
    labels: 'a',
    reviewers: 'a',
    assignees: 'a'
  }
  return values[name] ?? '2'
}
