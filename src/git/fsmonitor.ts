/**
 * What changed in a task's view, told to git by the view itself (docs/performance.md, "The
 * view's layer as git's file monitor"). An overlay puts every change a cage makes into the view's
 * private upper layer: a written file (copied up), a removal (a whiteout), a directory removed
 * and made again (an opaque directory). So the run's base index is refreshed once with git's
 * fsmonitor extension, every entry marked unchanged (markUnchanged), and a cage that is shown its
 * layer read-only at LAYER_DIR gives its git (the worker's own, the seal's) `layerHook` as
 * `core.fsmonitor`: git then looks at the layer's paths alone instead of every file of the
 * checkout (at 100,000 files, about half of a `git add --all` or a `git status`).
 *
 * The hook is git's own protocol (version 2: a token, then the paths that may have changed), and
 * it names a superset: every path the layer holds, a removed one also as a directory, and every
 * directory of the layer through which nothing of the checkout shows (an opaque or new one) with
 * a trailing `/`, so git looks at all of it. A directory the checkout shows through is one git
 * looks into only for the paths named below it. Where the hook cannot answer (no layer, another
 * protocol version) it fails, and git looks at every file, as without it.
 */
import path from 'node:path'
import type { Git } from './git.js'

/** Where a cage shows its view's private layer, read-only (cage/sandbox.ts). */
export const LAYER_DIR = '/run/fleet/layer'

/** `'text'` as one shell word. */
export const shellQuote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`

/**
 * For each directory of the layer (arguments), run from the view's root: named with a trailing
 * `/` unless some entry of the view there is not in the layer (then the checkout shows through,
 * and the paths below it are named one by one). Globs and tests only: no process per directory.
 */
const DIRECTORIES =
  'L=$1; shift; for p; do d=${p#"$L"/}; ' +
  'for e in "$d"/* "$d"/.[!.]* "$d"/..?*; do ' +
  'if { [ -e "$e" ] || [ -L "$e" ]; } && ! { [ -e "$L/$e" ] || [ -L "$L/$e" ]; }; then continue 2; fi; ' +
  'done; printf "%s/\\0" "$d"; done'

/**
 * The `core.fsmonitor` hook (git runs it through `sh` in the work tree's root, adding the
 * protocol version and the last token) for a view whose private layer is shown at `layer`.
 * One line: it also goes in a git config file.
 */
export function layerHook(layer = LAYER_DIR): string {
  const find = [
    'find "$L" -mindepth 1',
    `\\( -type d -exec sh -c ${shellQuote(DIRECTORIES)} fleet-layer "$L" {} + \\)`,
    // A whiteout (a character device) may stand for a removed directory: its path both ways.
    "-o \\( -type c -printf '%P\\0%P/\\0' \\)",
    "-o -printf '%P\\0'"
  ].join(' ')
  return `fleet_layer() { [ "$1" = 2 ] && L=${shellQuote(layer)} && [ -d "$L" ] && printf 'fleet\\0' && ${find}; }; fleet_layer`
}

/** The host's hook while it writes a view's index: nothing changed (the files are the checkout's). */
export const UNCHANGED_HOOK = "fleet_unchanged() { printf 'fleet\\0'; }; fleet_unchanged"

/** git's options for a command that reads or writes a view's index on the host, keeping its marks. */
export const HOST_FSMONITOR = [
  '-c',
  `core.fsmonitor=${UNCHANGED_HOOK}`,
  '-c',
  'core.fsmonitorHookVersion=2'
]

/** A git config file's value, quoted: `\` and `"` escaped. */
const configValue = (text: string) => `"${text.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`

/** The lines a cage's clone's config gets so its git asks the layer shown at LAYER_DIR. */
export function layerConfig(layer = LAYER_DIR): string {
  return `[core]\n\tfsmonitor = ${configValue(layerHook(layer))}\n\tfsmonitorHookVersion = 2\n`
}

/**
 * Refreshes `index` (the base of a run's views, its files at `dir`) once with git's fsmonitor
 * extension, every entry whose file matches marked unchanged: true when it was written so. `git`
 * is the fleet's clone, whose git dir and hardened config are used (never the checkout's). A
 * failure leaves the index as it was, and the views work without (false).
 */
export async function markUnchanged(git: Git, dir: string, index: string): Promise<boolean> {
  const tree = git.tree(dir, path.join(git.dir, '.git'))
  const ran = await tree.exec([...HOST_FSMONITOR, 'update-index', '-q', '--refresh'], {
    env: { GIT_INDEX_FILE: index },
    allowFailure: true
  })
  return ran.exitCode === 0
}
