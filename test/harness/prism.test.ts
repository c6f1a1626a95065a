import { afterAll, expect, it } from 'vitest'
import { acquirePrism, releasePrism, stopPrism } from '../../demo/prism.js'

afterAll(stopPrism)

const get = (path: string) =>
  ['GET', path, { accept: 'application/json' }, Buffer.alloc(0)] as const

it('listens on the port the kernel gave it, and says so when it is gone', async () => {
  // Held until its last use: a released Prism is stopped when idle.
  const prism = await acquirePrism()
  expect(prism.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
  expect(Number(new URL(prism.url).port)).toBeGreaterThan(0)
  // A valid request gets one of the spec's examples.
  expect((await prism.forward(...get('/repos/acme/widgets'))).status).toBe(200)

  await stopPrism()
  // A mock still holding the old Prism learns that it exited, and what it last printed,
  // rather than a bare "connect ECONNREFUSED".
  await expect(prism.forward(...get('/repos/acme/widgets'))).rejects.toThrow(
    /^Prism \(http:\/\/127\.0\.0\.1:\d+\) exited \(SIGTERM\); its last output:\n[\s\S]*Prism is listening on/
  )
  releasePrism()

  // The next user starts a new Prism.
  const next = await acquirePrism()
  expect(next.url).not.toBe(prism.url)
  expect((await next.forward(...get('/repos/acme/widgets'))).status).toBe(200)
  releasePrism()
})
