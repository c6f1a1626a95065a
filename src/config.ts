import { z } from 'zod'
import { INPUTS, type InputName, type InputSpec, readInputs, type ReadInputs } from './inputs.js'
import { EFFORTS } from './domain.js'
import { InputError } from './errors.js'
import type { Price, PriceBook } from './prices.js'
import { parsePrices } from './prices.js'
import { validateBranchPrefix } from './tasks/ids.js'
import { ContainerSpecError, containerCommand } from './cage/container.js'
import type { ContainerConfig, ContainerSetting } from './cage/container.js'
import { parseAllowList } from './cage/sandbox-allow.js'
import { readsContainerInputs } from './cage/isolation.js'

// The rooms above config import these from here; rooms below it import errors.ts and domain.ts.
export { EFFORTS, InputError }

const list = (value: string): string[] =>
  value
    .split(/[\n,]/)
    .map(s => s.trim())
    .filter(Boolean)

const bool = (name: InputName) =>
  z.string().transform((v, ctx) => {
    if (/^(true|false)$/i.test(v)) return v.toLowerCase() === 'true'
    ctx.addIssue({ code: 'custom', message: `expected true or false, got '${v}'`, path: [name] })
    return z.NEVER
  })

const number = (name: InputName, opts: { int?: boolean; min: number; max?: number }) =>
  z.string().transform((v, ctx) => {
    // Plain decimals only: Number() would also take '0x10', '1e1' and '0b11'.
    const form = opts.int ? /^\d+$/ : /^(\d+(\.\d*)?|\.\d+)$/
    const n = Number(v)
    const ok = form.test(v) && Number.isFinite(n)
    if (ok && n >= opts.min && (opts.max === undefined || n <= opts.max)) return n
    const range = opts.max === undefined ? `at least ${opts.min}` : `${opts.min} to ${opts.max}`
    ctx.addIssue({
      code: 'custom',
      path: [name],
      message: `expected ${opts.int ? 'a whole number' : 'a number'} ${range}, got '${v}'`
    })
    return z.NEVER
  })

const oneOf = <T extends string>(name: InputName, values: readonly T[]) =>
  z.string().transform((v, ctx) => {
    if ((values as readonly string[]).includes(v)) return v as T
    ctx.addIssue({
      code: 'custom',
      path: [name],
      message: `expected one of ${values.join(', ')}, got '${v}'`
    })
    return z.NEVER
  })

const author = z.string().transform((v, ctx) => {
  const m = /^(.+?)\s*<([^<>\s]+)>$/.exec(v)
  if (m?.[1] && m[2]) return { name: m[1], email: m[2] }
  ctx.addIssue({
    code: 'custom',
    path: ['commit-author'],
    message: `expected 'Name <email>', got '${v}'`
  })
  return z.NEVER
})

const url = (name: InputName) =>
  z.string().transform((v, ctx) => {
    if (v === '') return undefined
    if (URL.canParse(v) && /^https?:$/.test(new URL(v).protocol)) return v.replace(/\/+$/, '')
    ctx.addIssue({ code: 'custom', path: [name], message: `expected an http(s) URL, got '${v}'` })
    return z.NEVER
  })

/** An optional budget: empty = none, else a positive number. */
const budget = (name: InputName, int: boolean) =>
  z.string().transform((v, ctx) => {
    if (v === '') return undefined
    const form = int ? /^\d+$/ : /^(\d+(\.\d*)?|\.\d+)$/
    if (form.test(v) && Number(v) > 0) return Number(v)
    ctx.addIssue({
      code: 'custom',
      path: [name],
      message: `expected ${int ? 'a whole number of tokens' : 'an amount in USD'} above 0, or empty for none, got '${v}'`
    })
    return z.NEVER
  })

const optional = z.string().transform(v => (v === '' ? undefined : v))

export const PERMISSION_MODES = [
  'bypassPermissions',
  'acceptEdits',
  'dontAsk',
  'default',
  'plan'
] as const

