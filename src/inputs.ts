import { parse } from 'yaml'
import { InputError } from './errors.js'

/**
 * The action's inputs: one table that action.yml, the README and the config schema are checked
 * against (test/unit/metadata.test.ts). docs/contract.md fixes the names marked `contract`.
 */
export interface InputSpec {
  description: string
  default?: string
  required?: boolean
  contract?: boolean
  /**
   * An input folded into a YAML mapping: read until the next minor release with a deprecation
   * warning, an error when the mapping sets the same key. action.yml declares it with a
   * deprecationMessage and no default (the mapping's key holds it), so the runner passes it only
   * when a workflow gives it.
   */
  deprecated?: { input: string; key: string }
}

/** This release's worker image (the release workflow checks it names the tagged version). */
const WORKER_IMAGE = 'ghcr.io/fleet-worker/fleet-worker-worker:0.1.0'

export const INPUTS = {
  tasks: {
    contract: true,
    description:
      'Tasks given directly: one prompt per non-empty line, or a YAML/JSON list whose items are a string or {id?, prompt, title?, model?, max-turns?, verify?, effort?}.'
  },
  'tasks-file': {
    contract: true,
    description: 'Path, inside the workspace, of a YAML file holding such a list.'
  },
  'api-key': {
    contract: true,
    description:
      "The model endpoint's key, from a repository secret. Masked at once, never logged, never on a command line. Required unless ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN is already in the environment."
  },
  'base-url': {
    contract: true,
    description:
      "Anthropic-compatible endpoint (e.g. https://api.z.ai/api/anthropic). Empty = Anthropic's."
  },
  'auth-header': {
    contract: true,
    default: 'auto',
    description:
      "How the key is sent: bearer (ANTHROPIC_AUTH_TOKEN), x-api-key (ANTHROPIC_API_KEY), or auto (x-api-key for Anthropic's own endpoint, bearer otherwise)."
  },
  model: {
    contract: true,
    description:
      "The worker's main model (mapped onto the opus and sonnet slots). Empty = the CLI default."
  },
  'small-model': {
    contract: true,
    description: 'The haiku slot, and the overflow model after repeated overload.'
  },
  'max-parallel': {
    contract: true,
    default: 'auto',
    description:
      'Workers running at once: auto (the next starts while the CPU, memory and the endpoint leave room; at most 8 x cores) or a number (a fixed pool of that many).'
  },
  'max-turns': { contract: true, default: '40', description: 'Turn cap per worker.' },
  'timeout-minutes': {
    contract: true,
    default: '30',
    description: 'Wall-clock cap per worker, in minutes (fractions allowed).'
  },
  'permission-mode': {
    contract: true,
    default: 'bypassPermissions',
    description:
      'Claude Code permission mode for workers: bypassPermissions, acceptEdits, dontAsk (needs allowed-tools), default or plan.'
  },
  'allowed-tools': {
    contract: true,
    description: 'Tool rules the worker may use without asking (comma or newline separated).'
  },
  'disallowed-tools': {
    contract: true,
    description: 'Tool rules the worker may not use (comma or newline separated).'
  },
  tools: {
    default: 'Bash,Edit,Read,Write',
    description:
      "Built-in tools offered to the worker. Every tool definition costs input tokens on every turn (the CLI's full set makes each request ~2.6x larger; Bash covers grep and find); 'default' = the CLI's full set."
  },
  setup: {
    description:
      "Shell command run in each task's worktree before its worker, in the same cage as verify (e.g. npm ci --prefer-offline): what it leaves is seen by the worker and verify, never committed; npm, pip and Go download caches are the runner's, shared by every task. A failure ends the task failed, no worker run."
  },
  timeouts: {
    description:
      "Time caps in minutes (fractions allowed), a YAML mapping: setup (the setup command, default 10), verify (the verify command, default 10), deadline (run-wide, from the start of the step, default 340: after it no worker starts, nor a retry or a fix-up turn, and tasks whose worker has not started end not-started; running workers, setup and verify run on to their own caps). E.g. '{setup: 5, deadline: 120}'. A worker's own cap is timeout-minutes."
  },
  'setup-timeout-minutes': {
    deprecated: { input: 'timeouts', key: 'setup' },
    default: '10',
    description: 'Wall-clock cap of the setup command, in minutes.'
  },
  verify: {
    contract: true,
    description:
      "Shell command run in each task's worktree after its worker; its result gates the PR (a failure opens a draft PR labelled fleet:verify-failed)."
  },
  'verify-timeout-minutes': {
    deprecated: { input: 'timeouts', key: 'verify' },
    default: '10',
    description: 'Wall-clock cap of the verify command, in minutes.'
  },
  'verify-fix-up': {
    default: 'false',
    description:
      "When verify fails, run the worker once more in the same worktree with the failure's output, then verify again (one fix-up turn)."
  },
  'base-branch': {
    contract: true,
    description:
      "Branch the work starts from and the PRs target. Empty = the repository's default branch."
  },
  'branch-prefix': {
    contract: true,
    default: 'fleet/',
    description: 'Prefix of every work branch.'
  },
  draft: { contract: true, default: 'false', description: 'Open PRs as drafts.' },
  'pull-request': {
    description:
      "What every PR gets, a YAML mapping: labels, reviewers (users asked to review) and assignees, each a list or a comma-separated string. E.g. '{labels: [fleet, bot], reviewers: [alice]}'."
  },
  labels: {
    deprecated: { input: 'pull-request', key: 'labels' },
    description: 'Labels added to every PR (comma or newline separated).'
  },
  reviewers: {
    deprecated: { input: 'pull-request', key: 'reviewers' },
    description: 'Users asked to review every PR (comma or newline separated).'
  },
  assignees: {
    deprecated: { input: 'pull-request', key: 'assignees' },
    description: 'Users assigned to every PR (comma or newline separated).'
  },
  'github-token': {
    contract: true,
    default: '${{ github.token }}',
    description: 'Token for push, PRs and comments. Never given to a worker.'
  },
  'commit-author': {
    default: 'github-actions[bot] <41898282+github-actions[bot]@users.noreply.github.com>',
    description: "Identity of the action's commits, as 'Name <email>'."
  },
  'trigger-phrase': {
    contract: true,
    default: '/fleet',
    description: 'Comment command that delegates work.'
  },
  'queue-label': {
    contract: true,
    default: 'fleet',
    description: 'Label that queues an issue for delegation (labelled event, or scheduled batch).'
  },
  'max-tasks': {
    default: '20',
    description:
      'Most issues one scheduled batch takes from the queue (oldest first); also the most tasks the planner may propose.'
  },
  'allowed-bots': {
    description: 'Bot accounts allowed to delegate from comments and labels (comma separated).'
  },
  'follow-ups': {
    description:
      "Follow-up work on the PRs the action opened, a YAML mapping: address-reviews (true: answer every review that requests changes, by someone who may delegate, as a follow-up on its branch; default false: only reviews and inline comments starting with trigger-phrase), fix-failing-checks (true: on a failed workflow_run of an open fleet PR's branch, a follow-up with the failed jobs' log tails fixes it; needs an App or fine-grained token for the fix to start the checks again, see docs/workflows.md; default false), max-fix-ups (most failed-check turns per PR, counted in its body; past them one comment says the action stopped; default 2)."
  },
  'address-reviews': {
    deprecated: { input: 'follow-ups', key: 'address-reviews' },
    default: 'false',
    description:
      'Answer every review that requests changes on a PR the action opened (by someone who may delegate), as a follow-up on its branch; otherwise only reviews and inline comments starting with trigger-phrase.'
  },
  'fix-failing-checks': {
    deprecated: { input: 'follow-ups', key: 'fix-failing-checks' },
    default: 'false',
    description:
      "On a failed workflow_run of an open fleet PR's branch, run a follow-up with the failed jobs' log tails to fix it (needs an App or fine-grained token for the fix to start the checks again; see docs/workflows.md)."
  },
  'max-fix-ups': {
    deprecated: { input: 'follow-ups', key: 'max-fix-ups' },
    default: '2',
    description:
      'Most failed-check turns per PR (counted in its body); past them, one comment says the action stopped.'
  },
  'claude-path': {
    contract: true,
    description:
      'Path of the claude executable. Empty = claude on PATH, else the pinned version is installed.'
  },
  effort: {
    default: 'high',
    description:
      "The worker's effort level (low, medium, high, xhigh, max), written into its settings."
  },
  skills: {
    description:
      "Folders of the checkout (comma or newline separated, e.g. .claude/skills/release), each holding a SKILL.md, copied into every worker's config dir as skills: a cheap model gets the same procedural knowledge."
  },
  'append-system-prompt': {
    description: "Text appended to the worker's system prompt."
  },
  'claude-args': {
    description: 'Extra CLI arguments for every worker, whitespace separated (power users).'
  },
  isolation: {
    contract: true,
    default: 'sandbox',
    description:
      "Where each worker (and verify) runs. sandbox: bubblewrap on Linux, with its own PID and network namespaces, no way to gain privileges (sudo is dead), only its own clone and files visible, and the network only to the model endpoint and allowed-domains (see docs/sandbox.md). container: its own container (the container input's image; needs Docker or Podman; see docs/container.md). process: a plain child process, no boundary: a worker can read the runner's secrets and use sudo (the run warns)."
  },
  'allowed-domains': {
    contract: true,
    description:
      'With isolation: sandbox (or container with network: allowed-domains), hosts a worker, verify and setup may reach besides the model endpoint (comma or newline separated): host (ports 80 and 443), *.host (its subdomains), an IP address (10.0.0.5, [fd00::5]), any of them with :port. An IP literal or a name resolving to a loopback or private address is refused unless its address is listed too (localhost:8080, 127.0.0.1:8080). E.g. registry.npmjs.org for npm ci.'
  },
  container: {
    description: `With isolation: container, a YAML mapping: image (default ${WORKER_IMAGE}, this release's image from the repository's Dockerfile, or your own built from it), runtime (docker or podman, default docker), and each worker's cpus (--cpus, default 2), memory (--memory, no swap on top, e.g. 2g or 512m, default 4g), pids-limit (--pids-limit, default 1024) and network (bridge, none, allowed-domains or a named network, default bridge; allowed-domains: the run's own internal network, with only the model gateway and, through a proxy, the allowed-domains hosts; none: that network with the model gateway alone; host is refused: it would give a worker the runner's loopback services). E.g. '{runtime: podman, memory: 8g}'.`
  },
  'container-image': {
    deprecated: { input: 'container', key: 'image' },
    default: WORKER_IMAGE,
    description:
      "With isolation: container, the worker image: this release's image from the repository's Dockerfile (published by the release workflow as ghcr.io/<owner>/<repo>-worker:<version> and :<major>), or your own built from it."
  },
  'container-runtime': {
    deprecated: { input: 'container', key: 'runtime' },
    default: 'docker',
    description: 'With isolation: container, docker or podman.'
  },
  'container-cpus': {
    deprecated: { input: 'container', key: 'cpus' },
    default: '2',
    description: "With isolation: container, each worker's CPU limit (--cpus)."
  },
  'container-memory': {
    deprecated: { input: 'container', key: 'memory' },
    default: '4g',
    description:
      "With isolation: container, each worker's memory limit, no swap on top (--memory), e.g. 2g or 512m."
  },
  'container-pids-limit': {
    deprecated: { input: 'container', key: 'pids-limit' },
    default: '1024',
    description: "With isolation: container, each worker's process limit (--pids-limit)."
  },
  'container-network': {
    deprecated: { input: 'container', key: 'network' },
    default: 'bridge',
    description:
      "With isolation: container, the workers' network: bridge, none, or a named network. host is refused: it would give a worker the runner's loopback services."
  },
  retries: {
    description:
      'Worker runs that hit overload or rate limits (429, 529, 5xx), a YAML mapping: max-attempts (runs before the task fails, 1 to 10, default 3; then one more on small-model if set) and delay-seconds (base of the jittered exponential backoff between them, default 20).'
  },
  'max-attempts': {
    deprecated: { input: 'retries', key: 'max-attempts' },
    default: '3',
    description:
      'Runs of a worker that hit overload or rate limits (429, 529, 5xx) before it fails; then one more on small-model if set.'
  },
  'retry-delay-seconds': {
    deprecated: { input: 'retries', key: 'delay-seconds' },
    default: '20',
    description: 'Base of the jittered exponential backoff between worker attempts.'
  },
  'deadline-minutes': {
    deprecated: { input: 'timeouts', key: 'deadline' },
    default: '340',
    description:
      'Run-wide deadline from the start of the step: after it no worker starts (nor a retry or a fix-up turn) and tasks whose worker has not started end not-started; running workers, setup and verify run on to their own timeouts.'
  },
  mode: {
    default: 'all',
    description:
      "all: plan, run and report in this job. plan: write the 'matrix' and 'plan' outputs. run: run one 'shard' of the 'plan'. report: merge every shard's outcomes into one summary, issue comments and outputs. land: land the work of land: false jobs (check every sealed bundle, push, open the PRs); runs no worker and needs no api-key. merge: the landing train: every open fleet PR a person with write access approved is brought up to date with the base, verified again in its cage and merged through GitHub's merge API, one at a time (see docs/workflows.md)."
  },
  land: {
    default: 'true',
    description:
      "With mode: all or run, push the tasks' work and open the PRs. false: push nothing, open no PR, write no comment; each task's work is sealed (a git bundle with its outcome) into outcomes-dir or a run artifact and ends 'ready', for a later mode: land job with the write token (see docs/workflows.md). The job then needs only contents: read."
  },
  shard: { default: '0', description: "With mode: run, the shard to run (the matrix's 'shard')." },
  'max-jobs': {
    default: '20',
    description: 'With mode: plan, the most shards (matrix jobs) to plan.'
  },
  plan: {
    description:
      "With mode: run, the plan job's 'plan' output (empty = plan again from the same inputs). With mode: report, the same plan: every planned task whose shard left no outcome is reported not-started and the step fails."
  },
  'outcomes-dir': {
    description:
      "Directory the jobs hand over through: shard outcomes for mode: report, and with land: false each task's bundle and outcome for mode: land, which reads it and its direct subdirectories (the layout actions/download-artifact leaves). Empty = the action's own run artifacts."
  },
  'price-input': {
    deprecated: { input: 'prices', key: 'default' },
    description:
      'Your price in USD per million input tokens, for every model not in prices (cache writes 1.25x or 2x, cache reads 0.1x). With price-output, the summary shows a cost.'
  },
  'price-output': {
    deprecated: { input: 'prices', key: 'default' },
    description: 'Your price in USD per million output tokens.'
  },
  goal: {
    contract: true,
    description:
      "A request for the planner: one read-only worker splits it into independent tasks (at most max-tasks). By default they are only reported (the summary, and the 'plan' output, which 'tasks' and mode: run both take); see run-plan."
  },
  'run-plan': {
    contract: true,
    default: 'false',
    description: 'With goal: run the planned tasks in this job (else only report them).'
  },
  'merge-method': {
    contract: true,
    description:
      'How the landing train merges: merge, squash or rebase. Empty = what the repository allows, squash first (its allow_squash_merge, allow_merge_commit, allow_rebase_merge settings).'
  },
  'mark-ready': {
    contract: true,
    default: 'false',
    description:
      'With the landing train: a draft fleet PR whose verify passes on its current head is marked ready for review, so reviewers see it. Drafts never land.'
  },
  'update-prs': {
    contract: true,
    default: 'false',
    description:
      'On workflow_dispatch or schedule: bring every open fleet PR on the base up to date (as a push to the base does) instead of running tasks: rebased or merged cleanly and verified again, a conflict resolved by one worker turn, or left untouched with a comment.'
  },
  gateway: {
    description:
      "The action's model gateway, a YAML mapping: concurrency (requests in flight to the model endpoint, fleet-wide: a number, or auto, the default: start open, learn the endpoint's cap from its 429s), requests-per-worker (requests in flight per worker, its subagents included, default 8; more wait for that worker's own turn, never refused), allowed-betas (anthropic-beta values let through besides the ones the pinned CLI sends; any other is dropped) and record-bodies (true: also write request and response bodies, which hold the task's code and prompts, into the workers' request logs; default false)."
  },
  'model-concurrency': {
    deprecated: { input: 'gateway', key: 'concurrency' },
    default: 'auto',
    description:
      "Requests in flight to the model endpoint, fleet-wide, held by the action's model gateway: a number, or auto (start open, learn the endpoint's cap from its 429s)."
  },
  'max-requests-per-worker': {
    deprecated: { input: 'gateway', key: 'requests-per-worker' },
    default: '8',
    description:
      "Requests in flight to the model endpoint per worker (its subagents included), held by the action's model gateway; more wait for that worker's own turn, never refused. Waiting workers are served in turn, so one cannot starve the others."
  },
  budgets: {
    description:
      "Budgets, a YAML mapping, each empty = none: task-tokens and run-tokens (input + output + cache creation + cache read, over every worker of a task / the whole run), task-cost-usd and run-cost-usd (each request at its model's price, from prices), and the spend caps over every run, kept in the spend ledger (spend-ledger): daily-cost-usd (per UTC day), monthly-cost-usd (per UTC month) and user-daily-cost-usd (per UTC day for each person who started work by a comment, a label or a review). A task past a token or cost budget ends failed with its partial work pushed; past the run's, running workers stop at their next request and none starts. A spend cap is checked before each task starts against what it may cost (task-cost-usd, else the median of recent tasks): a task that would cross it ends 'deferred' and stays queued. Cost budgets need prices. E.g. '{task-cost-usd: 2, daily-cost-usd: 50}'."
  },
  'max-task-tokens': {
    deprecated: { input: 'budgets', key: 'task-tokens' },
    description:
      'Token budget per task (input + output + cache creation + cache read, over every worker of the task). Empty = none. A task past it ends failed; its partial work is pushed.'
  },
  'max-run-tokens': {
    deprecated: { input: 'budgets', key: 'run-tokens' },
    description:
      'Token budget for the whole run. Empty = none. Once spent, running workers are stopped at their next request and no new worker starts.'
  },
  'max-task-cost-usd': {
    deprecated: { input: 'budgets', key: 'task-cost-usd' },
    description:
      "Cost budget per task in USD, each request at its model's price (prices, or price-input / price-output). Empty = none."
  },
  'max-run-cost-usd': {
    deprecated: { input: 'budgets', key: 'run-cost-usd' },
    description:
      "Cost budget for the whole run in USD, each request at its model's price. Empty = none."
  },
  'max-daily-cost-usd': {
    deprecated: { input: 'budgets', key: 'daily-cost-usd' },
    contract: true,
    description:
      "Spend cap in USD for the repository per UTC day, over every run, kept in the spend ledger (spend-ledger). Checked before each task starts, against what the task may cost (max-task-cost-usd, else the median of recent tasks): a task that would cross it ends 'deferred', not started, and stays queued. Needs prices. Empty = none."
  },
  'max-monthly-cost-usd': {
    deprecated: { input: 'budgets', key: 'monthly-cost-usd' },
    contract: true,
    description: 'The same per UTC month (see max-daily-cost-usd). Empty = none.'
  },
  'max-user-daily-cost-usd': {
    deprecated: { input: 'budgets', key: 'user-daily-cost-usd' },
    contract: true,
    description:
      'The same per UTC day for each person who started work by a comment, a label or a review (see max-daily-cost-usd). Empty = none.'
  },
  'spend-ledger': {
    description:
      'Branch of the spend ledger: one JSON-lines file of what each task cost, appended by every run (compare-and-swap, never forced) and read by the spend caps and report-days. Kept when a spend cap is set, or when this is given; never merged, never the base branch (see docs/budgets.md). Empty = fleet-ledger when a cap is set.'
  },
  'report-days': {
    description:
      'With mode: report, report spend instead of merging shards: the last this many UTC days of the spend ledger, with tasks, PRs opened and merged (read from the API) and the cost per merged PR, by model and by trigger, and a chart of spend per day against the daily cap (budgets: daily-cost-usd). Empty = merge shards.'
  },
  prices: {
    description:
      "Prices per model, a YAML mapping: 'glm-4.6: {input: 0.6, output: 2.2}' in USD per million tokens, with optional cache-write-5m, cache-write-1h, cache-read (default 1.25x, 2x and 0.1x input) and web-search (USD per search, default 0.01). The entry 'default' prices every model not listed ('default: {input: 3, output: 15}'). Cost budgets price each request at its own model; with prices the summary shows a cost."
  },
  'allowed-betas': {
    deprecated: { input: 'gateway', key: 'allowed-betas' },
    description:
      'anthropic-beta values the model gateway lets through besides the ones the pinned CLI sends (comma-separated). Any other beta is dropped from the request.'
  },
  'record-bodies': {
    deprecated: { input: 'gateway', key: 'record-bodies' },
    default: 'false',
    description:
      "Also write request and response bodies into the workers' request logs (kept with the transcripts). They hold the task's code and prompts."
  },
  'dry-run': {
    contract: true,
    default: 'false',
    description: 'Plan and report the tasks; run no worker, push nothing.'
  }
} as const satisfies Record<string, InputSpec>

