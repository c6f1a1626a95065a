/**
 * A small file a cage wrote (setup's listing, a seal's status and log), read by the action as
 * bytes: never through a symlink the cage planted (O_NOFOLLOW), never blocked on a FIFO planted in
 * its place (O_NONBLOCK), only a regular file, and never more than `max` bytes.
 */
import { constants } from 'node:fs'
import { open } from 'node:fs/promises'
import path from 'node:path'

/**
 * The file's text. Past `max` bytes: its last `max` bytes with `tail` (a log's end is what
 * matters), else refused (a listing cut short would be a wrong one). Throws when it cannot be
 * opened (missing, a symlink) or is not a regular file.
 */
export async function readCageFile(
  file: string,
  max: number,
  opts: { tail?: boolean } = {}
): Promise<string> {
  const handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK)
  try {
    const info = await handle.stat()
    if (!info.isFile()) throw new Error(`${path.basename(file)} is not a regular file`)
    if (info.size > max && !opts.tail)
      throw new Error(`${path.basename(file)} is not a file of at most ${max} bytes`)
    const buffer = Buffer.alloc(Math.min(max, info.size))
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, Math.max(0, info.size - max))
    return buffer.subarray(0, bytesRead).toString('utf8')
  } finally {
    await handle.close()
  }
}
