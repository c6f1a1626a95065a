import { cleanText } from './invisible.js'

/**
 * The worker's words for a merge turn: its fleet PR's branch conflicts with the base, and the
 * merge is in progress in its worktree. It is told the conflicting files, what each side did and
 * the task the branch was made for. Pure; everything from GitHub or git is data between tags.
 */

export interface MergeAsk {
  pr: number
  title: string
  base: string
  branch: string
  files: string[]
  /** Commit subjects on the branch since the merge base (its side), newest first. */
  ours: string[]
  /** Commit subjects on the base since the merge base (the other side), newest first. */
  theirs: string[]
  /** The base side's changes to the conflicting files (a diff, cut to size). */
  theirDiff: string
  /** The task the branch was made for, as its PR shows it. */
  task: string
}

const MAX_DIFF = 8000
const MAX_SUBJECTS = 30

const clip = (text: string, max: number): string =>
  text.length > max ? `${text.slice(0, max)}\n[... cut at ${max} characters]` : text

const subjects = (list: string[]): string[] =>
  list.length === 0
    ? ['(none)']
    : [
        ...list.slice(0, MAX_SUBJECTS).map(s => `- ${cleanText(s)}`),
        ...(list.length > MAX_SUBJECTS ? [`- and ${list.length - MAX_SUBJECTS} more`] : [])
      ]

export function mergePrompt(ask: MergeAsk): string {
  return [
    `Pull request #${ask.pr}, "${cleanText(ask.title)}", holds your earlier work on ${ask.branch}. ${ask.base} has moved on since, and merging ${ask.base} into this branch conflicts. The merge is in progress in this working tree: the files below hold git's conflict markers (<<<<<<<, =======, >>>>>>>).`,
    '',
    'Resolve every conflict: edit each file so it keeps what both sides meant (the task below, and the change on the base), and remove every conflict marker. Do not commit and do not run git merge, rebase or reset: the fleet commits the merge and checks it.',
    '',
    '<conflicting-files>',
    ...ask.files.map(f => cleanText(f)),
    '</conflicting-files>',
    '',
    `<this-branch-commits>`,
    ...subjects(ask.ours),
    '</this-branch-commits>',
    '',
    `<base-commits branch="${cleanText(ask.base)}">`,
    ...subjects(ask.theirs),
    '</base-commits>',
    '',
    '<base-changes-to-these-files>',
    clip(cleanText(ask.theirDiff), MAX_DIFF) || '(none)',
    '</base-changes-to-these-files>',
    '',
    '<original-task>',
    clip(ask.task.trim(), MAX_DIFF) || '(not recorded in the PR)',
    '</original-task>',
    '',
    'End your final message with a short summary of how you resolved each file.'
  ].join('\n')
}