export type InputName = keyof typeof INPUTS

/** What the runner passes: `INPUT_<NAME>`, upper-cased, spaces to '_', hyphens kept. */
export function inputEnvName(name: string): string {
  return `INPUT_${name.replace(/ /g, '_').toUpperCase()}`
}

/** The inputs that are YAML mappings of settings that were inputs of their own (`deprecated`). */
export const MAPPING_INPUTS = [
  'container',
  'budgets',
  'retries',
  'gateway',
  'pull-request',
  'follow-ups',
  'timeouts'
] as const satisfies readonly InputName[]

/** The inputs a workflow should use: every input but the deprecated names. */
export const CURRENT_INPUTS = (Object.keys(INPUTS) as InputName[]).filter(
  name => !(INPUTS[name] as InputSpec).deprecated
)

/** How a deprecated name is written now, e.g. `container: {cpus: 2}`. */
export function newForm(name: string, value = '…'): string {
  const to = (INPUTS as Record<string, InputSpec>)[name]?.deprecated
  if (!to) return name
  if (to.input === 'prices') return 'prices: {default: {input: …, output: …}}'
  const shown = value === '…' || /^[\w./:@-]+$/.test(value) ? value : JSON.stringify(value)
  return `${to.input}: {${to.key}: ${shown}}`
}

