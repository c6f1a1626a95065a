import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { type Config, InputError } from '../config.js'
import { parseTasks, TaskListError } from './parse.js'
import type { Task } from './task.js'

/** Tasks from the `tasks` input and the `tasks-file` input, in that order. */
export async function tasksFromInputs(config: Config, workspace: string): Promise<Task[]> {
  const tasks: Task[] = []
  try {
    tasks.push(...parseTasks(config.tasks, "Input 'tasks'", config.branchPrefix))
  } catch (error) {
    if (error instanceof TaskListError)
      throw new InputError('tasks', error.message.replace("Input 'tasks': ", ''), { cause: error })
    throw error
  }
  if (config.tasksFile) {
    const file = path.resolve(workspace, config.tasksFile)
    if (path.relative(workspace, file).startsWith('..')) {
      throw new InputError(
        'tasks-file',
        `'${config.tasksFile}' is outside the workspace; give a path inside the repository`
      )
    }
    const text = await readFile(file, 'utf8').catch((error: unknown) => {
      throw new InputError(
        'tasks-file',
        `cannot read '${config.tasksFile}': ${(error as Error).message}`,
        { cause: error }
      )
    })
    try {
      tasks.push(
        ...parseTasks(text, `tasks-file '${config.tasksFile}'`, config.branchPrefix, { list: true })
      )
    } catch (error) {
      if (error instanceof TaskListError)
        throw new InputError('tasks-file', error.message, { cause: error })
      throw error
    }
  }
  const ids = new Set<string>()
  for (const t of tasks) {
    if (ids.has(t.id))
      throw new InputError(
        'tasks',
        `two tasks have the id '${t.id}' (across tasks and tasks-file); ids must be unique`
      )
    ids.add(t.id)
  }
  return tasks
}
