/** Where a task came from: decides its id, its PR's "Refs #N" and the issue it reports to. */
export type TaskSource =
  | { kind: 'input' }
  | { kind: 'issue'; issue: number; item?: number }
  | { kind: 'follow-up'; pr: number; issue?: number }

export interface Task {
  id: string
  prompt: string
  title: string
  branch: string
  source: TaskSource
  model?: string
  maxTurns?: number
  verify?: string
  effort?: string
}
