/**
 * The headings the README's inputs table is split under, in the order a reader needs them, and
 * which inputs go under each. scripts/action-yml.ts writes the tables from this; a unit test
 * (test/unit/metadata.test.ts) fails when an input of src/inputs.ts is under no heading, so a new
 * input is placed here when it is added.
 */
export interface InputGroup {
  heading: string
  /** Input names; a name src/inputs.ts no longer has is skipped. */
  names: readonly string[]
}

export const INPUT_GROUPS: readonly InputGroup[] = [
  {
    heading: 'What to do',
    names: ['tasks', 'tasks-file', 'goal', 'run-plan', 'dry-run']
  },
  {
    heading: 'The model endpoint',
    names: [
      'api-key',
      'base-url',
      'auth-header',
      'model',
      'small-model',
      'effort',
      'retries',
      'gateway'
    ]
  },
  {
    heading: 'The workers',
    names: [
      'max-parallel',
      'max-turns',
      'timeout-minutes',
      'timeouts',
      'permission-mode',
      'allowed-tools',
      'disallowed-tools',
      'tools',
      'claude-path',
      'skills',
      'append-system-prompt',
      'claude-args'
    ]
  },
  {
    heading: 'Setup and verify',
    names: ['setup', 'verify', 'verify-fix-up']
  },
  {
    heading: 'Isolation',
    names: ['isolation', 'allowed-domains', 'container']
  },
  {
    heading: 'Branches and pull requests',
    names: [
      'base-branch',
      'branch-prefix',
      'draft',
      'pull-request',
      'github-token',
      'commit-author',
      'merge-method',
      'mark-ready'
    ]
  },
  {
    heading: 'Comments, labels and follow-ups',
    names: [
      'trigger-phrase',
      'queue-label',
      'max-tasks',
      'allowed-bots',
      'follow-ups',
      'update-prs'
    ]
  },
  {
    heading: 'Budgets and prices',
    names: ['budgets', 'prices', 'spend-ledger', 'report-days']
  },
  {
    heading: 'Scaling out',
    names: ['mode', 'land', 'shard', 'max-jobs', 'plan', 'outcomes-dir']
  }
]

/**
 * The inputs under each heading, in this file's order, each known input once; `unplaced` lists
 * the inputs no heading names (the generator puts them under "Other inputs").
 */
export function groupInputs(known: readonly string[]): {
  groups: { group: InputGroup; names: string[] }[]
  unplaced: string[]
} {
  const have = new Set(known)
  const placed = new Set<string>()
  const groups = INPUT_GROUPS.map(group => {
    const names = group.names.filter(name => have.has(name) && !placed.has(name))
    for (const name of names) placed.add(name)
    return { group, names }
  })
  return { groups, unplaced: known.filter(name => !placed.has(name)) }
}