const schema = z.object({
  tasks: z.string(),
  'tasks-file': optional,
  'api-key': optional,
  'base-url': url('base-url'),
  'auth-header': oneOf('auth-header', ['auto', 'bearer', 'x-api-key'] as const),
  model: optional,
  'small-model': optional,
  'max-parallel': z.string().transform((v, ctx) => {
    if (v === 'auto') return 'auto' as const
    if (/^\d+$/.test(v) && Number(v) >= 1 && Number(v) <= 64) return Number(v)
    ctx.addIssue({
      code: 'custom',
      path: ['max-parallel'],
      message: `expected a whole number 1 to 64, or auto (as many as the machine carries), got '${v}'`
    })
    return z.NEVER
  }),
  'max-turns': number('max-turns', { int: true, min: 1, max: 1000 }),
  'timeout-minutes': number('timeout-minutes', { min: 0.01, max: 360 }),
  'permission-mode': oneOf('permission-mode', PERMISSION_MODES),
  'allowed-tools': z.string().transform(list),
  'disallowed-tools': z.string().transform(list),
  tools: z.string().transform(v => (v === 'default' ? undefined : list(v))),
  setup: optional,
  'setup-timeout-minutes': number('setup-timeout-minutes', { min: 0.01, max: 360 }),
  verify: optional,
  'verify-timeout-minutes': number('verify-timeout-minutes', { min: 0.01, max: 360 }),
  'verify-fix-up': bool('verify-fix-up'),
  'base-branch': optional,
  'branch-prefix': z.string().transform((v, ctx) => {
    const problem = validateBranchPrefix(v)
    if (!problem) return v
    ctx.addIssue({ code: 'custom', path: ['branch-prefix'], message: problem })
    return z.NEVER
  }),
  draft: bool('draft'),
  labels: z.string().transform(list),
  reviewers: z.string().transform(list),
  assignees: z.string().transform(list),
  'github-token': optional,
  'commit-author': author,
  'trigger-phrase': z.string().min(1),
  'queue-label': z.string().min(1),
  'max-tasks': number('max-tasks', { int: true, min: 1, max: 1000 }),
  'allowed-bots': z.string().transform(list),
  'address-reviews': bool('address-reviews'),
  'fix-failing-checks': bool('fix-failing-checks'),
  'max-fix-ups': number('max-fix-ups', { int: true, min: 0, max: 20 }),
  'claude-path': optional,
  effort: oneOf('effort', EFFORTS),
  skills: z.string().transform(list),
  'append-system-prompt': optional,
  'claude-args': z.string().transform(v => v.split(/\s+/).filter(Boolean)),
  isolation: oneOf('isolation', ['sandbox', 'container', 'process'] as const),
  'allowed-domains': z.string().transform((v, ctx) => {
    const rules = parseAllowList(list(v))
    if (typeof rules !== 'string') return rules
    ctx.addIssue({ code: 'custom', path: ['allowed-domains'], message: rules })
    return z.NEVER
  }),
  'container-image': z.string(),
  'container-runtime': oneOf('container-runtime', ['docker', 'podman'] as const),
  'container-cpus': z.string(),
  'container-memory': z.string(),
  'container-pids-limit': number('container-pids-limit', { int: true, min: 1, max: 4_194_304 }),
  'container-network': z.string(),
  'max-attempts': number('max-attempts', { int: true, min: 1, max: 10 }),
  'retry-delay-seconds': number('retry-delay-seconds', { min: 0, max: 600 }),
  'deadline-minutes': number('deadline-minutes', { min: 0.01, max: 10_000 }),
  mode: oneOf('mode', ['all', 'plan', 'run', 'report', 'land', 'merge'] as const),
  'merge-method': z.string().transform((v, ctx) => {
    if (v === '') return undefined
    const method = (['merge', 'squash', 'rebase'] as const).find(m => m === v)
    if (method) return method
    ctx.addIssue({
      code: 'custom',
      path: ['merge-method'],
      message: `expected merge, squash or rebase (or empty for what the repository allows, squash first), got '${v}'`
    })
    return z.NEVER
  }),
  'mark-ready': bool('mark-ready'),
  land: bool('land'),
  shard: number('shard', { int: true, min: 0, max: 255 }),
  'max-jobs': number('max-jobs', { int: true, min: 1, max: 256 }),
  plan: optional,
  'outcomes-dir': optional,
  'price-input': z.string().transform(v => v),
  'price-output': z.string().transform(v => v),
  goal: optional,
  'run-plan': bool('run-plan'),
  'update-prs': bool('update-prs'),
  'dry-run': bool('dry-run'),
  'model-concurrency': z.string().transform((v, ctx) => {
    if (v === 'auto') return 'auto' as const
    if (/^\d+$/.test(v) && Number(v) >= 1 && Number(v) <= 1000) return Number(v)
    ctx.addIssue({
      code: 'custom',
      path: ['model-concurrency'],
      message: `expected auto or a whole number 1 to 1000, got '${v}'`
    })
    return z.NEVER
  }),
  'max-requests-per-worker': number('max-requests-per-worker', { int: true, min: 1, max: 1000 }),
  'max-task-tokens': budget('max-task-tokens', true),
  'max-run-tokens': budget('max-run-tokens', true),
  'max-task-cost-usd': budget('max-task-cost-usd', false),
  'max-run-cost-usd': budget('max-run-cost-usd', false),
  'max-daily-cost-usd': budget('max-daily-cost-usd', false),
  'max-monthly-cost-usd': budget('max-monthly-cost-usd', false),
  'max-user-daily-cost-usd': budget('max-user-daily-cost-usd', false),
  'spend-ledger': optional,
  'report-days': z.string().transform((v, ctx) => {
    if (v === '') return undefined
    if (/^\d+$/.test(v) && Number(v) >= 1 && Number(v) <= 366) return Number(v)
    ctx.addIssue({
      code: 'custom',
      path: ['report-days'],
      message: `expected a whole number of days 1 to 366, or empty to merge shards, got '${v}'`
    })
    return z.NEVER
  }),
  prices: z.string().transform((v, ctx) => {
    const prices = parsePrices(v)
    if (typeof prices !== 'string') return prices
    ctx.addIssue({ code: 'custom', path: ['prices'], message: prices })
    return z.NEVER
  }),
  'allowed-betas': z.string().transform((v, ctx) => {
    const betas = list(v)
    const bad = betas.find(b => !/^[a-z0-9][a-z0-9-]*$/i.test(b))
    if (bad === undefined) return betas
    ctx.addIssue({
      code: 'custom',
      path: ['allowed-betas'],
      message: `'${bad}' is not a beta name: expected e.g. context-management-2025-06-27`
    })
    return z.NEVER
  }),
  'record-bodies': bool('record-bodies'),
  // The mappings, already spread onto their keys by readInputs (src/inputs.ts).
  container: z.string(),
  budgets: z.string(),
  retries: z.string(),
  gateway: z.string(),
  'pull-request': z.string(),
  'follow-ups': z.string(),
  timeouts: z.string()
} satisfies Record<InputName, z.ZodType>)

