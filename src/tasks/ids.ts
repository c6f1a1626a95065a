import { createHash } from 'node:crypto'

/** docs/contract.md: a task id is `[a-z0-9][a-z0-9._-]{0,62}`; git's ref rules add no `..`, no trailing `.` or `.lock`. */
const ID = /^[a-z0-9][a-z0-9._-]{0,62}$/

/** The branch a task works on: the one place `branch-prefix` and the id are put together. */
export function branchFor(prefix: string, id: string): string {
  return `${prefix}${id}`
}

export function idProblem(id: string): string | undefined {
  if (!ID.test(id))
    return `'${id}' is not a valid id: use 1-63 of a-z 0-9 . _ - starting with a letter or digit`
  if (id.includes('..') || id.endsWith('.') || id.endsWith('.lock')) {
    return `'${id}' is not a valid id: it may not contain '..' or end with '.' or '.lock'`
  }
  return undefined
}

/** The same prompt always gets the same id: a slug of its first words plus 6 hex of its hash. */
export function idFromPrompt(prompt: string): string {
  const hash = createHash('sha256').update(prompt).digest('hex').slice(0, 6)
  const words = prompt
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9\s]+/g, ' ')
    .split(/\s+/)
    .filter(Boolean)
    .slice(0, 6)
  let slug = ''
  for (const word of words) {
    const next = slug ? `${slug}-${word}` : word
    if (next.length > 40) break
    slug = next
  }
  return slug ? `${slug.slice(0, 40)}-${hash}` : `task-${hash}`
}

export function validateBranchPrefix(prefix: string): string | undefined {
  const ok =
    /^[A-Za-z0-9][A-Za-z0-9._/-]{0,99}$/.test(prefix) &&
    !prefix.includes('..') &&
    !prefix.includes('//') &&
    !/\.lock(\/|$)/.test(prefix) &&
    !/\/\./.test(prefix)
  return ok
    ? undefined
    : `expected a ref prefix such as 'fleet/' (letters, digits, . _ - /, no '..'), got '${prefix}'`
}
