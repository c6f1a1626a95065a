/**
 * A task's own commands (its worker, setup and verify) run below the action: the action's steps
 * on each task's way out (the seal, its check, the push, the PR) and the gateway every worker
 * talks through never wait in line behind the workers' CPU. Linux weighs CPU between groups before
 * processes: where it groups processes by session (autogroup: on by default, and in force for a
 * process in the root CPU cgroup), each worker leads a session of its own, whose group competes
 * with the action's as one whatever its processes' nice; with twelve workers the action and all
 * its git got a thirteenth of the CPU (docs/performance.md). So both are lowered: the session's
 * group, and the nice value every process of the command inherits. Lowering one's own priority
 * needs no privilege; raising it back does, so a worker cannot undo it (it can start a session of
 * its own, whose group is then as any other: no worse than before).
 */

/** The nice value of a task's own commands (0 is the action's; 19 the lowest). */
export const TASK_NICE = 19

/**
 * `sh` lowering its session's group and then its own nice, then becoming the command. The group's
 * change is made in the background, not waited for: the kernel takes one such change a tenth of a
 * second from an unprivileged process, machine-wide, and says EAGAIN to the rest, so it is retried
 * (for three seconds) while the command already runs. With `every` (a PID namespace of the task's
 * own: the sandbox), each session the command's processes start later is lowered too, twice a
 * second while the command lives: the worker CLI runs each tool's shell in a session of its own
 * (measured: test/e2e/priority.test.ts), whose group would otherwise start at the action's level.
 * Where the kernel has no autogroup the file is missing and only the nice value applies. Constant
 * text: the nice value, `every` (1 or 0) and the command are its arguments.
 */
export const BELOW_SCRIPT = [
  'n=$1 every=$2; shift 2',
  'if [ -e /proc/self/autogroup ]; then',
  '  {',
  '    t=0; until { echo "$n" >/proc/self/autogroup; } 2>/dev/null || [ $t -ge 30 ]; do t=$((t+1)); sleep 0.1; done',
  '    while [ "$every" = 1 ] && kill -0 $$ 2>/dev/null; do',
  '      for p in /proc/[0-9]*; do',
  '        g=; read -r g <"$p/autogroup" 2>/dev/null || continue',
  '        case $g in *" nice $n") ;; *) { echo "$n" >"$p/autogroup"; } 2>/dev/null ;; esac',
  '      done',
  '      sleep 0.5',
  '    done',
  '  } </dev/null >/dev/null 2>&1 &',
  'fi',
  'exec nice -n "$n" "$@"'
].join('\n')

/**
 * The argv that runs `command` below the action; `every`: lower each session it starts too (only
 * where every process in /proc is the task's own: a PID namespace of its own).
 */
export function below(command: readonly string[], opts: { every?: boolean } = {}): string[] {
  const every = opts.every ? '1' : '0'
  return ['sh', '-c', BELOW_SCRIPT, 'fleet-below', String(TASK_NICE), every, ...command]
}