type Parsed = z.infer<typeof schema>

/** Flags the action sets itself: letting claude-args override them would break the gate or the cage. */
const RESERVED_FLAGS = [
  '-p',
  '--print',
  '--output-format',
  '--verbose',
  '--settings',
  '--no-session-persistence',
  '--dangerously-skip-permissions',
  '--permission-mode',
  '--max-turns',
  '--tools',
  '--allowed-tools',
  '--allowedTools',
  '--disallowed-tools',
  '--disallowedTools',
  '--model',
  '--json-schema'
]

const CONTAINER_INPUTS: Record<ContainerSetting, string> = {
  image: 'container-image',
  cpus: 'container-cpus',
  memory: 'container-memory',
  'pids-limit': 'container-pids-limit',
  network: 'container-network'
}

/** Container settings checked by the same rules the worker's command is built with, up front. */
function checkContainer(c: ContainerConfig): ContainerConfig {
  try {
    containerCommand({
      ...c,
      name: 'fleet-check',
      worktree: '/w',
      configDir: '/c',
      env: {},
      claudeArgs: []
    })
  } catch (error) {
    if (!(error instanceof ContainerSpecError)) throw error
    const input = error.setting ? CONTAINER_INPUTS[error.setting] : 'isolation'
    throw new InputError(input, error.message)
  }
  return c
}

