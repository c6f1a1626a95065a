/**
 * The one bundle (dist/engine/index.js) behind both front doors: the action's entry
 * (dist/index.js, made from src/index.ts) and the CLI's (dist/cli/index.js) import it, so dist/
 * holds one copy of the engine and of the lazily loaded artifact client (scripts/build.mjs).
 */
export { exitIfHeld, run } from './main.js'
export { cli } from './cli.js'
