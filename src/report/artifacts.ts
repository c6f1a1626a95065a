import { readdir } from 'node:fs/promises'
import path from 'node:path'
import { describeError } from '../errors.js'

/**
 * Keeps what a person needs to see what workers did — their stream-json transcripts and any
 * preserved git bundles — as one run artifact. Outside Actions (no runtime token) they stay on
 * disk and the note says where.
 */
export async function keepWork(
  root: string,
  name: string,
  env: NodeJS.ProcessEnv
): Promise<string | undefined> {
  const dirs = ['transcripts', 'preserved'].map(d => path.join(root, d))
  const files: string[] = []
  for (const dir of dirs) {
    const names = await readdir(dir).catch(() => [] as string[])
    files.push(...names.map(n => path.join(dir, n)))
  }
  if (files.length === 0) return undefined
  if (!env.ACTIONS_RUNTIME_TOKEN || !env.ACTIONS_RESULTS_URL) {
    return `Worker transcripts and preserved work are in ${root} (not in Actions: no artifact uploaded).`
  }
  try {
    const { DefaultArtifactClient } = await import('@actions/artifact')
    await new DefaultArtifactClient().uploadArtifact(name, files, root, { retentionDays: 14 })
    return `Worker transcripts and preserved work: artifact \`${name}\`.`
  } catch (error) {
    return `Uploading the artifact ${name} failed (${describeError(error)}); the files are in ${root}.`
  }
}