/** The deprecated price-input / price-output pair: both or neither. */
function parsePrice(input: string, output: string): Price | undefined {
  if (input === '' && output === '') return undefined
  const value = (name: string, v: string) => {
    if (/^(\d+(\.\d*)?|\.\d+)$/.test(v)) return Number(v)
    throw new InputError(
      name,
      `expected USD per million tokens such as 0.6, got '${v}' (set both price-input and price-output, or better prices: {default: {input: 0.6, output: 2.2}})`
    )
  }
  return { input: value('price-input', input), output: value('price-output', output) }
}

/** `goal` makes the tasks: it cannot be given with a task list, and run-plan means nothing without it. */
function checkGoal(p: Parsed): { goal?: string } {
  if (p.goal && (p.tasks.trim() !== '' || p['tasks-file'])) {
    throw new InputError(
      'goal',
      "give either 'goal' (the planner makes the tasks) or 'tasks'/'tasks-file', not both"
    )
  }
  if (p['run-plan'] && !p.goal)
    throw new InputError('run-plan', "run-plan: true runs the planner's tasks, so it needs 'goal'")
  if (p.goal && p.mode === 'run' && !p.plan) {
    throw new InputError(
      'plan',
      "with 'goal', mode: run needs the plan job's 'plan' output: planning again in every shard could give different tasks"
    )
  }
  return p.goal ? { goal: p.goal } : {}
}

/** land: false hands work to a mode: land job: only the modes that run workers have work to hand. */
function checkLand(p: Parsed): boolean {
  if (!p.land && p.mode !== 'all' && p.mode !== 'run')
    throw new InputError(
      'land',
      `land: false applies to mode: all and mode: run (the jobs that run workers), not mode: ${p.mode}`
    )
  return p.land
}

/** `update-prs` runs no task: a task list beside it would be silently ignored, so it is refused. */
function checkUpdatePrs(p: Parsed): boolean {
  if (p['update-prs'] && (p.tasks.trim() !== '' || p['tasks-file'] || p.goal))
    throw new InputError(
      'update-prs',
      "update-prs: true brings the open fleet PRs up to date and runs no task: give it without 'tasks', 'tasks-file' or 'goal' (a separate step or workflow)"
    )
  return p['update-prs']
}

/**
 * The Config every room reads: the inputs through the schema, the rules across them (a broken one
 * throws its InputError), then the options in the rooms' words. Its type is what this gives.
 */
const configSchema = schema.transform(p => {
  const prices = checkAcross(p)
  return { ...workerOptions(p), ...runOptions(p, prices) }
})

export type Config = z.infer<typeof configSchema>

/** The inputs to a Config; the first problem names its input. */
export function parseConfig(env: NodeJS.ProcessEnv): Config {
  return readConfig(env).config
}

/**
 * The inputs to a Config, and one warning per deprecated name given. The first problem names its
 * input as the workflow wrote it: a mapping's key as `container: cpus`, an old name as itself.
 */
export function readConfig(env: NodeJS.ProcessEnv): { config: Config; deprecations: string[] } {
  const read = readInputs(env)
  let result: ReturnType<typeof configSchema.safeParse>
  try {
    result = configSchema.safeParse(read.values)
  } catch (error) {
    throw error instanceof InputError ? asWritten(error, read) : error
  }
  if (!result.success) {
    const issue = result.error.issues[0]
    const input = String(issue?.path[0] ?? 'inputs')
    const error = new InputError(input, issue?.message ?? 'invalid', { cause: result.error })
    throw asWritten(error, read)
  }
  return { config: result.data, deprecations: read.deprecations }
}

/** An error about a setting a mapping holds, named as the mapping's key unless the old name was given. */
function asWritten(error: InputError, read: ReadInputs): InputError {
  const name = error.input as InputName
  const to = (INPUTS[name] as InputSpec | undefined)?.deprecated
  // price-input and price-output are read only as the deprecated pair: an error is about them.
  if (!to || to.input === 'prices' || read.oldGiven.includes(name)) return error
  const message = error.message.replace(/^Input '[^']*': /, '')
  return new InputError(to.input, `${to.key}: ${message}`, { cause: error.cause ?? error })
}

