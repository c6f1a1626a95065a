/**
 * The spawner's own program (process/spawner.ts): it starts each command the action asks for, as
 * the leader of a group of its own, says its pid at once, and answers with how it ended and the
 * end of its output. It runs as `node -e` from this function's source text, so it imports nothing
 * (node's modules come through process.getBuiltinModule) and reads nothing else: the same text
 * runs from src/ under the tests and from dist/. It dies with the action: a closed channel ends it.
 */

/** One command the action asks for. */
export interface Ask {
  id: number
  file: string
  args: readonly string[]
  cwd?: string
  /** Its whole environment, the action's stray marker in it. */
  env: Record<string, string | undefined>
  stdin: string
  /** At least this many bytes of each stream's end are kept (the action cuts characters). */
  keep: number
  /** How long its pipes are awaited after its group is killed. */
  graceMs: number
}

/** How a command ended, as the spawner saw it. */
export interface SpawnEnd {
  exitCode: number | null
  signal: NodeJS.Signals | null
  /** Why it could not start (ENOENT, EACCES), when it could not. */
  startError?: string
  stdout: Uint8Array
  stderr: Uint8Array
}

/** What the spawner says: that it is ready, a command's pid, a command's end. */
export type Told = { ready: true } | { id: number; pid: number } | { id: number; end: SpawnEnd }

export function spawnerMain(): void {
  const { spawn } = process.getBuiltinModule('node:child_process')
  const tell = (told: Told) => process.send?.(told)
  // The end of a stream: chunks are dropped from the front while the rest holds `keep` bytes.
  const tail = (stream: NodeJS.ReadableStream, keep: number) => {
    const chunks: Buffer[] = []
    let size = 0
    stream.on('data', (chunk: Buffer) => {
      chunks.push(chunk)
      size += chunk.length
      while (chunks.length > 1 && size - (chunks[0]?.length ?? 0) >= keep)
        size -= chunks.shift()?.length ?? 0
    })
    return () => Buffer.concat(chunks)
  }
  process.on('message', (ask: Ask) => {
    const child = spawn(ask.file, ask.args, {
      cwd: ask.cwd,
      env: ask.env,
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe']
    })
    if (child.pid !== undefined) tell({ id: ask.id, pid: child.pid })
    const out = tail(child.stdout, ask.keep)
    const err = tail(child.stderr, ask.keep)
    child.stdin.on('error', () => undefined)
    child.stdin.end(ask.stdin)
    const closed = new Promise(resolve => child.once('close', resolve))
    let told = false
    const end = (e: Omit<SpawnEnd, 'stdout' | 'stderr'>) => {
      if (told) return
      told = true
      tell({ id: ask.id, end: { ...e, stdout: out(), stderr: err() } })
    }
    child.once('error', error => end({ exitCode: null, signal: null, startError: error.message }))
    child.once('exit', (code, signal) => {
      // A short command's group dies with it; its pipes are awaited one grace period at most.
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL')
      } catch {
        // already gone
      }
      const grace = new Promise(resolve => setTimeout(resolve, ask.graceMs).unref())
      void Promise.race([closed, grace]).then(() => end({ exitCode: code, signal }))
    })
  })
  process.on('disconnect', () => process.exit(0))
  tell({ ready: true })
}