/** What the inputs say, each setting under its own name (a mapping's keys under their old names). */
export interface ReadInputs {
  values: Record<InputName, string>
  /** The deprecated names the workflow gave (an error about one names it as given). */
  oldGiven: InputName[]
  /** One sentence per deprecated name given: the old input and the new form. */
  deprecations: string[]
}

/**
 * The inputs as the runner passed them, the mappings spread onto their keys. A deprecated name
 * still counts, with a warning; given beside its mapping key it is an error naming both.
 */
export function readInputs(env: NodeJS.ProcessEnv): ReadInputs {
  const given = (name: string) => env[inputEnvName(name)]?.trim() ?? ''
  const mappings: Record<string, Record<string, string>> = Object.fromEntries(
    MAPPING_INPUTS.map(input => [input, readMapping(input, given(input))])
  )
  const values = {} as Record<InputName, string>
  const oldGiven: InputName[] = []
  const deprecations: string[] = []
  for (const name of Object.keys(INPUTS) as InputName[]) {
    const spec: InputSpec = INPUTS[name]
    const old = given(name)
    const to = spec.deprecated
    const mapped = to ? mappings[to.input]?.[to.key] : undefined
    if (to && old !== '') {
      if (mapped !== undefined || (to.input === 'prices' && pricesHaveDefault(given('prices'))))
        throw new InputError(
          to.input,
          `'${name}' and '${to.input}: ${to.key}' both set the same thing: give only ${newForm(name)} ('${name}' is deprecated)`
        )
      oldGiven.push(name)
      deprecations.push(
        `Input '${name}' is deprecated and read only until the next minor release: use ${newForm(name, old)} instead.`
      )
    }
    const value = mapped ?? old
    values[name] =
      value === '' && spec.default && !spec.default.startsWith('${{') ? spec.default : value
  }
  return { values, oldGiven, deprecations }
}