/** Rules across inputs the schema cannot state alone; returns the prices, when given. */
function checkAcross(p: Parsed): { price?: Price; prices?: PriceBook } {
  if (p['permission-mode'] === 'dontAsk' && p['allowed-tools'].length === 0) {
    throw new InputError(
      'permission-mode',
      "dontAsk denies every tool not listed, so it needs 'allowed-tools' (e.g. 'Edit,Write,Bash(npm test)'); or use bypassPermissions"
    )
  }
  const reserved = p['claude-args'].find(a => RESERVED_FLAGS.includes(a.split('=')[0] ?? a))
  if (reserved) {
    throw new InputError(
      'claude-args',
      `'${reserved}' is set by the action itself (use the input of the same name) and cannot be overridden here`
    )
  }
  const { default: fallback, ...models } = p.prices
  const price = fallback ?? parsePrice(p['price-input'], p['price-output'])
  const priced = price !== undefined || Object.keys(models).length > 0
  for (const name of [
    'max-task-cost-usd',
    'max-run-cost-usd',
    'max-daily-cost-usd',
    'max-monthly-cost-usd',
    'max-user-daily-cost-usd'
  ] as const) {
    if (p[name] !== undefined && !priced)
      throw new InputError(
        name,
        "a cost budget needs your prices: set prices (USD per million tokens per model, e.g. 'default: {input: 3, output: 15}' for every model)"
      )
  }
  return priced ? { price, prices: { models, fallback: price } } : {}
}

/** What a worker is and may do: the tasks, the model, tools, verify, PRs, isolation. */
function workerOptions(p: Parsed) {
  return {
    tasks: p.tasks,
    tasksFile: p['tasks-file'],
    apiKey: p['api-key'],
    baseUrl: p['base-url'],
    authHeader: p['auth-header'],
    model: p.model,
    smallModel: p['small-model'],
    /** `auto`: the scheduler decides (src/fleet/scheduler.ts); a number: a fixed pool. */
    maxParallel: p['max-parallel'],
    maxTurns: p['max-turns'],
    timeoutMs: Math.round(p['timeout-minutes'] * 60_000),
    permissionMode: p['permission-mode'],
    allowedTools: p['allowed-tools'],
    disallowedTools: p['disallowed-tools'],
    tools: p.tools,
    setup: p.setup,
    setupTimeoutMs: Math.round(p['setup-timeout-minutes'] * 60_000),
    verify: p.verify,
    verifyTimeoutMs: Math.round(p['verify-timeout-minutes'] * 60_000),
    verifyFixUp: p['verify-fix-up'],
    baseBranch: p['base-branch'],
    branchPrefix: p['branch-prefix'],
    draft: p.draft,
    labels: p.labels,
    reviewers: p.reviewers,
    assignees: p.assignees,
    githubToken: p['github-token'],
    commitAuthor: p['commit-author'],
    triggerPhrase: p['trigger-phrase'],
    queueLabel: p['queue-label'],
    maxTasks: p['max-tasks'],
    allowedBots: p['allowed-bots'],
    addressReviews: p['address-reviews'],
    fixFailingChecks: p['fix-failing-checks'],
    maxFixUps: p['max-fix-ups'],
    claudePath: p['claude-path'],
    effort: p.effort,
    skills: p.skills,
    appendSystemPrompt: p['append-system-prompt'],
    claudeArgs: p['claude-args'],
    isolation: p.isolation,
    /** isolation: sandbox — hosts a worker may reach besides the model endpoint. */
    allowedDomains: p['allowed-domains'],
    container: (readsContainerInputs(p.isolation) ? checkContainer : (c: ContainerConfig) => c)({
      runtime: p['container-runtime'],
      image: p['container-image'],
      cpus: p['container-cpus'],
      memory: p['container-memory'],
      pidsLimit: p['container-pids-limit'],
      network: p['container-network']
    })
  }
}

