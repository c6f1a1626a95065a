/**
 * The runner's workflow commands the action gives: log lines, a mask, a group, outputs, the job
 * summary and the step's failure, written as GitHub documents them ("Workflow commands for GitHub
 * Actions") and as `@actions/core` writes them. Not that package: its entry module loads its OIDC
 * client, whose HTTP stack (undici, a quarter of the bundle) every start then compiled before the
 * first worker (docs/decisions/0011-the-actions-workflow-commands-written-directly.md).
 */
import { randomUUID } from 'node:crypto'
import { appendFileSync, existsSync } from 'node:fs'
import { appendFile, access, constants } from 'node:fs/promises'
import { EOL } from 'node:os'

/** A command's data: `%`, CR and LF escaped, as the runner reads them back. */
function escapeData(s: string): string {
  return s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A')
}

/** A command's property value: also `:` and `,`, which separate properties. */
function escapeProperty(s: string): string {
  return escapeData(s).replace(/:/g, '%3A').replace(/,/g, '%2C')
}

function command(name: string, message: string, props: Record<string, string> = {}): void {
  const listed = Object.entries(props)
    .map(([k, v]) => `${k}=${escapeProperty(v)}`)
    .join(',')
  process.stdout.write(`::${name}${listed ? ` ${listed}` : ''}::${escapeData(message)}${EOL}`)
}

export const info = (message: string): void => void process.stdout.write(`${message}${EOL}`)
export const warning = (message: string): void => command('warning', message)
export const error = (message: string): void => command('error', message)
/** The runner masks `secret` in every later line of the log. */
export const setSecret = (secret: string): void => command('add-mask', secret)

/** A step output: a heredoc in $GITHUB_OUTPUT, its delimiter random and absent from the value. */
export function setOutput(name: string, value: string): void {
  const file = process.env.GITHUB_OUTPUT
  if (!file) {
    process.stdout.write(EOL)
    command('set-output', value, { name })
    return
  }
  if (!existsSync(file)) throw new Error(`Missing file at path: ${file}`)
  const delimiter = `ghadelimiter_${randomUUID()}`
  if (name.includes(delimiter) || value.includes(delimiter))
    throw new Error(`Unexpected input: the output ${name} holds its own delimiter`)
  appendFileSync(file, `${name}<<${delimiter}${EOL}${value}${EOL}${delimiter}${EOL}`, 'utf8')
}

/** `fn` inside a foldable group of the log. */
export async function group<T>(name: string, fn: () => Promise<T>): Promise<T> {
  command('group', name)
  try {
    return await fn()
  } finally {
    command('endgroup', '')
  }
}

/** Appends Markdown to the job summary ($GITHUB_STEP_SUMMARY). */
export async function appendSummary(markdown: string): Promise<void> {
  const file = process.env.GITHUB_STEP_SUMMARY
  if (!file)
    throw new Error(
      'Unable to find environment variable for $GITHUB_STEP_SUMMARY. Check if your runtime environment supports job summaries.'
    )
  await access(file, constants.R_OK | constants.W_OK).catch(() => {
    throw new Error(
      `Unable to access summary file: '${file}'. Check if the file has correct read/write permissions.`
    )
  })
  await appendFile(file, markdown, 'utf8')
}

/** The step fails (exit code 1) with `message` as its error. */
export function setFailed(message: string): void {
  process.exitCode = 1
  error(message)
}
