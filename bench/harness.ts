// What bench/run.mjs needs from the TypeScript test harness, bundled by ncc into one ESM file.
export { GITHUB_TOKEN, MODEL_KEY, OWNER, REPO, startStack, results } from '../test/e2e/stack.js'
export { assertNoLeaks } from '../test/e2e/leaks.js'
export { runAction } from '../test/support/run-action.js'
export { gitTestEnv } from '../test/support/git-remote.js'
export { script } from '../test/support/model-server.js'
export { schedule } from '../test/support/events.js'
