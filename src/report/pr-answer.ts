import type { Outcome, PrAnswer } from '../domain.js'
import { duration, tokens } from './markdown.js'
import { codeBlock, inertProse, inlineCode } from './worker-text.js'

/**
 * What the action says on a PR after a turn asked there: one short reply per inline thread and
 * one summary comment. The worker's words go through worker-text.ts as in PR bodies.
 */

/** Marks the comment that says the fix-up turns ran out, so it is said once per PR. */
export const FIX_UPS_STOPPED = '<!-- fleet-worker:fix-ups-stopped -->'
/** Ends the summary of the turn that answered `key`, so a rerun of the same event finds it. */
export const answerMarker = (key: string): string => `<!-- fleet-worker:answer ${key} -->`
const MAX_REPLY = 300

const LANDED = ['pr-updated', 'pr-opened']

/** The worker's `[k] ...` lines (the form its prompt asked for), by k; later lines win. */
export function repliesFrom(
  finalMessage: string | undefined,
  count: number
): Array<string | undefined> {
  const found = new Map<number, string>()
  for (const line of (finalMessage ?? '').split('\n')) {
    const m = /^\s*(?:[-*]\s*)?\[(\d{1,3})\]\s*[:.-]?\s*(\S.*)$/.exec(line)
    if (m?.[1] && m[2]) found.set(Number(m[1]), m[2].trim())
  }
  return Array.from({ length: count }, (_, i) => found.get(i + 1))
}

const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim()

function verdict(o: Outcome): string {
  if (LANDED.includes(o.status)) return 'pushed a change to this branch'
  if (o.status === 'no-changes') return 'changed nothing'
  if (o.status === 'verify-failed') return 'pushed a change, but verify failed'
  // The error may quote a setup's or a worker's output: one line of inert prose.
  const why = o.error ? `: ${inertProse(oneLine(o.error).slice(0, 200))}` : ''
  return `did not finish (${o.status}${why})`
}

/** One thread's reply: what the worker said for it, or what happened to the turn. */
export function threadReply(o: Outcome, said: string | undefined): string {
  const head = `Fleet Worker ${verdict(o)}.`
  if (!said) return `${head} See the summary comment on the pull request.`
  const short = said.length > MAX_REPLY ? `${said.slice(0, MAX_REPLY)}…` : said
  return `${head} The worker says: ${inlineCode(short)}`
}

const ASKED: Record<PrAnswer['kind'], (from: string) => string> = {
  review: from => `the review by @${from}`,
  'review-comment': from => `the comment by @${from}`,
  checks: from => `the failed checks of "${from.replace(/[^\w .:/()-]/g, '')}"`
}

/** The PR's one summary comment for the turn. */
export function answerSummary(answer: PrAnswer, o: Outcome): string {
  const lines = [`Fleet Worker answered ${ASKED[answer.kind](answer.from)}: it ${verdict(o)}.`, '']
  if (answer.threads.length)
    lines.push(`Each of the ${answer.threads.length} inline threads has a reply.`, '')
  if (answer.turn)
    lines.push(
      `Fix-up turn ${answer.turn.n} of at most ${answer.turn.max} (follow-ups: max-fix-ups).`,
      ''
    )
  if (o.finalMessage)
    lines.push("### Worker's final message", '', codeBlock(o.finalMessage.slice(0, 6000)), '')
  lines.push(
    `${o.turns} turns, ${tokens(o.usage.input_tokens)} input and ${tokens(o.usage.output_tokens)} output tokens, ${duration(o.durationMs)}.`,
    '',
    answerMarker(answer.key)
  )
  return lines.join('\n')
}

/** Said once, when a failed run arrives and the PR has had its max-fix-ups turns. */
export function fixUpsStopped(max: number, run: string, phrase: string): string {
  return [
    `Fleet Worker stopped fixing failing checks on this pull request: it has had ${max} fix-up turns (follow-ups: {max-fix-ups: ${max}}) and "${run.replace(/[^\w .:/()-]/g, '')}" still fails. A person should look; a comment or review starting with ${inlineCode(phrase)} still asks for more work.`,
    '',
    FIX_UPS_STOPPED
  ].join('\n')
}
