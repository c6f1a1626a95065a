import type { Outcome, VerifyResult } from '../domain.js'
import type { PrMarker } from './pr-body.js'
import { cell, codeBlock, inert, inlineCode } from './worker-text.js'

/**
 * What the action writes when it brings fleet PRs up to date with their base: the PR body's
 * refreshed verify section and marker, the comment on a conflict it could not resolve, and the
 * merge order for the summary. Pure.
 */

/** Starts the action's one conflict comment on a PR; the key after it says which heads it is about. */
export const CONFLICT_MARKER = '<!-- fleet-worker:conflict'

/** The heads a conflict comment is about: a rerun with the same two says nothing new. */
export const conflictKey = (baseSha: string, headSha: string): string =>
  `${CONFLICT_MARKER} base=${baseSha} head=${headSha} -->`

/** The label on a fleet PR the action could not bring up to date. */
export const CONFLICT_LABEL = 'fleet:conflict'

const FENCE = /^(`{3,})/

/** The body's lines, each with whether it sits inside a fenced block (worker text always does). */
function linesOf(body: string): { text: string; fenced: boolean }[] {
  let open: string | undefined
  return body.split('\n').map(text => {
    if (open === undefined) {
      open = FENCE.exec(text)?.[1]
      return { text, fenced: open !== undefined }
    }
    const t = text.trim()
    if (/^`+$/.test(t) && t.length >= open.length) open = undefined
    return { text, fenced: true }
  })
}

/** Drops the action's own sections with these headings (outside code blocks) from the body. */
function withoutSections(body: string, headings: RegExp): string[] {
  const out: string[] = []
  let dropping = false
  for (const line of linesOf(body)) {
    const heading = !line.fenced && /^### /.test(line.text)
    const marker = !line.fenced && line.text.startsWith('<!-- fleet-worker:task=')
    const runLink = !line.fenced && line.text.startsWith('[The run](')
    if (heading || marker || runLink) dropping = heading && headings.test(line.text)
    if (!dropping) out.push(line.text)
  }
  return out
}

function markerLine(id: string, m: PrMarker): string {
  return `<!-- fleet-worker:task=${id}${m.issue ? ` issue=${m.issue}` : ''}${m.fixUps ? ` fix-ups=${m.fixUps}` : ''} -->`
}

function verifyLines(v: VerifyResult): string[] {
  const verdict = v.timedOut
    ? 'timed out'
    : v.exitCode === 0
      ? 'passed'
      : `failed (exit ${v.exitCode})`
  return [
    `### Verify: ${verdict}`,
    '',
    inlineCode(v.command),
    '',
    codeBlock(v.tail || '(no output)'),
    ''
  ]
}

/**
 * The PR body after its branch was brought up to date: the verify section replaced by this run's,
 * one line saying how the branch moved, and the marker rewritten (the merge turn counted). The
 * rest (the task, the worker's words) stays as the PR was opened.
 */