/** How the run goes: retries, the deadline, modes and shards, prices and budgets. */
function runOptions(p: Parsed, priced: { price?: Price; prices?: PriceBook }) {
  return {
    maxAttempts: p['max-attempts'],
    retryDelayMs: Math.round(p['retry-delay-seconds'] * 1000),
    deadlineMs: Math.round(p['deadline-minutes'] * 60_000),
    mode: p.mode,
    /** false: the work is sealed and handed to a mode: land job instead of pushed (modes/land.ts). */
    land: checkLand(p),
    shard: p.shard,
    maxJobs: p['max-jobs'],
    plan: p.plan,
    outcomesDir: p['outcomes-dir'],
    price: priced.price,
    /** Prices by model, the 'default' entry for the rest; undefined when none is given. */
    prices: priced.prices,
    /** anthropic-beta values the gateway passes besides the pinned CLI's own. */
    allowedBetas: p['allowed-betas'],
    dryRun: p['dry-run'],
    /** A request for the planner (src/planner/). */
    ...checkGoal(p),
    runPlan: p['run-plan'],
    /** The landing train's merge method; undefined = the repository's, squash first (src/train.ts). */
    mergeMethod: p['merge-method'],
    /** The landing train marks a draft fleet PR ready once verify passed on its head. */
    markReady: p['mark-ready'],
    /** Bring the open fleet PRs up to date on dispatch/schedule (src/refreshing.ts). */
    updatePrs: checkUpdatePrs(p),
    /** Upstream requests in flight, fleet-wide (the model gateway's limiter). */
    modelConcurrency: p['model-concurrency'],
    /** Requests in flight upstream per worker process; more wait for that worker's own slot. */
    maxRequestsPerWorker: p['max-requests-per-worker'],
    budgets: {
      taskTokens: p['max-task-tokens'],
      runTokens: p['max-run-tokens'],
      taskCostUsd: p['max-task-cost-usd'],
      runCostUsd: p['max-run-cost-usd']
    },
    recordBodies: p['record-bodies'],
    /** Spend held over every run: the caps, the ledger, the report (src/spend/). */
    spend: spendOptions(p)
  }
}

/** The spend caps, the ledger's branch (undefined: none is kept) and the report's window. */
function spendOptions(p: Parsed) {
  const caps = {
    daily: p['max-daily-cost-usd'],
    monthly: p['max-monthly-cost-usd'],
    userDaily: p['max-user-daily-cost-usd']
  }
  const branch = p['spend-ledger'] ?? 'fleet-ledger'
  const problem = ledgerBranchProblem(branch, p['branch-prefix'], p['base-branch'])
  if (problem) throw new InputError('spend-ledger', problem)
  if (p['report-days'] !== undefined && (p.mode !== 'report' || p.plan || p['outcomes-dir']))
    throw new InputError(
      'report-days',
      'the spend report is mode: report on its own: give report-days with mode: report, without plan or outcomes-dir (those merge shards)'
    )
  const kept = p['spend-ledger'] !== undefined || Object.values(caps).some(c => c !== undefined)
  return {
    caps,
    ledger: kept ? branch : undefined,
    ledgerBranch: branch,
    reportDays: p['report-days']
  }
}

/** Why a branch cannot hold the ledger: a bad name, the base, or one of the fleet's own branches. */
function ledgerBranchProblem(branch: string, prefix: string, base: string | undefined) {
  const valid =
    /^[A-Za-z0-9][A-Za-z0-9._-]*(\/[A-Za-z0-9][A-Za-z0-9._-]*)*$/.test(branch) &&
    !branch.includes('..') &&
    !branch.endsWith('.lock')
  if (!valid) return `expected a branch name such as fleet-ledger, got '${branch}'`
  if (branch.startsWith(prefix))
    return `'${branch}' is inside branch-prefix '${prefix}', where the fleet's work branches live: use a branch of its own, such as fleet-ledger`
  if (base !== undefined && branch === base)
    return `'${branch}' is the base branch: the ledger needs a branch nobody merges, such as fleet-ledger`
  return undefined
}
