/**
 * A small file a cage wrote (setup's listing, a seal's status and log), read by the action as
 * bytes: never through a symlink the cage planted (O_NOFOLLOW), never blocked on a FIFO planted in
 * its place (O_NONBLOCK), only a regular file, and never more than `max` bytes.
 */
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs'
import path from 'node:path'

/**
 * The file's text. Past `max` bytes: its last `max` bytes with `tail` (a log's end is what
 * matters), else refused (a listing cut short would be a wrong one). Throws when it cannot be
 * opened (missing, a symlink) or is not a regular file. Read at once, not through the thread pool:
 * a few bytes to a few MB, and each promise call is a trip through a pool a batch keeps busy.
 */
export function readCageFile(file: string, max: number, opts: { tail?: boolean } = {}): string {
  const fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK)
  try {
    const info = fstatSync(fd)
    if (!info.isFile()) throw new Error(`${path.basename(file)} is not a regular file`)
    if (info.size > max && !opts.tail)
      throw new Error(`${path.basename(file)} is not a file of at most ${max} bytes`)
    const buffer = Buffer.alloc(Math.min(max, info.size))
    const bytesRead = readSync(fd, buffer, 0, buffer.length, Math.max(0, info.size - max))
    return buffer.subarray(0, bytesRead).toString('utf8')
  } finally {
    closeSync(fd)
  }
}
