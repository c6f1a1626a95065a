// Small pieces the unit files shared as copies: a task from the `tasks` input, the runner's
// environment for some inputs and the InputError they give, and the TypeScript files of a tree.
import { readdirSync } from 'node:fs'
import path from 'node:path'
import { expect } from 'vitest'
import { InputError, parseConfig } from '../../src/config.js'
import type { Task } from '../../src/domain.js'
import type { EventSettings } from '../../src/event.js'
import { inputEnvName } from '../../src/inputs.js'
import { issueComment } from './events.js'

/** A task from the `tasks` input whose id, title and prompt are all `id`. */
export const inputTask = (id: string): Task => ({
  id,
  title: id,
  prompt: id,
  branch: `fleet/${id}`,
  source: { kind: 'input' }
})

/** The environment the runner would give for these inputs. */
export function inputsEnv(inputs: Record<string, string> = {}): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(inputs).map(([k, v]) => [inputEnvName(k), v]))
}

/** The InputError parseConfig throws for these inputs (fails the test if it does not throw one). */
export function inputError(inputs: Record<string, string>): InputError {
  try {
    parseConfig(inputsEnv(inputs))
  } catch (error) {
    expect(error).toBeInstanceOf(InputError)
    return error as InputError
  }
  throw new Error(`parseConfig accepted ${JSON.stringify(inputs)}`)
}

/** Every .ts file below `dir`. */
export function tsSources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap(e =>
    e.isDirectory()
      ? tsSources(path.join(dir, e.name))
      : e.name.endsWith('.ts')
        ? [path.join(dir, e.name)]
        : []
  )
}

/** What readEvent is told in the event tests: no `tasks` input, `/fleet`, the `fleet` label. */
export const EVENT_SETTINGS: EventSettings = {
  hasTasks: false,
  triggerPhrase: '/fleet',
  queueLabel: 'fleet'
}
export const APP_REPO = { owner: 'acme', repo: 'app' }

/** The maintainer's comment 555 `body` on issue 12, "Login is broken", then `over`. */
export const loginComment = (
  body: string,
  over: Partial<Parameters<typeof issueComment>[0]> = {}
) =>
  issueComment({
    ...APP_REPO,
    issueNumber: 12,
    issueTitle: 'Login is broken',
    issueBody: '- [ ] fix login\n- [ ] add a test',
    commentBody: body,
    commenter: 'maintainer',
    commentId: 555,
    ...over
  })
