// The scenario builder of the end-to-end files: one call gives a describe block its stack
// (demo/stack.ts: the scripted model, the git remote, the GitHub mock, a workspace), started
// before its tests and closed after them, and scratch folders removed after them. The helpers
// below seed an issue or a comment in the mock and give the event GitHub would send for it, so
// that a test reads as: seed, `stack.run(...)`, assert on outputs, summary and the mock's state.
import { mkdtempSync } from 'node:fs'
import { readdir, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, expect } from 'vitest'
import { issueComment, issuesLabeled, pullRequestReview } from './events.js'
import type { MockPull } from '../../demo/github-state.js'
import { script } from '../../demo/model-server.js'
import type { RunActionResult } from '../../demo/run-action.js'
import { byId, OWNER, REPO, type Stack, type StackOptions, startStack } from '../../demo/stack.js'
import { COLLABORATORS, slug, wordsToFile } from '../e2e/triggers-support.js'

/** A stack for issue and comment triggers: the model writes what the issue says; maria may delegate. */
export const ISSUES: StackOptions = {
  model: { defaultScript: wordsToFile },
  github: { collaborators: COLLABORATORS }
}

/**
 * The describe block's stack, started in its beforeAll and closed in its afterAll. The value
 * returned stands for the stack from the first test on (reading it earlier throws). `options`
 * may be a function, read when the stack starts (for values other hooks make first).
 */
export function useStack(
  options: StackOptions | (() => StackOptions) = {},
  timeoutMs?: number
): Stack {
  let current: Stack | undefined
  beforeAll(async () => {
    current = await startStack(typeof options === 'function' ? options() : options)
  }, timeoutMs)
  afterAll(async () => current?.close())
  return new Proxy({} as Stack, {
    get(_, key) {
      if (typeof key === 'symbol' || key === 'then') return undefined
      if (!current) throw new Error(`the stack starts before the tests (read: ${String(key)})`)
      return Reflect.get(current, key) as unknown
    }
  })
}

/**
 * A scratch folder for the describe block: made now (empty until a test writes to it), removed
 * with everything in it after the block's tests.
 */
export function useTemp(prefix: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), prefix))
  afterAll(async () => rm(dir, { recursive: true, force: true }))
  return dir
}

type IssueLike = { number: number; title: string; body: string | null }

/**
 * Adds `body` as `commenter`'s comment on the issue in the mock, and the issue_comment event
 * GitHub would send for it (a collaborator's association where COLLABORATORS lists them).
 */
export function commentOn(
  stack: Stack,
  issue: IssueLike | number,
  body: string,
  commenter: string,
  extra: Partial<Parameters<typeof issueComment>[0]> = {}
) {
  const seeded = typeof issue === 'number' ? stack.github.state.issue(issue) : issue
  if (!seeded) throw new Error(`no issue ${typeof issue === 'number' ? issue : issue.number}`)
  const comment = stack.github.addComment(seeded.number, body, commenter)
  const payload = issueComment({
    owner: OWNER,
    repo: REPO,
    issueNumber: seeded.number,
    issueTitle: seeded.title,
    issueBody: seeded.body ?? '',
    commentBody: body,
    commenter,
    commentId: comment.id,
    authorAssociation: COLLABORATORS[commenter] ? 'COLLABORATOR' : 'NONE',
    ...extra
  })
  return { comment, payload }
}

/** Seeds `user`'s issue in the mock. */
export const issueBy = (stack: Stack, user: string, title: string, body: string) =>
  stack.github.addIssue({ title, body, user })

/** Seeds `by`'s issue and their `/fleet` comment on it, and runs the action on that event. */
export async function delegate(stack: Stack, title: string, body: string, by = 'maria') {
  const issue = stack.github.addIssue({ title, body, user: by })
  const { comment, payload } = commentOn(stack, issue, '/fleet', by)
  const run = await stack.run({ eventName: 'issue_comment', payload })
  return { issue, comment, run }
}

/**
 * Seeds `by`'s issue carrying `label` (after `others`) in the mock, and the issues.labeled event
 * GitHub sends when `by` adds that label.
 */
