/**
 * The one exit of a task's cage (docs/sandbox.md, "The exit"), shared by every isolation that runs
 * it: what crosses from a cage to the action is data. After each caged run that can change the
 * task's files (setup, the worker, verify, a fix-up turn) a fixed git command line, run INSIDE the
 * same cage, commits what was left and writes the task's branch as a bundle file into a directory
 * given to that run alone (seal). The action then reads that file as bytes and checks it in the
 * fleet's own clone (git/sealed.ts) before the task's branch may move (accept). The action never
 * runs git in a directory a cage could write and never fetches from a repository a worker could
 * change.
 */
import { mkdirSync, mkdtempSync } from 'node:fs'
import path from 'node:path'
import type { Git } from '../git/git.js'
import type { RefWriter } from '../git/ref-writer.js'
import { rewriteMessages } from '../git/messages.js'
import {
  checkSealed,
  DEFAULT_CAPS,
  discardSealed,
  readSealed,
  type SealCaps
} from '../git/sealed.js'
import { inertCommitMessage } from '../inert-text.js'
import { HOST_FSMONITOR, LAYER_DIR, layerHook, shellQuote } from '../git/fsmonitor.js'
import { describeError } from '../errors.js'
import { runVerify } from './verify.js'
import type { HeldView } from '../cage/views.js'
import type { View } from '../domain.js'
import { readCageFile } from './cage-file.js'
import { removeTree } from '../process/remove-tree.js'

/** The name of the bundle file the seal writes in its output directory. */
export const SEALED_FILE = 'task.bundle'

/** The file the seal leaves beside its bundle when it saw the view's layer: the layer's state. */
export const LAYER_STATE = 'layer-state'

/**
 * The seal, as the cage's `sh` runs it. Constant text: the branch, start commit, output file and
 * message come as positional arguments, the identity in the environment. No system or global
 * config, no hooks, submodules neither recursed into nor looked at. Whatever a hostile
 * repository config makes git do here runs in the cage, with the cage's walls; the action only
 * reads the file it leaves. The sixth argument is the commit the cage's HEAD was given (what the
 * action accepted last: the start, or an earlier run's sealed work). Exit 0 with no file: nothing
 * new since the start commit or since that one (a verify that changed no file: no bundle to make,
 * fetch and check, and the task's index is not written again).
 *
 * A merge turn (a fifth argument: the base commit being merged) whose worker made no commit of
 * its own records its files as one merge commit with exactly two parents, the start commit and
 * that base; a worker that committed is sealed as it left it, and the action refuses any shape but
 * the one merge (git/sealed.ts).
 *
 * A seventh argument, non-empty, says the cage shows the task's view's layer at LAYER_DIR: git
 * then asks it what changed (git/fsmonitor.ts), and stats those paths alone. Else fsmonitor is off.
 * The seal then also leaves LAYER_STATE beside its bundle: a checksum of the layer's listing (each
 * entry's path, type, inode, size and ctime, which no process of the cage can set back; in the
 * directory's order, which changes only when its entries do, and then only seals again). Given the
 * last accepted seal's state as an eighth argument, a seal whose layer is in that same state and
 * whose HEAD is still the commit it was given has nothing new (its files are the ones sealed last):
 * it exits at once, with no git command over the files (a setup or a verify that wrote nothing);
 * so does one whose layer is empty and whose HEAD is the start (the view shows the start's files).
 */
