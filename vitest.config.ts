import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    setupFiles: ['test/support/fast-check-seed.ts'],
    testTimeout: 300_000,
    hookTimeout: 300_000,
    // expect.poll waits for a condition; a loaded machine may take far longer than the 1 s default.
    expect: { poll: { timeout: 60_000 } },
    // e2e files each start real servers and real claude processes: run files one or two at a time
    // so two cores are not oversubscribed into timeouts.
    fileParallelism: true,
    maxWorkers: 2
  }
})
