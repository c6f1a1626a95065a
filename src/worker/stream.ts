/**
 * The CLI's stream-json output, read as it arrives: each line kept in the transcript, a new turn
 * reported as progress, and the final `result` object parsed (result.ts's schema).
 */
import { createInterface } from 'node:readline'
import type { Readable } from 'node:stream'
import { ResultSchema, type WorkerResult } from './result.js'

export interface Progress {
  turn: number
  outputTokens: number
}

function parseLine(line: string): Record<string, unknown> | undefined {
  if (!line.startsWith('{')) return undefined
  try {
    return JSON.parse(line) as Record<string, unknown>
  } catch {
    return undefined
  }
}

/**
 * stream-json prints one `assistant` event per content block (text, then tool_use), each with the
 * message's id and its usage so far: a turn is a new message id, and its output tokens are the
 * last value seen for that id.
 */
function messageOf(event: Record<string, unknown>): { id?: string; outputTokens: number } {
  const message = event.message as { id?: string; usage?: { output_tokens?: number } } | undefined
  return { id: message?.id, outputTokens: message?.usage?.output_tokens ?? 0 }
}

/** Reads the worker's stream-json as it arrives: into the transcript, as turn progress, its result. */
export function readStream(
  stdout: Readable,
  transcript: NodeJS.WritableStream,
  onProgress: ((progress: Progress) => void) | undefined
): { result: () => WorkerResult | undefined } {
  let result: WorkerResult | undefined
  const progress: Progress = { turn: 0, outputTokens: 0 }
  const tokensById = new Map<string, number>()
  const lines = createInterface({ input: stdout })
  lines.on('line', line => {
    transcript.write(`${line}\n`)
    const event = parseLine(line)
    if (!event) return
    if (event.type === 'assistant') {
      const { id, outputTokens } = messageOf(event)
      const key = id ?? `anonymous-${tokensById.size}`
      const isNewTurn = !tokensById.has(key)
      tokensById.set(key, outputTokens)
      progress.turn = tokensById.size
      progress.outputTokens = [...tokensById.values()].reduce((a, b) => a + b, 0)
      if (isNewTurn) onProgress?.({ ...progress })
    } else if (event.type === 'result') {
      const parsed = ResultSchema.safeParse(event)
      if (parsed.success) result = parsed.data
    }
  })
  return { result: () => result }
}
