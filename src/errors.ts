import { inspect } from 'node:util'

/**
 * An error as one line for a log or an outcome, causes included: `message (cause: message ...)`.
 * Catch blocks that kept only `error.message` lost the why (a GitError's stderr, a fetch's code).
 */
export function describeError(error: unknown): string {
  const parts: string[] = []
  let current: unknown = error
  for (let depth = 0; current !== undefined && current !== null && depth < 5; depth++) {
    parts.push(
      current instanceof Error
        ? current.message
        : typeof current === 'string'
          ? current
          : inspect(current)
    )
    current = current instanceof Error ? current.cause : undefined
  }
  return parts.join(' (cause: ') + ')'.repeat(Math.max(0, parts.length - 1))
}

/** An input the user got wrong: the message names the input and the form that would be right. */
export class InputError extends Error {
  constructor(
    readonly input: string,
    message: string,
    options?: ErrorOptions
  ) {
    super(`Input '${input}': ${message}`, options)
    this.name = 'InputError'
  }
}
