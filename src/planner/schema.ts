import { z } from 'zod'

/** What the planner answers, checked again after the CLI's own check against the JSON schema. */
export const AnswerSchema = z.object({
  tasks: z.array(
    z.looseObject({
      title: z.string(),
      prompt: z.string(),
      model: z.string().optional(),
      verify: z.string().optional()
    })
  )
})

export interface PlannedTask {
  title: string
  prompt: string
  model?: string
  verify?: string
}

/**
 * The `--json-schema` the planner answers with (through the CLI's StructuredOutput tool). The CLI
 * checks an answer against it and asks the model to fix a mismatch, so the bounds here spare a
 * rerun; duplicate titles cannot be said in JSON schema and are checked after.
 */
export function answerJsonSchema(maxTasks: number): Record<string, unknown> {
  const text = { type: 'string', minLength: 1 }
  return {
    type: 'object',
    additionalProperties: false,
    required: ['tasks'],
    properties: {
      tasks: {
        type: 'array',
        minItems: 1,
        maxItems: maxTasks,
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['title', 'prompt'],
          properties: {
            title: { ...text, maxLength: 100, description: 'Short, imperative, unique.' },
            prompt: { ...text, description: 'Self-contained instructions for one worker.' },
            model: { ...text, description: 'Only if the request names a model.' },
            verify: { ...text, description: 'A shell command that checks this task, if any.' }
          }
        }
      }
    }
  }
}