export const SEAL_SCRIPT = [
  'set -u',
  'b=$1 start=$2 out=$3 msg=$4 merge=${5:-} from=${6:-$2} layer=${7:-} was=${8:-}',
  'export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null GIT_TERMINAL_PROMPT=0',
  // A state file the caged command left must not stand for the seal's (no rm when there is none).
  `fsm=false now=; st=\${out%/*}/${LAYER_STATE}`,
  'if [ -e "$st" ] || [ -L "$st" ]; then rm -f "$st"; fi',
  `if [ -n "$layer" ]; then fsm=${shellQuote(layerHook())}`,
  `  if list=$(cd ${LAYER_DIR} && find . -printf '%P %y %i %s %C@\\n'); then now=$(printf '%s' "$list" | cksum); fi`,
  'fi',
  // Every way out with nothing left to seal, or sealed: the layer's state recorded for the next.
  'fin() { if [ -n "$now" ]; then printf "%s\\n" "$now" > "$st"; fi; exit 0; }',
  // The bundle of commit $1 as the task's branch, for an action that has the commits after $1
  // (its prerequisites: $2 and on), as `git bundle create` writes one (gitformat-bundle: v2, or
  // v3 naming sha256), with no ref to move first and no `bundle` process: the header, then one
  // thin pack of what $1 reaches and they do not. The action reads the header itself.
  'bundle() {',
  '  bt=$1; shift',
  '  { if [ ${#bt} -eq 64 ]; then printf "# v3 git bundle\\n@object-format=sha256\\n"; else printf "# v2 git bundle\\n"; fi',
  '    for p in "$@"; do printf "%s\\n" "-$p"; done',
  '    printf "%s refs/heads/%s\\n\\n" "$bt" "$b"',
  '    { printf "%s\\n--not\\n" "$bt"; printf "%s\\n" "$@"; } | g pack-objects --revs --stdout --thin --delta-base-offset -q',
  '  } > "$out" || exit 5',
  '}',
  'g() { git -c core.hooksPath=/dev/null -c core.fsmonitor=false -c submodule.recurse=false -c commit.gpgsign=false -c maintenance.auto=false -c protocol.allow=never "$@"; }',
  // One git process reads what the seal needs to know: the index lock's path, the worker's HEAD
  // (its commit and tree) and the ref HEAD names ("HEAD" when detached).
  "nl='\n'",
  'if r=$(g rev-parse --git-path index.lock "HEAD^{commit}" "HEAD^{tree}" --symbolic-full-name HEAD 2>/dev/null); then',
  '  IFS=$nl; set -f; set -- $r; IFS=" "; lock=$1 head=$2 tree=$3 on=$4',
  'else',
  // No HEAD to read (an orphan, a broken ref): the work starts again from the start commit.
  '  lock=$(g rev-parse --git-path index.lock) || exit 3',
  '  head=$start tree= on=',
  'fi',
  // A worker killed mid-git leaves index.lock: it is gone now, so the lock is stale.
  'if [ -e "$lock" ] || [ -L "$lock" ]; then rm -f "$lock"; fi',
  // The files as the last accepted seal left them, HEAD where it was given: nothing new. So too
  // with an empty layer (its listing is its root alone: every file the start's) on the start.
  'if [ -n "$now" ] && [ -z "$merge" ] && [ "$head" = "$from" ] && [ "$on" = "refs/heads/$b" ]; then',
  '  if [ "$now" = "$was" ] || { [ "$head" = "$start" ] && [ "$list" = "${list%%$nl*}" ]; }; then fin; fi',
  'fi',
  // The worker's work is where its HEAD is (it may have switched branches): the task's branch goes
  // there, and HEAD to the branch (nothing to do when the worker stayed on it).
  'if [ "$on" != "refs/heads/$b" ]; then',
  '  g update-ref "refs/heads/$b" "$head" && g symbolic-ref HEAD "refs/heads/$b" || exit 3',
  'fi',
  // One pass over the files: `add --all` stages everything (an add that fails, a corrupt index,
  // must not read as "nothing to seal": exit 6, work kept); the tree is then compared, not the files.
  // Only `add` looks at the files: it alone asks the layer (the others read no file's stat).
  'g -c core.fsmonitor="$fsm" -c core.fsmonitorHookVersion=2 add --all || exit 6',
  't=$(g write-tree) || exit 4',
  'if [ -n "$merge" ] && [ "$head" = "$from" ]; then',
  '  c=$(g commit-tree "$t" -p "$start" -p "$merge" -m "$msg") || exit 4',
  '  bundle "$c" "$start" "$merge"',
  '  fin',
  'fi',
  'tip=$head',
  '[ -n "$tree" ] || tree=$(g rev-parse "$head^{tree}") || exit 4',
  'if [ "$t" != "$tree" ]; then',
  '  tip=$(g commit-tree "$t" -p "$head" -m "$msg") || exit 4',
  'fi',
  // Nothing new since the start, or since what the action accepted last (the cage's HEAD): no file.
  'if [ "$tip" = "$start" ] || [ "$tip" = "$from" ]; then fin; fi',
  'bundle "$tip" "$start" ${merge:+"$merge"}',
  'fin'
].join('\n')

