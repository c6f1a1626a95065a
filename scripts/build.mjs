// Builds dist/: one ncc bundle of the engine (dist/engine/index.js, from src/engine.ts) and two
// small front doors that import it: the action's (dist/index.js, src/index.ts with its import
// pointed at the engine) and the CLI's (dist/cli/index.js). Two bundles, one per entry, held two
// copies of the engine and of the lazily loaded artifact client (@actions/artifact, 3.7 MB): dist/
// was 13.8 MB; one engine is about half that. Then dist/licenses.txt from the packages the bundle
// really contains.
//
// The licenses file is written here, not by `ncc --license`: ncc's plugin keys licenses by package
// name, so where two versions of one package are bundled (readable-stream 2 and 4, say) the text
// it kept depended on which module webpack finished first, and a clean machine built a different
// file. Here every bundled copy is listed, sorted by name and version, read from webpack's stats.
// Run: npm run build
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'

const ENGINE = ['src/engine.ts', 'dist/engine']
const STATS_DIR = '.tmp/build-stats'
const NCC = createRequire(import.meta.url).resolve('@vercel/ncc/dist/ncc/cli.js')

rmSync('dist', { recursive: true, force: true })
mkdirSync(STATS_DIR, { recursive: true })
const stats = path.join(STATS_DIR, 'engine.json')
execFileSync(
  process.execPath,
  [NCC, 'build', ENGINE[0], '-o', ENGINE[1], '--transpile-only', '--stats-out', stats],
  { stdio: 'inherit' }
)
writeFileSync('dist/package.json', '{\n  "type": "module"\n}\n')

// The action's entry is src/index.ts as written, importing run() from the engine.
const actionEntry = readFileSync('src/index.ts', 'utf8')
if (!actionEntry.includes("from './main.js'"))
  throw new Error("src/index.ts no longer imports run from './main.js': update scripts/build.mjs")
writeFileSync(
  'dist/index.js',
  `// The action's entry: src/index.ts, run from the engine bundle (scripts/build.mjs).\n${actionEntry.replace("from './main.js'", "from './engine/index.js'")}`
)
mkdirSync('dist/cli', { recursive: true })
writeFileSync(
  'dist/cli/index.js',
  [
    '#!/usr/bin/env node',
    "// The CLI's entry: cli() of src/cli.ts, from the engine bundle (scripts/build.mjs).",
    "import { cli } from '../engine/index.js'",
    '',
    'cli(process.argv.slice(2))',
    ''
  ].join('\n')
)
writeFileSync('dist/licenses.txt', licenses(bundledPackageDirs(stats)))

/** The directories of the packages whose modules a bundle holds, from ncc's webpack stats. */
function bundledPackageDirs(statsFile) {
  const stats = JSON.parse(readFileSync(statsFile, 'utf8'))
  const dirs = new Set()
  const visit = module => {
    const resource = module.nameForCondition ?? ''
    const at = resource.lastIndexOf('/node_modules/')
    if (at >= 0) {
      const [scope, name] = resource.slice(at + '/node_modules/'.length).split('/')
      dirs.add(
        resource.slice(0, at + '/node_modules/'.length) +
          (scope.startsWith('@') ? `${scope}/${name}` : scope)
      )
    }
    for (const inner of module.modules ?? []) visit(inner)
  }
  for (const module of stats.modules ?? []) visit(module)
  for (const chunk of stats.chunks ?? []) for (const module of chunk.modules ?? []) visit(module)
  return [...dirs]
}

/** One notice per bundled package copy: name, version, license, and its license file's text. */
function licenses(dirs) {
  const packages = new Map()
  for (const dir of dirs) {
    if (!existsSync(path.join(dir, 'package.json'))) continue
    const { name, version, license } = JSON.parse(
      readFileSync(path.join(dir, 'package.json'), 'utf8')
    )
    packages.set(`${name}@${version}`, { name, version, license, dir })
  }
  const sorted = [...packages.values()].sort(
    (a, b) => compare(a.name, b.name) || compare(a.version, b.version)
  )
  return sorted.map(notice).join('\n')
}

function notice({ name, version, license, dir }) {
  const file = readdirSync(dir)
    .filter(f => /^(licen[cs]e|copying)/i.test(f))
    .sort(compare)[0]
  const text = file
    ? readFileSync(path.join(dir, file), 'utf8').trim()
    : '(the package ships no license file)'
  return `${name}@${version}\n${typeof license === 'string' ? license : JSON.stringify(license)}\n\n${text}\n`
}

function compare(a, b) {
  return a < b ? -1 : a > b ? 1 : 0
}