export function refreshedBody(
  body: string,
  change: { id: string; marker: PrMarker; verify?: VerifyResult; how: string; runUrl?: string }
): string {
  const kept = withoutSections(body, /^### (Verify: |Up to date with )/)
  while (kept.length && kept.at(-1)?.trim() === '') kept.pop()
  const marker = kept.findLastIndex(l => l.startsWith('<!-- fleet-worker:task='))
  if (marker >= 0) kept.splice(marker, 1)
  const added = [
    `### Up to date with ${inert(change.how)}`,
    '',
    ...(change.runUrl ? [`By [this run](${change.runUrl}).`, ''] : []),
    ...(change.verify ? verifyLines(change.verify) : [])
  ]
  const worker = linesOf(kept.join('\n')).findIndex(l => l.text === '### Worker' && !l.fenced)
  const at = worker >= 0 ? worker : kept.length
  const head = kept.slice(0, at)
  while (head.length && head.at(-1)?.trim() === '') head.pop()
  return [...head, '', ...added, ...kept.slice(at), '', markerLine(change.id, change.marker)]
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
}

/** The task's prompt as the PR body shows it: the first code block under `### Task`. */
export function taskOfBody(body: string): string {
  const lines = body.split('\n')
  const start = lines.indexOf('### Task')
  if (start < 0) return ''
  const open = lines.slice(start + 1).findIndex(l => FENCE.test(l))
  if (open < 0) return ''
  const fence = FENCE.exec(lines[start + 1 + open] ?? '')?.[1] ?? '```'
  const rest = lines.slice(start + 2 + open)
  const close = rest.findIndex(l => l.trim() === fence)
  return (close < 0 ? rest : rest.slice(0, close)).join('\n')
}

/** The one comment on a PR whose conflict the action could not resolve. */
export function conflictComment(c: {
  base: string
  files: string[]
  reason: string
  key: string
  runUrl?: string
}): string {
  const files = c.files.slice(0, 50).map(f => `- ${inlineCode(f)}`)
  return [
    `This branch conflicts with \`${c.base}\` and Fleet Worker could not bring it up to date: ${inert(c.reason)}. The branch is untouched.`,
    '',
    'The conflicting files:',
    ...files,
    ...(c.files.length > 50 ? [`- and ${c.files.length - 50} more`] : []),
    '',
    `Resolve it by hand (merge \`${c.base}\` into the branch), or close the PR and run the task again.${c.runUrl ? ` [The run](${c.runUrl})` : ''}`,
    '',
    c.key
  ].join('\n')
}

/** A fleet PR on the base as the merge order sees it: the files it changes against the base. */
export interface OpenFleetPr {
  number: number
  title: string
  files: string[]
  status?: Outcome['status']
}

/**
 * The fleet's open PRs on the base and which of them touch the same files: a reviewer merges one
 * of each sharing group first and lets the action bring the others up to date.
 */
export function mergeOrder(base: string, prs: OpenFleetPr[]): string {
  if (prs.length === 0) return ''
  const rows = prs.map(pr => {
    const shared = prs
      .filter(o => o.number !== pr.number)
      .map(o => ({ o, files: o.files.filter(f => pr.files.includes(f)) }))
      .filter(s => s.files.length > 0)
      .map(
        s =>
          `#${s.o.number} (${s.files
            .slice(0, 3)
            .map(f => cell(f))
            .join(', ')}${s.files.length > 3 ? ', …' : ''})`
      )
    return `| #${pr.number} | ${cell(pr.title)} | ${pr.status ?? ''} | ${pr.files.length} | ${shared.join('; ') || 'none'} |`
  })
  const alone = prs.filter(pr =>
    prs.every(o => o.number === pr.number || !o.files.some(f => pr.files.includes(f)))
  )
  return [
    `### Merge order on \`${base}\``,
    '',
    `The fleet's open PRs on \`${base}\`, oldest first. ${alone.length} of ${prs.length} share no file with another and merge in any order; of those that share files, merge one and the action brings the others up to date on the next push.`,
    '',
    '| PR | title | status | files | shares files with |',
    '|---|---|---|---|---|',
    ...rows
  ].join('\n')
}

/** Brackets the refresh's section in an issue's live comment, so the next refresh replaces it. */
export const REFRESH_START = '<!-- fleet-worker:refresh -->'
export const REFRESH_END = '<!-- /fleet-worker:refresh -->'

/** One fleet PR as a refresh left it, in the order the refresh took them. */
export interface RefreshedPr {
  number: number
  title: string
  status: Outcome['status']
  error?: string
  /** It conflicted with the base (a worker turn ran, or none could). */
  conflicted: boolean
  /** The other PRs of the same base it shares files with. */
  shares: number[]
}

const refreshWords: Partial<Record<Outcome['status'], string>> = {
  'up-to-date': 'already up to date',
  'pr-updated': 'brought up to date',
  'verify-failed': 'brought up to date; verify failed',
  conflict: 'conflicts: left as it was, the PR says why',
  failed: 'failed: left as it was',
  'no-changes': 'moved meanwhile: left as it was',
  'not-started': 'not started',
  merged: 'landed by the train',
  waiting: 'waiting to land',
  blocked: 'blocked: verify failed once up to date'
}

/**
 * The merge order on an issue's live comment: which of the issue's fleet PRs a refresh of `base`
 * took, in what order, what became of each (which conflicted) and which share files, so a reviewer
 * merges those that share nothing in any order and one of each sharing group at a time.
 */
export function refreshSection(r: { base: string; prs: RefreshedPr[]; runUrl?: string }): string {
  const rows = r.prs.map((pr, i) => {
    const words = refreshWords[pr.status] ?? pr.status
    const said =
      pr.conflicted && pr.status === 'pr-updated'
        ? `${words}: a worker resolved the conflict`
        : words
    const why = pr.error && pr.status !== 'pr-updated' ? `: ${cell(pr.error)}` : ''
    const shares = pr.shares.length ? pr.shares.map(n => `#${n}`).join(', ') : 'none'
    return `| ${i + 1} | #${pr.number} ${cell(pr.title)} | ${said}${why} | ${shares} |`
  })
  const conflicted = r.prs.filter(pr => pr.conflicted).map(pr => `#${pr.number}`)
  return [
    REFRESH_START,
    `### Merge order on \`${inert(r.base)}\``,
    '',
    `\`${inert(r.base)}\` moved; its fleet PRs from this issue were brought up to date in this order${r.runUrl ? ` by [this run](${r.runUrl})` : ''}. ${conflicted.length ? `Conflicted: ${conflicted.join(', ')}.` : 'None conflicted.'} Merge a PR that shares no file with another in any order; of those that share files, merge one and the action brings the others up to date on the next push.`,
    '',
    '| order | PR | outcome | shares files with |',
    '|---|---|---|---|',
    ...rows,
    REFRESH_END
  ].join('\n')
}

/** A live comment's body with its refresh section replaced (or added at the end). */
export function withRefreshSection(body: string, section: string): string {
  const start = body.indexOf(REFRESH_START)
  const end = body.indexOf(REFRESH_END, start)
  if (start >= 0 && end > start)
    return `${body.slice(0, start)}${section}${body.slice(end + REFRESH_END.length)}`
  return `${body.trimEnd()}\n\n${section}`
}

/** The PRs each shares files with, by number (from the files each changes against the base). */
export function sharing(prs: OpenFleetPr[]): Map<number, number[]> {
  return new Map(
    prs.map(pr => [
      pr.number,
      prs
        .filter(o => o.number !== pr.number && o.files.some(f => pr.files.includes(f)))
        .map(o => o.number)
    ])
  )
}