/** The task's git as the action holds it: the fleet's clone and the task's branch in it. */
export interface TaskGit {
  id: string
  /** The fleet's clone: never a directory a cage can write. */
  repo: Git
  /** Its ref writer (the clone's one, git/ref-writer.ts). */
  refs: RefWriter
  branch: string
  /** The commit the task started from: every sealed commit must descend from it. */
  start: string
  /**
   * A merge turn's base commit: the sealed result must then be one merge commit whose parents are
   * exactly [start, merge] (a fleet PR brought up to date through a conflict, fleet/refresh.ts).
   */
  merge?: string
  /** The task's worktree admin dir in the fleet's clone (or its view's): its index, setup's exclude file. */
  adminDir: string
  /**
   * The task's files as a copy-on-write view of the run's shared checkout (views.ts): every cage
   * of the task mounts it at the task's path, with the same private layer, and nothing else does.
   */
  view?: View
  /** That view held mounted for all the task's cages (views.ts holdView), where the sandbox can. */
  held?: HeldView
  /** A directory of the action's where a refused result is kept as a bundle file. */
  keepDir: string
  author: { name: string; email: string }
  /** The action's commit message for leftovers: `fleet(<id>): <title>`, made inert. */
  message: string
  caps?: SealCaps
  /** Set when a sealed result was refused: the task ends failed with this sentence. */
  refused?: { reason: string; kept?: string }
  /** How many results were sealed so far (names the kept bundle files). */
  seals?: number
  /** The view's layer as the last accepted seal saw it (SEAL_SCRIPT's LAYER_STATE). */
  layerState?: string
  /**
   * The commit the worktree's index is to be reset to before a cage next reads it (readyIndex):
   * set when a seal from a clone of the cage's own is accepted, and left to the next cage, so a
   * task's last seal, which no cage follows, costs no index rewrite on its way to the push.
   */
  indexAt?: string
  /**
   * The branch's head in the fleet's clone, as the action last wrote or read it (acceptedHead):
   * read once, not before and after every seal. Where the cage's git is the clone's (isolation:
   * process), the worker's own commits, or the seal when the worker left the branch, move the
   * ref, so acceptSeal forgets it until it writes it.
   */
  head?: string
}

/** What a caged run needs to seal: where to write, and the command line to run there. */
export interface Seal {
  /** The directory the seal writes its file to (made by the action, empty, for this seal alone). */
  dir: string
  /** The output file on the host (inside a sandbox the same path; a container mounts `dir`). */
  file: string
  /** `sh -c SEAL_SCRIPT seal <branch> <start> <file> <message> <merge> <cage's HEAD> <layer>`. */
  command: string[]
  env: Record<string, string>
}

/** Where a seal runs: what its cage mounts elsewhere, what it shows. */
export interface SealPlace {
  /** The cage sees the seal's output directory at this path (a container's mount). */
  inside?: string
  /** The cage shows the task's view's layer at LAYER_DIR (SEAL_SCRIPT's seventh argument). */
  layer?: boolean
}

/**
 * A fresh, empty output directory of the action's under `under`, and the seal's command line
 * writing into it.
 */
