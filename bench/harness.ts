// What bench/run.mjs needs from the TypeScript test harness, bundled by ncc into one ESM file.
export { GITHUB_TOKEN, MODEL_KEY, OWNER, REPO, startStack, results } from '../demo/stack.js'
export { assertNoLeaks } from '../demo/leaks.js'
export { runAction } from '../demo/run-action.js'
export { gitTestEnv } from '../demo/git-remote.js'
export { script } from '../demo/model-server.js'
export { schedule } from '../test/support/events.js'
