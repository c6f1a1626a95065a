import { cleanText } from './invisible.js'
import { visibleText } from './visible.js'

/**
 * The worker's words for a turn asked on a fleet PR: a review with its inline comments, one
 * comment's thread, or the logs of failed checks. Pure. Everything from GitHub is data between
 * tags, cleaned of what a person cannot see (cleanText), and cut to a size a cheap model reads.
 */

/** One inline comment as the worker is shown it (a thread is several, oldest first). */
export interface ThreadComment {
  path: string
  line: number | null
  diffHunk: string
  body: string
  author: string
}

export interface FailedJob {
  name: string
  failedSteps: string[]
  /** The end of its log, or why there is none. */
  tail: string
}

const MAX_THREADS = 30
const MAX_HUNK = 3000
const MAX_COMMENT = 4000

const clip = (text: string, max: number): string =>
  text.length > max ? `${text.slice(0, max)}\n[... cut at ${max} characters]` : text

function threadText(thread: ThreadComment[], k: number): string {
  const first = thread[0]
  if (!first) return ''
  const where = `${cleanText(first.path)}${first.line !== null ? ` line ${first.line}` : ''}`
  return [
    `<comment n="${k}" file="${where}">`,
    'The diff hunk it is on:',
    clip(cleanText(first.diffHunk), MAX_HUNK),
    ...thread.map(
      c => `${cleanText(c.author)} wrote:\n${clip(visibleText(c.body).text, MAX_COMMENT)}`
    ),
    '</comment>'
  ].join('\n')
}

const ANSWER_FORM = (n: number) =>
  `End your final message with one line per numbered comment (${n === 1 ? '[1]' : `[1] to [${n}]`}), each in this form, for the reviewer to read in its thread:\n[k] what you changed for it, or why you did not change anything`

/** A review (its body and each inline thread), or one comment's thread, as a follow-up task. */
export function reviewPrompt(ask: {
  pr: number
  title: string
  reviewer: string
  text: string
  threads: ThreadComment[][]
}): string {
  const threads = ask.threads.slice(0, MAX_THREADS)
  const lines = [
    `@${ask.reviewer} reviewed pull request #${ask.pr}, "${cleanText(ask.title)}", which holds your earlier work on this branch. Address the review here: change the code where the reviewer is right, and say so where you disagree.`,
    ''
  ]
  if (ask.text.trim())
    lines.push('<review>', clip(visibleText(ask.text).text, MAX_COMMENT), '</review>', '')
  threads.forEach((thread, i) => lines.push(threadText(thread, i + 1), ''))
  if (threads.length > 0) lines.push(ANSWER_FORM(threads.length))
  return lines.join('\n').trim()
}

/** Failed checks as a follow-up task: each failed job's name, failed steps and log tail. */
export function checksPrompt(ask: { pr: number; run: string; jobs: FailedJob[] }): string {
  return [
    `The checks of pull request #${ask.pr} failed on this branch (workflow "${cleanText(ask.run)}"). Find the cause in the logs below and fix the code so the checks pass. Do not weaken, skip or delete a check or a test.`,
    '',
    ...ask.jobs.flatMap(job => [
      `<failed-job name="${cleanText(job.name)}">`,
      ...(job.failedSteps.length
        ? [`Failed steps: ${job.failedSteps.map(s => cleanText(s)).join(', ')}`]
        : []),
      'The end of its log:',
      job.tail,
      '</failed-job>',
      ''
    ]),
    'End your final message with a short summary of the cause and the fix.'
  ]
    .join('\n')
    .trim()
}
