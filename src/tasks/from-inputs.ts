import { readFile } from 'node:fs/promises'
import { InputError } from '../errors.js'
import { realInsideWorkspace } from '../workspace.js'
import { assertUniqueIds, parseTasks, TaskListError } from './parse.js'
import type { Task } from '../domain.js'

/** A task list error, as an error of the input it came from. */
function asInput<T>(input: string, prefix: string, parse: () => T): T {
  try {
    return parse()
  } catch (error) {
    if (error instanceof TaskListError) {
      throw new InputError(input, error.message.replace(prefix, ''), { cause: error })
    }
    throw error
  }
}

/** Tasks from the `tasks` input and the `tasks-file` input, in that order. */
export async function tasksFromInputs(
  config: { tasks: string; tasksFile?: string; branchPrefix: string },
  workspace: string
): Promise<Task[]> {
  const tasks = asInput('tasks', "Input 'tasks': ", () =>
    parseTasks(config.tasks, "Input 'tasks'", config.branchPrefix)
  )
  if (config.tasksFile) {
    const file = await realInsideWorkspace(workspace, config.tasksFile)
    if (!file) {
      throw new InputError(
        'tasks-file',
        `'${config.tasksFile}' is outside the workspace (symbolic links are followed); give a path inside the repository`
      )
    }
    const text = await readFile(file, 'utf8').catch((error: unknown) => {
      throw new InputError(
        'tasks-file',
        `cannot read '${config.tasksFile}': ${(error as Error).message}`,
        { cause: error }
      )
    })
    const source = `tasks-file '${config.tasksFile}'`
    tasks.push(
      ...asInput('tasks-file', '', () =>
        parseTasks(text, source, config.branchPrefix, { list: true })
      )
    )
  }
  asInput('tasks', '', () => assertUniqueIds(tasks, "'tasks' and 'tasks-file' together"))
  return tasks
}
