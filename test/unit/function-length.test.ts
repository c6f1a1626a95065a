// House style: no function in src/ over about 60 lines (docs/architecture.md, "Function length").
// `npm run long-functions -- 50` lists the ones nearing it.
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { longFunctions } from '../../scripts/long-functions.js'

const SRC = path.resolve(import.meta.dirname, '../../src')
const body = (n: number) => Array.from({ length: n }, (_, i) => `  const v${i} = ${i}`).join('\n')

describe('function length in src/', () => {
  it('counts declarations, arrows, methods and nested functions, by their own lines', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'fn-length-'))
    mkdirSync(path.join(dir, 'room'))
    writeFileSync(
      path.join(dir, 'room', 'a.ts'),
      [
        `export function outer() {`, // lines 1-7, inner's 2-6 among them
        `  const inner = () => {`,
        body(3),
        `  }`,
        `}`,
        `class C {`,
        `  method() {`, // lines 9-10
        `  }`,
        `}`,
        `const arrow = (x: number) => x` // line 12
      ].join('\n')
    )
    writeFileSync(path.join(dir, 'b.d.ts'), `declare function f(): void`)
    expect(longFunctions(dir, 0)).toEqual([
      { name: 'outer', where: path.join('room', 'a.ts') + ':1', lines: 7 },
      { name: 'inner', where: path.join('room', 'a.ts') + ':2', lines: 5 },
      { name: 'method', where: path.join('room', 'a.ts') + ':9', lines: 2 },
      { name: 'arrow', where: path.join('room', 'a.ts') + ':12', lines: 1 }
    ])
    expect(longFunctions(dir, 5).map(f => f.name)).toEqual(['outer'])
  })

  it('reads the real src/', () => {
    expect(longFunctions(SRC, 0).length).toBeGreaterThan(500)
  })

  it('has no function over 60 lines', () => {
    expect(longFunctions(SRC, 60)).toEqual([])
  })
})
