// A plain fake of the GitHub object (src/github/github.ts) for unit tests of its callers: the
// methods a test gives, and the repository. A method the test did not give throws when called,
// naming itself, so a test never passes on a call it did not expect.
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
