// The house's figures, printed by CI on every run (docs/status.md, "Figures"): the README's
// length, the action's inputs (the deprecated names apart), and the bundle's size. Speed figures
// are the benches' (docs/performance.md); the unit lane's time is printed by .ci/run beside these.
import { readdirSync, readFileSync, statSync } from 'node:fs'
import path from 'node:path'
import { parse } from 'yaml'

const root = path.join(path.dirname(new URL(import.meta.url).pathname), '..')

function bytes(dir) {
  return readdirSync(dir, { withFileTypes: true }).reduce((sum, e) => {
    const p = path.join(dir, e.name)
    return sum + (e.isDirectory() ? bytes(p) : statSync(p).size)
  }, 0)
}

const readme = readFileSync(path.join(root, 'README.md'), 'utf8').split('\n').length - 1
const inputs = Object.values(parse(readFileSync(path.join(root, 'action.yml'), 'utf8')).inputs)
const deprecated = inputs.filter(i => i.deprecationMessage).length
const dist = bytes(path.join(root, 'dist'))

console.log(`README lines: ${readme} (at most 300)`)
console.log(
  `inputs: ${inputs.length - deprecated} (at most 55), plus ${deprecated} deprecated names`
)
console.log(`dist/: ${dist.toLocaleString('en')} bytes (at most 10 MB)`)