/** A mapping input's keys, each as the string its old input would have held. */
function readMapping(input: InputName, text: string): Record<string, string> {
  const keys = (Object.values(INPUTS) as InputSpec[]).flatMap(s =>
    s.deprecated?.input === input ? [s.deprecated.key] : []
  )
  const expected = `expected a YAML mapping of ${keys.join(', ')}, e.g. '{${keys[0]}: …}'`
  if (text === '') return {}
  let raw: unknown
  try {
    raw = parse(text)
  } catch (error) {
    const why = error instanceof Error ? (error.message.split('\n')[0] ?? '') : String(error)
    throw new InputError(input, `not YAML (${why}): ${expected}`)
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw new InputError(input, expected)
  const out: Record<string, string> = {}
  for (const [key, value] of Object.entries(raw as Record<string, unknown>)) {
    if (!keys.includes(key)) throw new InputError(input, `unknown key '${key}': ${expected}`)
    const text = scalarText(value)
    if (text === undefined)
      throw new InputError(
        input,
        `'${key}' is not a plain value (a string, a number, true or false, or a list of them): ${expected}`
      )
    out[key] = text
  }
  return out
}

/** A YAML value as input text: a list becomes one item per line, null empty. */
function scalarText(value: unknown): string | undefined {
  if (value === null) return ''
  if (typeof value === 'string') return value.trim()
  if (typeof value === 'number' || typeof value === 'boolean') return String(value)
  if (Array.isArray(value)) {
    const items = value.map(scalarText)
    return items.every(i => i !== undefined) ? items.join('\n') : undefined
  }
  return undefined
}

/** Whether the prices mapping has a 'default' entry (a YAML error is the prices parser's to report). */
function pricesHaveDefault(text: string): boolean {
  try {
    const raw: unknown = parse(text)
    return typeof raw === 'object' && raw !== null && 'default' in raw
  } catch {
    return false
  }
}
