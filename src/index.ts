import { exitIfHeld, run } from './main.js'

await run()
exitIfHeld()
