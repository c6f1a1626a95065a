// A plain fake of the GitHub object (src/github/github.ts) for unit tests of its callers: the
// methods a test gives, and the repository. A method the test did not give throws when called,
// naming itself, so a test never passes on a call it did not expect.
import type { FleetPr } from '../../src/github/fleet-prs.js'
import type { GitHub } from '../../src/github/github.js'

/** GitHub's public methods (the class's private client is no part of what callers see). */
export type GitHubMethods = { [K in keyof GitHub]: GitHub[K] }

export function fakeGitHub(
  methods: Partial<Omit<GitHubMethods, 'repo'>>,
  repo = { owner: 'acme', repo: 'widgets' }
): GitHub {
  const given = methods as Record<string | symbol, unknown>
  return new Proxy({} as GitHub, {
    get(_target, name) {
      if (name === 'repo') return repo
      if (name in given) return given[name]
      // Not a thenable: an async function may return the fake, and await looks for `then`.
      if (name === 'then' || typeof name === 'symbol') return undefined
      return () => {
        throw new Error(`fake GitHub: ${String(name)} was called but not faked`)
      }
    }
  })
}

/** A fleet PR as the GitHub object lists it: task t<number> on fleet/t<number>, then `more`. */
export const fleetPr = (number: number, more: Partial<FleetPr> = {}): FleetPr => ({
  number,
  title: `task ${number}`,
  body: '',
  url: `https://example.com/pull/${number}`,
  branch: `fleet/t${number}`,
  id: `t${number}`,
  marker: { task: `t${number}`, fixUps: 0 },
  labels: [],
  createdAt: '2026-01-01T00:00:00Z',
  headSha: 'a'.repeat(40),
  draft: false,
  nodeId: `N${number}`,
  author: { login: 'fleet-bot', type: 'User' },
  ...more
})