export function labeledIssue(
  stack: Stack,
  seed: { title: string; body: string; others?: string[] },
  label = 'fleet',
  by = 'maria'
) {
  const others = seed.others ?? []
  const { title, body } = seed
  const issue = stack.github.addIssue({ title, body, user: by, labels: [...others, label] })
  const payload = issuesLabeled({
    owner: OWNER,
    repo: REPO,
    issueNumber: issue.number,
    title,
    body,
    labels: others,
    label,
    sender: by
  })
  return { issue, payload }
}

/** The pull_request_review event of `reviewer` requesting changes on a PR seeded in the mock. */
export const changesRequested = (
  target: MockPull,
  reviewer: string,
  body: string,
  reviewId: number
) =>
  pullRequestReview({
    owner: OWNER,
    repo: REPO,
    pr: {
      number: target.number,
      title: target.title,
      body: target.body ?? '',
      head: target.pull.head
    },
    reviewer,
    reviewId,
    state: 'changes_requested',
    body
  })

/** The run ended 0; its output is the message when it did not. */
export const expectOk = (run: Pick<RunActionResult, 'exitCode' | 'stdout' | 'stderr'>): void => {
  expect(run.exitCode, run.stdout + run.stderr).toBe(0)
}

/**
 * A project with one dependency, a local package, so `npm ci` works offline: setup installs it
 * into node_modules (a symlink), and `npm test` fails without it. `scripts` go before `test`.
 */
export const greetProject = (scripts: Record<string, string> = {}): Record<string, string> => ({
  'README.md': '# widgets\n',
  'vendor/greet/package.json': '{"name":"greet","version":"1.0.0","main":"index.js"}\n',
  'vendor/greet/index.js': "module.exports = 'hello from setup'\n",
  'package.json':
    JSON.stringify({
      name: 'widgets',
      version: '1.0.0',
      private: true,
      dependencies: { greet: 'file:vendor/greet' },
      scripts: {
        ...scripts,
        test: `node -e "require('assert').equal(require('greet'), 'hello from setup')"`
      }
    }) + '\n',
  'package-lock.json':
    JSON.stringify({
      name: 'widgets',
      version: '1.0.0',
      lockfileVersion: 3,
      requires: true,
      packages: {
        '': { name: 'widgets', version: '1.0.0', dependencies: { greet: 'file:vendor/greet' } },
        'node_modules/greet': { resolved: 'vendor/greet', link: true },
        'vendor/greet': { version: '1.0.0' }
      }
    }) + '\n'
})

/** One worker's gateway request log (`<task>.<n>.requests.jsonl` in the run's transcripts), parsed. */
export async function requestLog<T = Record<string, unknown>>(
  run: RunActionResult,
  name: string
): Promise<T[]> {
  const base = path.join(run.runnerTemp, 'fleet-worker')
  const dir = (await readdir(base)).find(e => /^\d+-\d+$/.test(e)) ?? ''
  const text = await readFile(path.join(base, dir, 'transcripts', name), 'utf8')
  return text
    .trim()
    .split('\n')
    .map(line => JSON.parse(line) as T)
}

/** A model script under `key` that writes `content` to `file`, then says `said`. */
export const writeScript = (key: string, file: string, content: string, said: string): string =>
  script({
    key,
    steps: [{ tool: 'Write', input: { file_path: file, content } }, { text: said }]
  })

/**
 * Delegates maria's issue with `/fleet`, which must open its PR; the run, the issue and the text
 * of every request its worker sent the model (at least one).
 */
export async function promptsOfDelegated(stack: Stack, title: string, body: string) {
  const { issue, run } = await delegate(stack, title, body)
  expectOk(run)
  expect(byId(run).get(`issue-${issue.number}`)?.status).toBe('pr-opened')
  const sent = stack.model.requestsFor(slug(title))
  expect(sent.length).toBeGreaterThan(0)
  return { issue, run, prompts: sent.map(r => JSON.stringify(r.body)) }
}
