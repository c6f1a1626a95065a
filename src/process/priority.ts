/**
 * A task's own commands (its worker, setup and verify) run below the action: the action's steps
 * on each task's way out (the seal, its check, the push, the PR) and the gateway every worker
 * talks through never wait in line behind the workers' CPU. Linux weighs CPU between groups before
 * processes: where it groups processes by session (autogroup: on by default, and in force for a
 * process in the root CPU cgroup), each worker leads a session of its own, whose group competes
 * with the action's as one whatever its processes' nice; with twelve workers the action and all
 * its git got a thirteenth of the CPU (docs/performance.md). So both are lowered: the nice value
 * every process of the command inherits, and the group of its session and of each session its
 * direct children start (the worker CLI starts every tool's shell in a session of its own). Lowering
 * one's own priority needs no privilege; raising it back does, so a worker cannot undo it (a
 * process that starts a session of its own further down keeps nice 19 and gets a group as any
 * other: no worse than before). The kernel takes one group change a tenth of a second from an
 * unprivileged process, machine-wide, and says EAGAIN to the rest: a change refused is made again
 * on the next look.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'

/** The nice value of a task's own commands (0 is the action's; 19 the lowest). */
export const TASK_NICE = 19

/** How often the groups of a command's new sessions are looked at, in ms. */
const LOOK_MS = 500

/** `command` at the task's nice value: the argv that runs it (the host's `nice`). */
export function below(command: readonly string[]): string[] {
  return ['nice', '-n', String(TASK_NICE), ...command]
}

/**
 * Lowers the group of the session `pid` leads, and of each session its direct children lead,
 * now and every LOOK_MS until `end` settles. For a command started by the action (isolation:
 * process), whose pid the action holds: the reads are a few small /proc files, no process.
 */
export function lowerGroups(pid: number | undefined, end: Promise<unknown>): void {
  if (pid === undefined) return
  const look = () => [pid, ...childrenOf(pid)].forEach(lowerGroup)
  look()
  const timer = setInterval(look, LOOK_MS)
  timer.unref()
  void end.finally(() => clearInterval(timer))
}

/** The group of `pid`'s session at TASK_NICE; nothing when it is already, gone, or refused. */
function lowerGroup(pid: number): void {
  const file = `/proc/${pid}/autogroup`
  try {
    if (!readFileSync(file, 'latin1').trimEnd().endsWith(` nice ${TASK_NICE}`))
      writeFileSync(file, String(TASK_NICE))
  } catch {
    // No autogroup here, the process is gone, or EAGAIN: the next look tries again.
  }
}

/** The pids of `pid`'s direct children (/proc/<pid>/task/<tid>/children), [] when unreadable. */
function childrenOf(pid: number): number[] {
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap(tid =>
      readFileSync(`/proc/${pid}/task/${tid}/children`, 'latin1')
        .split(' ')
        .filter(Boolean)
        .map(Number)
    )
  } catch {
    return []
  }
}

/**
 * The same inside the sandbox, where the action does not hold the command's pid: `sh` as the
 * cage's command, starting a watcher and then becoming the command at TASK_NICE. The cage's PID
 * namespace holds only the task's processes, so the watcher lowers every group in its /proc not
 * yet lowered, its own session's first, every half second while the command lives; it dies with
 * the cage (or by the seal's kill of everything else before it runs: worker/exit.ts SEAL_AFTER).
 * Where the kernel has no autogroup the file is missing and only the nice value applies. Constant
 * text: the nice value and the command are its arguments.
 */
export const BELOW_IN_CAGE = [
  'n=$1; shift',
  'if [ -e /proc/self/autogroup ]; then',
  '  {',
  '    while kill -0 $$ 2>/dev/null; do',
  '      for p in /proc/self /proc/[0-9]*; do',
  '        g=; read -r g <"$p/autogroup" 2>/dev/null || continue',
  '        case $g in *" nice $n") ;; *) { echo "$n" >"$p/autogroup"; } 2>/dev/null ;; esac',
  '      done',
  '      sleep 0.5',
  '    done',
  '  } </dev/null >/dev/null 2>&1 &',
  'fi',
  'exec nice -n "$n" "$@"'
].join('\n')

/** The argv that runs `command` in the cage below the action (BELOW_IN_CAGE). */
export function belowInCage(command: readonly string[]): string[] {
  return ['sh', '-c', BELOW_IN_CAGE, 'fleet-below', String(TASK_NICE), ...command]
}
