/**
 * The generated repository of the big-repository measures (issue #28): `count` files of ~200 bytes
 * in directories of 100 under src/ (`src/d<i/100>/f<i%100>.txt`), a README and an empty `tasks/`
 * (`tasks/.keep`) for the tasks' own files. One generator for `test/e2e/big-repo.test.ts`,
 * `bench/big-repo.ts` and `bench/views.ts`, so their figures are of the same repository.
 */
import { mkdir, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { script } from './model-server.js'

/** Path -> content, as `startStack({ files })` and `GitRemote.createRepo` take them. */
export function bigRepoFiles(count: number): Record<string, string> {
  if (!Number.isInteger(count) || count < 0)
    throw new Error(`A generated repository needs a whole number of files, not ${count}.`)
  const files: Record<string, string> = { 'README.md': '# widgets\n', 'tasks/.keep': '' }
  for (let i = 0; i < count; i++) files[bigRepoPath(i)] = `${`file ${i} `.repeat(20)}\n`
  return files
}

/** Where the i-th generated file lives. */
export function bigRepoPath(i: number): string {
  return `src/d${Math.floor(i / 100)}/f${i % 100}.txt`
}

/** The same files written under `dir` (no git): a directory at a time, its files at once. */
export async function writeBigRepo(dir: string, count: number): Promise<void> {
  const byDir = new Map<string, [string, string][]>()
  for (const [file, text] of Object.entries(bigRepoFiles(count))) {
    const at = path.join(dir, path.dirname(file))
    const entries = byDir.get(at) ?? []
    entries.push([path.join(dir, file), text])
    byDir.set(at, entries)
  }
  for (const [at, entries] of byDir) {
    await mkdir(at, { recursive: true })
    await Promise.all(entries.map(([file, text]) => writeFile(file, text)))
  }
}

/** A check that the task sees the whole generated repository: `count` files under src/. */
export const seesAllFiles = (count: number) => `test "$(find src -type f | wc -l)" -eq ${count}`

/**
 * A one-file task's prompt: its worker writes tasks/<id>.txt with one Bash call (and commits it,
 * unless `commit` is false), then says it is done; `holdAt` as the model server takes it.
 */
export function oneFilePrompt(
  id: string,
  key: string,
  opts: { commit?: boolean; holdAt?: number } = {}
): string {
  const write = `echo ${id} > tasks/${id}.txt`
  const command =
    opts.commit === false ? write : `${write} && git add -A && git commit -qm "Add ${id}"`
  const held = opts.holdAt === undefined ? {} : { holdAt: opts.holdAt }
  return `Add ${id}.\n${script({
    key,
    steps: [{ tool: 'Bash', input: { command } }, { text: 'Done.' }],
    ...held
  })}`
}
