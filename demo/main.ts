// `npm run demo` (a development checkout only): the demo fleet, its exit code the action's.
import { demo } from './demo.js'

process.exitCode = await demo()
