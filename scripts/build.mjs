// Builds dist/: the action (dist/index.js) and the CLI (dist/cli/index.js) with ncc, then
// dist/licenses.txt from the packages the two bundles really contain.
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

const ENTRIES = [
  ['src/index.ts', 'dist'],
  ['src/cli.ts', 'dist/cli']
]
const STATS_DIR = '.tmp/build-stats'
const NCC = createRequire(import.meta.url).resolve('@vercel/ncc/dist/ncc/cli.js')

rmSync('dist', { recursive: true, force: true })
mkdirSync(STATS_DIR, { recursive: true })
const statsFiles = ENTRIES.map(([entry, out]) => {
  const stats = path.join(STATS_DIR, `${path.basename(out)}.json`)
  execFileSync(
    process.execPath,
    [NCC, 'build', entry, '-o', out, '--transpile-only', '--stats-out', stats],
    {
      stdio: 'inherit'
    }
  )
  return stats
})
writeFileSync('dist/licenses.txt', licenses(statsFiles.flatMap(bundledPackageDirs)))

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