export async function openSeal(
  t: TaskGit,
  under: string,
  { inside, layer = false }: SealPlace = {}
): Promise<Seal> {
  // At once, not through the thread pool: one small directory of the action's.
  mkdirSync(under, { recursive: true })
  const dir = mkdtempSync(path.join(under, 'seal-'))
  const file = path.join(dir, SEALED_FILE)
  const out = path.join(inside ?? dir, SEALED_FILE)
  const { name, email } = t.author
  return {
    dir,
    file,
    command: [
      'sh',
      '-c',
      SEAL_SCRIPT,
      'fleet-seal',
      t.branch,
      t.start,
      out,
      t.message,
      t.merge ?? '',
      await acceptedHead(t),
      layer ? 'layer' : '',
      (layer && t.layerState) || ''
    ],
    env: {
      PATH: '/usr/local/bin:/usr/bin:/bin',
      GIT_AUTHOR_NAME: name,
      GIT_AUTHOR_EMAIL: email,
      GIT_COMMITTER_NAME: name,
      GIT_COMMITTER_EMAIL: email
    }
  }
}

/** What the seal run after a caged command leaves beside its bundle: its exit status, its stderr. */
export const SEAL_STATUS = 'sealed'
export const SEAL_LOG = 'seal.log'

/**
 * A caged command and its seal in one cage start (the sandbox): this `sh` runs the command, then
 * kills every other process of the cage's PID namespace (its init, bwrap's, excepted) and waits
 * until none is left alive, so nothing the command left behind writes a file while the seal reads
 * the tree; then it runs the seal with a clean environment and no input, writes the seal's exit
 * status to SEAL_STATUS and its stderr to SEAL_LOG, and exits with the command's own status.
 * Constant text: the seal's script and arguments come first (twelve), then the command.
 *
 * Nothing here is trusted more than before: the command could have written the seal's directory
 * itself, and a hostile repository config already ran its own code inside the seal. The action
 * reads only the files (no symlink followed, sizes capped) and checks the bundle (git/sealed.ts).
 * When no status is left (the command was killed, or the kill never ended: then this `sh` removes
 * any status the command wrote) the action seals in a second cage start instead; when the action
 * killed the cage itself it reads no status at all (cage/sandbox-run.ts).
 */
export const SEAL_AFTER = [
  's=$1 b=$2 start=$3 out=$4 msg=$5 merge=$6 from=$7 an=$8 ae=$9 home=${10} layer=${11} was=${12}; shift 12',
  '"$@"',
  'rc=$?',
  'kill -KILL -1 2>/dev/null',
  'n=0',
  'while [ $n -lt 2000 ]; do',
  '  live=',
  '  for p in /proc/[0-9]*; do',
  '    p=${p#/proc/}',
  '    if [ "$p" = 1 ] || [ "$p" = $$ ]; then continue; fi',
  '    st=; read -r st 2>/dev/null </proc/$p/stat || continue',
  // The state follows the last ") " (a command name may hold one): Z is a zombie, already gone.
  '    case ${st##*) } in Z*) ;; *) live=1 ;; esac',
  '  done',
  '  [ -z "$live" ] && break',
  '  kill -KILL -1 2>/dev/null',
  '  n=$((n+1))',
  'done',
  'if [ -z "$live" ]; then',
  // Its own session, so its own scheduling group: not the one the command below lowered.
  '  ss=; command -v setsid >/dev/null 2>&1 && ss=setsid',
  '  $ss env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$home" TMPDIR="$home" GIT_AUTHOR_NAME="$an" GIT_AUTHOR_EMAIL="$ae" GIT_COMMITTER_NAME="$an" GIT_COMMITTER_EMAIL="$ae" sh -c "$s" fleet-seal "$b" "$start" "$out" "$msg" "$merge" "$from" "$layer" "$was" </dev/null >/dev/null 2>"${out%/*}/seal.log"',
  '  echo $? >"${out%/*}/sealed"',
  // Not sealed: a status the command wrote must not stand for one (the action seals again).
  'else rm -f "${out%/*}/sealed"',
  'fi',
  'exit $rc'
].join('\n')

/**
 * `command` followed by `seal` in the same cage (SEAL_AFTER): the argv to run there. `home` is the
 * seal's HOME and TMPDIR (the cage's own directory).
 */
