// The functions in src/ longer than a limit, longest first. House style keeps functions under about
// 60 lines (docs/architecture.md, "Function length"); test/unit/function-length.test.ts holds it.
// List them at any limit: `npm run long-functions -- 50`. A nested function counts on its own and
// inside its parent.
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'

export interface LongFunction {
  name: string
  /** src/-relative path and the line it starts on. */
  where: string
  lines: number
}

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap(e =>
    e.isDirectory()
      ? sources(path.join(dir, e.name))
      : e.name.endsWith('.ts') && !e.name.endsWith('.d.ts')
        ? [path.join(dir, e.name)]
        : []
  )
}

/** A function's own name, or that of the variable, property or method it is assigned to. */
function nameOf(node: ts.SignatureDeclaration): string {
  if (node.name) return node.name.getText()
  const parent = node.parent
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent))
    return parent.name.getText()
  return '(anonymous)'
}

export function longFunctions(src: string, limit: number): LongFunction[] {
  const long: LongFunction[] = []
  for (const file of sources(src)) {
    const sf = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true)
    const lineOf = (pos: number) => sf.getLineAndCharacterOfPosition(pos).line
    const visit = (node: ts.Node): void => {
      if (ts.isFunctionLike(node) && 'body' in node && node.body) {
        const lines = lineOf(node.getEnd()) - lineOf(node.getStart(sf)) + 1
        const where = `${path.relative(src, file)}:${lineOf(node.getStart(sf)) + 1}`
        if (lines > limit) long.push({ name: nameOf(node), where, lines })
      }
      ts.forEachChild(node, visit)
    }
    visit(sf)
  }
  return long.sort((a, b) => b.lines - a.lines)
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const limit = Number(process.argv[2] ?? 60)
  const src = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../src')
  const long = longFunctions(src, limit)
  for (const f of long) console.log(`${String(f.lines).padStart(4)}  ${f.name}  src/${f.where}`)
  if (long.length === 0) console.log(`no function in src/ over ${limit} lines`)
}
