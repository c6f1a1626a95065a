// Shared pieces of the trigger scenarios (triggers*.test.ts): who may delegate, a model that
// turns an issue's plain words into a file, and readers of the mock's comments and labels.
import type { Script } from '../../demo/model-server.js'
import type { Role } from '../../demo/github-mock.js'
import type { Stack } from '../../demo/stack.js'

export const MARKER = '<!-- fleet-worker:status -->'

/** maria and olga may delegate; rita may only read. */
export const COLLABORATORS: Record<string, Role> = { maria: 'write', olga: 'admin', rita: 'read' }

export const slug = (text: string): string =>
  text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 40)

/**
 * Issue text carries no [[fleet-script]], so the model answers from the words themselves: a
 * task whose text's first line is "Write <path>" writes that path; one about the CHANGELOG edits
 * CHANGELOG.md; any other writes notes/<slug>.md. The key is the slug of that first line, so a
 * test can find a task's requests with `requestsFor(slug(firstLine))`.
 */
export function wordsToFile(prompt: string): Script {
  const first = taskFirstLine(prompt)
  const named = /^Write (\S+)/.exec(first)?.[1]
  const file = named ?? (/changelog/i.test(first) ? 'CHANGELOG.md' : `notes/${slug(first)}.md`)
  return writesLine(slug(first), file, first)
}

/** A task "Write <file>" writes its first line to that file (else to notes.txt), keyed task-<file>. */
export function writesNamedFile(prompt: string): Script {
  const first = taskFirstLine(prompt)
  const file = /^Write (\S+)/.exec(first)?.[1] ?? 'notes.txt'
  return writesLine(`task-${file}`, file, first)
}

/** The first line of the task's text: the action frames it between <task> tags (src/worker/args.ts). */
const taskFirstLine = (prompt: string): string =>
  (/<task>\n?([\s\S]*?)<\/task>/.exec(prompt)?.[1] ?? prompt).split('\n')[0]?.trim() ?? ''

const writesLine = (key: string, file: string, line: string): Script => ({
  key,
  steps: [
    { tool: 'Write', input: { file_path: file, content: `${line}\n` } },
    { text: `Wrote ${file}.` }
  ]
})

export const fleetComments = (stack: Stack, issue: number) =>
  stack.github.state.comments.filter(c => c.issue_number === issue && c.body.includes(MARKER))

/** Comments on the issue other than the one that triggered the run. */
export const answers = (stack: Stack, issue: number, trigger: number) =>
  stack.github.state.comments.filter(c => c.issue_number === issue && c.id !== trigger)

export const labelsOf = (stack: Stack, issue: number): string[] =>
  [...(stack.github.state.issue(issue)?.labels ?? [])].sort()

export const fleetBranches = async (stack: Stack, repo: string): Promise<string[]> =>
  Object.keys(await stack.git.branches(repo))
    .filter(b => b.startsWith('fleet/'))
    .sort()

export const pullsFor = (stack: Stack, head: string) =>
  stack.github.state.pulls.filter(p => p.pull.head === head)