export function sealAfter(seal: Seal, home: string, command: string[]): string[] {
  const [
    ,
    ,
    script = '',
    ,
    b = '',
    start = '',
    out = '',
    msg = '',
    merge = '',
    from = '',
    layer = '',
    was = ''
  ] = seal.command
  const { GIT_AUTHOR_NAME: an = '', GIT_AUTHOR_EMAIL: ae = '' } = seal.env
  return [
    'sh',
    '-c',
    SEAL_AFTER,
    'fleet-exit',
    script,
    b,
    start,
    out,
    msg,
    merge,
    from,
    an,
    ae,
    home,
    layer,
    was,
    ...command
  ]
}

/** A small file of the seal's directory (cage-file.ts), its tail past `max`; undefined if unreadable. */
function readSmall(file: string, max: number): string | undefined {
  try {
    return readCageFile(file, max, { tail: true })
  } catch {
    return undefined
  }
}

/** The layer's state the seal left (a `cksum` line), or undefined. */
function layerStateOf(seal: Seal): string | undefined {
  const state = readSmall(path.join(seal.dir, LAYER_STATE), 64)?.trim()
  return state && /^\d+ \d+$/.test(state) ? state : undefined
}

/**
 * How the seal run after the command (SEAL_AFTER) ended, from the files it left; undefined when
 * it left no status: it never ran, and the task is sealed in a second cage start instead.
 */
export function sealedAfter(seal: Seal): SealRun | undefined {
  const status = readSmall(path.join(seal.dir, SEAL_STATUS), 16)
  const code = /^(\d{1,3})\n?$/.exec(status ?? '')?.[1]
  if (code === undefined) return undefined
  const tail = readSmall(path.join(seal.dir, SEAL_LOG), 2000) ?? ''
  return { exitCode: Number(code), tail }
}

/** A seal is a few git commands on one task's files: minutes mean something is wrong. */
export const SEAL_TIMEOUT_MS = 5 * 60_000

/**
 * isolation: process has no cage (docs/sandbox.md): the same seal and check, the seal run as a
 * plain child in the task's worktree, so the three isolations share one exit. Its git is told the
 * worktree's git dir (the action's, read when it made the worktree): a `.git` the worker rewrote
 * is never followed.
 */
export async function sealAsChild(t: TaskGit, cwd: string): Promise<void> {
  const seal = await openSeal(t, t.keepDir)
  const [file = 'sh', ...args] = seal.command
  const env = {
    ...seal.env,
    GIT_DIR: t.adminDir,
    GIT_WORK_TREE: cwd,
    GIT_CEILING_DIRECTORIES: path.dirname(cwd)
  }
  const ran = await runVerify('seal', cwd, env, SEAL_TIMEOUT_MS, { file, args })
  await acceptSeal(t, seal, ran, { ownIndex: true })
}

/** How the caged seal run ended. */
export interface SealRun {
  exitCode: number | null
  tail: string
}

function refuse(t: TaskGit, reason: string, kept?: string): void {
  const where = kept ? `; its work is kept in ${kept} (git bundle), not pushed` : ''
  t.refused ??= { reason: `${reason}${where}`, kept }
}

/**
 * The action's side: the seal's file read as bytes into keepDir, checked in the fleet's clone,
 * the worker's commit messages made inert, and the task's branch moved to it (with the worktree's
 * index, so the next caged run starts from it). A refusal is recorded on `t`, never thrown.
 * `ownIndex`: the seal staged into the task's own index (sealAsChild), whose `add --all` left it
 * at the sealed tree, the tree of the accepted head: it is not read again.
 */
