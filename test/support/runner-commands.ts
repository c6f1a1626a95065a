/**
 * The workflow commands the Actions runner would act on in a step's output, read as its
 * ActionCommandManager reads them: lines split on `\r\n`, `\r` or `\n`; a line whose first
 * non-blank characters are `::` is a command `::name props::data`; a line holding `##[` anywhere
 * is an old-style one `##[name props]data`; after `::stop-commands::TOKEN` nothing is a command
 * until a line `::TOKEN::` (names compared without regard to case). Unlike the runner, it reports
 * any name, registered or not: a test should fail on an attempt, not on a name the runner lacks.
 */
export interface RunnerCommand {
  name: string
  data: string
}

function parse(line: string): RunnerCommand | undefined {
  const trimmed = line.trimStart()
  if (trimmed.startsWith('::')) {
    const end = trimmed.indexOf('::', 2)
    if (end < 0) return undefined
    const name = trimmed.slice(2, end).split(' ')[0] ?? ''
    return name ? { name, data: trimmed.slice(end + 2) } : undefined
  }
  const start = line.indexOf('##[')
  if (start < 0) return undefined
  const close = line.indexOf(']', start)
  if (close < 0) return undefined
  const name = line.slice(start + 3, close).split(/[ ;]/)[0] ?? ''
  return name ? { name, data: line.slice(close + 1) } : undefined
}

/** Every command the runner would act on in `output`, in order (a fence's own two included). */
export function runnerCommands(output: string): RunnerCommand[] {
  const acted: RunnerCommand[] = []
  let stopToken: string | undefined
  for (const line of output.split(/\r\n|\r|\n/)) {
    const command = parse(line)
    if (!command) continue
    if (stopToken !== undefined) {
      if (command.name.toLowerCase() !== stopToken.toLowerCase()) continue
      stopToken = undefined
    } else if (command.name === 'stop-commands') {
      stopToken = command.data
    }
    acted.push(command)
  }
  return acted
}
