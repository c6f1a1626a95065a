import { readdir, readFile, stat } from 'node:fs/promises'
import path from 'node:path'
import { runOk } from '../src/process.js'
import { extraheaderValue } from './git-remote.js'
import type { RunActionResult } from './run-action.js'
import { GITHUB_TOKEN, MODEL_KEY, OWNER, READ_TOKEN, REPO, type Stack } from './stack.js'

/** The secrets of every scenario, and the forms they could leak in. */
export function secrets(): Record<string, string> {
  return {
    ...tokenForms('GitHub token', GITHUB_TOKEN),
    ...tokenForms('read-only GitHub token', READ_TOKEN),
    'model key': MODEL_KEY
  }
}

/** A GitHub token as it could leak: itself, base64 in basic auth, the checkout's header. */
function tokenForms(name: string, token: string): Record<string, string> {
  return {
    [name]: token,
    [`${name} (base64 in basic auth)`]: Buffer.from(`x-access-token:${token}`).toString('base64'),
    [`${name} (checkout extraheader)`]: extraheaderValue(token)
  }
}

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true }).catch(() => [])
  return entries.filter(e => e.isFile()).map(e => path.join(e.parentPath, e.name))
}

/** Everything the outside world got from a run: what a leak would have to pass through. */
async function corpus(stack: Stack, run: RunActionResult): Promise<Array<[string, string]>> {
  // `::add-mask::<secret>` is how the action tells the runner what to mask; the runner consumes
  // those lines, so they are the one place a secret is meant to appear.
  const stdout = run.stdout
    .split('\n')
    .filter(line => !line.startsWith('::add-mask::'))
    .join('\n')
  const out: Array<[string, string]> = [
    ['stdout', stdout],
    ['stderr', run.stderr],
    ['outputs', JSON.stringify(run.outputs)],
    ['step summary', run.summary],
    ['GitHub API requests', JSON.stringify(stack.github.requests)],
    ['GitHub API state', JSON.stringify(stack.github.state)]
  ]
  // Everything workers sent to the model, tool results included — except the auth headers, which
  // are where the model key belongs.
  for (const r of stack.model.requests)
    out.push([`model request ${r.key ?? ''} step ${r.step}`, JSON.stringify(r.body)])
  // Transcripts and preserved bundles are what Actions would upload as artifacts.
  for (const file of await filesUnder(path.join(run.runnerTemp, 'fleet-worker'))) {
    if (/\/(transcripts|preserved)\//.test(file) && (await stat(file)).size < 20_000_000) {
      out.push([file, await readFile(file, 'latin1')])
    }
  }
  // Every pushed commit: messages and content.
  const bare = stack.git.repoPath(`${OWNER}/${REPO}`)
  const { stdout: pushed } = await runOk(
    'git',
    ['-C', bare, 'log', '--all', '-p', '--format=%H %an %ae%n%B'],
    { maxBuffer: 256 * 1024 * 1024, env: process.env }
  )
  out.push(['pushed commits', pushed])
  return out
}

/** Zero hits of any secret anywhere the run's products went. Throws with where it was found. */
export async function assertNoLeaks(stack: Stack, run: RunActionResult): Promise<void> {
  const hits: string[] = []
  const texts = await corpus(stack, run)
  for (const [name, secret] of Object.entries(secrets())) {
    for (const [where, text] of texts)
      if (text.includes(secret)) hits.push(`${name} found in ${where}`)
  }
  if (hits.length) throw new Error(`secrets leaked:\n${hits.join('\n')}`)
}