export async function acceptSeal(
  t: TaskGit,
  seal: Seal,
  ran: SealRun,
  { ownIndex = false } = {}
): Promise<void> {
  // The layer's state stands for the next seal only once this one is accepted (or had nothing new).
  t.layerState = undefined
  // Where the cage's git is the clone's (sealAsChild), the worker may have moved the branch
  // itself: read again unless the ref is written below.
  t.head = undefined
  // The seal's directory goes once its files are read: beside the check, not after it.
  const clear = once(() => removeTree(seal.dir))
  try {
    if (ran.exitCode !== 0) {
      const tail = ran.tail.trim().split('\n').slice(-3).join(' ')
      return refuse(
        t,
        `the task's work could not be sealed in its cage (exit ${ran.exitCode}${tail ? `: ${tail}` : ''})`
      )
    }
    const caps = t.caps ?? DEFAULT_CAPS
    t.seals = (t.seals ?? 0) + 1
    const copy = path.join(t.keepDir, `${t.id}.${t.seals}.bundle`)
    const file = await readSealed(seal.file, copy, caps.maxBytes).catch((error: unknown) => {
      refuse(t, describeError(error))
      return undefined
    })
    const state = layerStateOf(seal)
    void clear()
    if (!file) {
      if (!t.refused) t.layerState = state
      return
    }
    const checked = await checkSealed(t.repo, file, {
      branch: t.branch,
      start: t.start,
      merge: t.merge,
      caps
    })
    if (checked.kind === 'refused') return refuse(t, checked.reason, file)
    const head = t.merge
      ? await remadeMerge(t, t.merge, checked.head)
      : await rewriteMessages(t.repo, t.start, checked.head, inertCommitMessage, checked.history)
    await moveBranch(t, head, ownIndex)
    discardSealed(file)
    t.layerState = state
  } finally {
    await clear()
  }
}

/**
 * The task's branch at an accepted `head`; the worktree's index follows it before the next cage
 * reads it (readyIndex). An index the seal itself staged (`indexed`) already holds head's tree:
 * the message rewrite and the merge made again keep the sealed tree.
 */
async function moveBranch(t: TaskGit, head: string, indexed: boolean): Promise<void> {
  await t.refs.set([{ ref: `refs/heads/${t.branch}`, sha: head }])
  t.head = head
  t.indexAt = indexed ? undefined : head
}

/**
 * The worktree's index at the accepted head, where a seal left that to the next cage (indexAt):
 * called before a cage copies it. No work tree involved. `--reset -i`: entries the commit did not
 * change keep their stat data, so the next cage's git does not read every file again (on a big
 * repository, that is most of a task's start); unlike `-m`, it also takes an index a merge turn
 * left unmerged (the sealed merge resolves it).
 */
export async function readyIndex(t: TaskGit): Promise<void> {
  const head = t.indexAt
  if (head === undefined) return
  await t.repo.exec(
    // A view's index keeps its fsmonitor marks for the entries the commit did not change.
    [...(t.view?.fsmonitor ? HOST_FSMONITOR : []), 'read-tree', '--reset', '-i', head],
    { env: { GIT_INDEX_FILE: path.join(t.adminDir, 'index') } }
  )
  if (t.indexAt === head) t.indexAt = undefined
}

/** `make` called once, on the first call; its promise handled at once (awaited by the caller). */
function once(make: () => Promise<void>): () => Promise<void> {
  let made: Promise<void> | undefined
  return () => {
    if (!made) {
      made = make()
      made.catch(() => undefined)
    }
    return made
  }
}

/**
 * The checked merge made again by the action: the worker's tree, the two recorded parents, the
 * action's message and identity. Nothing of the cage's commit object but its tree is kept.
 */
async function remadeMerge(t: TaskGit, merge: string, sealed: string): Promise<string> {
  const tree = await t.repo.out(['rev-parse', `${sealed}^{tree}`])
  const { name, email } = t.author
  const made = await t.repo.exec(
    ['commit-tree', tree, '-p', t.start, '-p', merge, '-m', t.message],
    {
      env: {
        GIT_AUTHOR_NAME: name,
        GIT_AUTHOR_EMAIL: email,
        GIT_COMMITTER_NAME: name,
        GIT_COMMITTER_EMAIL: email
      }
    }
  )
  return made.stdout.trim()
}

/** The task's branch as accepted so far. */
export async function acceptedHead(t: TaskGit): Promise<string> {
  t.head ??= await t.repo.out(['rev-parse', `refs/heads/${t.branch}`])
  return t.head
}
