import { mkdir, mkdtemp, readdir, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { borrowObjects } from '../../src/git/borrow.js'

const A = 'a'.repeat(40)
const B = 'b'.repeat(40)

describe("borrowObjects reads a checkout's cut history as data", () => {
  let dir: string
  let checkout: string
  let into: string
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'borrow-'))
    checkout = path.join(dir, 'checkout')
    into = path.join(dir, 'into')
    await mkdir(path.join(checkout, '.git', 'objects', 'pack'), { recursive: true })
    await mkdir(path.join(checkout, '.git', 'objects', 'ab'), { recursive: true })
    await writeFile(path.join(checkout, '.git', 'objects', 'ab', 'c'.repeat(38)), 'x')
    await writeFile(path.join(checkout, '.git', 'HEAD'), `${A}\n`)
  })
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true })
  })

  it('a whole history: no shallow list, its HEAD, its objects linked', async () => {
    const got = await borrowObjects(checkout, into)
    expect(got).toEqual({ files: 1, head: A, shallow: undefined, partial: false })
    expect(await readdir(path.join(into, 'ab'))).toEqual(['c'.repeat(38)])
  })

  it("a shallow checkout: the commits its .git/shallow names, for the fleet's clone to take", async () => {
    await writeFile(path.join(checkout, '.git', 'shallow'), `${A}\n${B}\n`)
    expect((await borrowObjects(checkout, into))?.shallow).toEqual([A, B])
  })

  it('a shallow file with a line that is not a commit id: a cut history of unknown boundary', async () => {
    await writeFile(path.join(checkout, '.git', 'shallow'), `${A}\n../../etc/passwd\n`)
    expect((await borrowObjects(checkout, into))?.shallow).toEqual([])
  })

  it('a shallow file that is a symlink is not followed: a cut history of unknown boundary', async () => {
    await writeFile(path.join(dir, 'elsewhere'), `${A}\n`)
    await symlink(path.join(dir, 'elsewhere'), path.join(checkout, '.git', 'shallow'))
    expect((await borrowObjects(checkout, into))?.shallow).toEqual([])
  })

  it('a partial (filter:) checkout is told apart', async () => {
    await writeFile(path.join(checkout, '.git', 'objects', 'pack', 'pack-1.promisor'), '')
    expect((await borrowObjects(checkout, into))?.partial).toBe(true)
  })
})
