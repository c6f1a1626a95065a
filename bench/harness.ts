// What bench/run.mjs needs from the TypeScript test harness, bundled by ncc into one ESM file.
export { GITHUB_TOKEN, MODEL_KEY, OWNER, REPO, startStack, results } from '../src/demo/stack.js'
export { assertNoLeaks } from '../src/demo/leaks.js'
export { runAction } from '../src/demo/run-action.js'
export { gitTestEnv } from '../src/demo/git-remote.js'
export { script } from '../src/demo/model-server.js'
export { schedule } from '../test/support/events.js'
