/**
 * What setup left in a task's files, as one `git status -z` lists it (STATUS_ARGS): tracked files
 * it changed, and the untracked paths it left. In a worktree the action runs it on the host; when
 * the files are a copy-on-write view (cage/views.ts) that the host cannot see, it runs inside a
 * cage, writing into a directory of setup's own, and the action reads that file as bytes (no
 * symlink followed, size capped: worker/cage-file.ts) and decides as it does for a worktree
 * (setup.ts).
 */
import path from 'node:path'
import { readCageFile } from '../worker/cage-file.js'

/**
 * One walk for both answers: tracked changes and untracked paths (an untracked directory as
 * `dir/`; ignored ones not shown), NUL-separated and never quoted.
 */
export const STATUS_ARGS = [
  'status',
  '-z',
  '--porcelain',
  '--untracked-files=normal',
  '--ignore-submodules=all'
]

/** The cage's git: no hooks, no fsmonitor, submodules not recursed into. */
const CAGE_GIT =
  'g() { git -c core.hooksPath=/dev/null -c core.fsmonitor=false -c submodule.recurse=false "$@"; }'

/**
 * The setup cage's command with a view: `FLEET_SETUP` (the `setup` input) in its own shell, then,
 * when it passed, the listing into `FLEET_SETUP_OUT`. Constant text: both come in the environment.
 * Exit 6 when git cannot list them: the setup fails rather than let its files ride into a commit.
 */
export const SETUP_CHECK = [
  'sh -c "$FLEET_SETUP" fleet-setup || exit $?',
  CAGE_GIT,
  `g ${STATUS_ARGS.join(' ')} > "$FLEET_SETUP_OUT/status" || exit 6`
].join('\n')

/**
 * Setup's leftover check in a cage of its own once setup passed (the sandbox: setup-layer.ts):
 * `paths` then the paths setup changed, taken literally, or `all` for the whole view. Exit 6 when
 * git cannot list them, 7 when called otherwise.
 */
export const LEFTOVERS_CHECK = [
  CAGE_GIT,
  'case $1 in',
  '  all) set -- ;;',
  '  paths) shift; [ $# -gt 0 ] || exit 7 ;;',
  '  *) exit 7 ;;',
  'esac',
  `g --literal-pathspecs ${STATUS_ARGS.join(' ')} -- "$@" > "$FLEET_SETUP_OUT/status" || exit 6`
].join('\n')

/** More than this is no listing of leftovers a commit should exclude: refused. */
const MAX_BYTES = 4 * 1024 * 1024

/** What setup left: tracked files it changed (as git names them) and untracked paths (raw). */
export interface Leftovers {
  tracked: string[]
  untracked: string[]
}

/**
 * A path as git's porcelain without -z shows it (core.quotePath): in double quotes, with C
 * escapes, when it holds a control character, a quote, a backslash or a non-ASCII byte, so a
 * name read from a cage never carries a newline into the log.
 */
export function quotedPath(name: string): string {
  const bytes = Buffer.from(name, 'utf8')
  if (!bytes.some(b => b < 0x20 || b >= 0x7f || b === 0x22 || b === 0x5c)) return name
  const named: Record<number, string> = {
    7: 'a',
    8: 'b',
    9: 't',
    10: 'n',
    11: 'v',
    12: 'f',
    13: 'r',
    0x22: '"',
    0x5c: '\\'
  }
  let out = ''
  for (const b of bytes) {
    const escape = named[b]
    if (escape) out += `\\${escape}`
    else if (b < 0x20 || b >= 0x7f) out += `\\${b.toString(8).padStart(3, '0')}`
    else out += String.fromCharCode(b)
  }
  return `"${out}"`
}

/**
 * `git status -z --porcelain` (STATUS_ARGS) read as data: `??` entries are the untracked paths,
 * every other entry a tracked change (a rename or copy names its source in the next field).
 * Throws on anything that is not that format.
 */
export function parseStatus(z: string): Leftovers {
  const tracked: string[] = []
  const untracked: string[] = []
  const fields = z.split('\0')
  if (fields.pop() !== '') throw new Error('the status listing does not end with a NUL')
  for (let i = 0; i < fields.length; i++) {
    const entry = fields[i] ?? ''
    if (!/^[ MTADRCU?!]{2} ./s.test(entry))
      throw new Error(`the status listing has an entry git does not write: ${quotedPath(entry)}`)
    const [code, name] = [entry.slice(0, 2), entry.slice(3)]
    if (code === '??') untracked.push(name)
    else if (code === '!!') continue
    else if (code.includes('R') || code.includes('C')) {
      const from = fields[++i]
      if (from === undefined) throw new Error('the status listing ends inside a rename')
      tracked.push(`${quotedPath(from)} -> ${quotedPath(name)}`)
    } else tracked.push(quotedPath(name))
  }
  return { tracked, untracked }
}

/** The cage's listing (SETUP_CHECK's `status` file), parsed. */
export function readLeftovers(dir: string): Promise<Leftovers> {
  // A throw of the reading rejects.
  return new Promise(resolve =>
    resolve(parseStatus(readCageFile(path.join(dir, 'status'), MAX_BYTES)))
  )
}
