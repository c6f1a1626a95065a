import { readFileSync } from 'node:fs'
import path from 'node:path'
import dockerfilelint from 'dockerfilelint'
import { validate } from 'dockerfile-utils'
import { describe, expect, it } from 'vitest'
import { CLAUDE_CODE_VERSION } from '../../src/worker/install.js'
import {
  CONTAINER_CONFIG_DIR,
  CONTAINER_HOME,
  CONTAINER_WORKSPACE,
  DEFAULT_USER
} from '../../src/cage/container.js'

const root = path.resolve(import.meta.dirname, '../..')
const dockerfile = readFileSync(path.join(root, 'Dockerfile'), 'utf8')
const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
  license: string
  dependencies: Record<string, string>
}

/** Both linters: dockerfile-utils checks syntax and semantics, dockerfilelint best practice. */
function lint(text: string): string[] {
  const semantic = validate(text).map(
    d => `line ${d.range.start.line + 1}: ${JSON.stringify(d.message)}`
  )
  const practice = dockerfilelint.run(root, text).map(p => `line ${p.line}: ${p.title}`)
  return [...semantic, ...practice]
}

interface Instruction {
  keyword: string
  args: string
}

/** Instructions with continuation lines joined and comments dropped. */
function instructions(text: string): Instruction[] {
  const logical = text
    .split('\n')
    .filter(line => !line.trimStart().startsWith('#'))
    .join('\n')
    .replace(/\\\n/g, ' ')
    .split('\n')
  return logical.flatMap(line => {
    const match = /^\s*([A-Za-z]+)\s+(.*)$/.exec(line)
    return match
      ? [{ keyword: (match[1] as string).toUpperCase(), args: (match[2] as string).trim() }]
      : []
  })
}

const all = instructions(dockerfile)
const of = (keyword: string) => all.filter(i => i.keyword === keyword).map(i => i.args)

describe('Dockerfile', () => {
  it('lints clean', () => {
    expect(lint(dockerfile)).toEqual([])
  })

  it('the linters do catch problems (so a clean result means something)', () => {
    const bad =
      'FROM ubuntu\nRUN apt-get update && apt-get install curl\nWORKDIR app\nCMD ["a"]\nCMD ["b"]\n'
    expect(lint(bad).length).toBeGreaterThanOrEqual(4)
  })

  it('builds on Node 24 bookworm-slim pinned by digest', () => {
    expect(of('FROM')).toHaveLength(1)
    expect(of('FROM')[0]).toMatch(/^node:24(\.\d+){0,2}-bookworm-slim@sha256:[a-f0-9]{64}$/)
  })

  it('pins the claude CLI at the version package.json and the action install', () => {
    const arg = of('ARG').find(a => a.startsWith('CLAUDE_CODE_VERSION='))
    expect(arg).toBe(`CLAUDE_CODE_VERSION=${pkg.dependencies['@anthropic-ai/claude-code']}`)
    expect(arg).toBe(`CLAUDE_CODE_VERSION=${CLAUDE_CODE_VERSION}`)
    const install = of('RUN').find(r => r.includes('npm install -g'))
    expect(install).toContain('"@anthropic-ai/claude-code@${CLAUDE_CODE_VERSION}"')
    // The native binary is linked by the postinstall; the build proves it runs.
    expect(install).toContain('install.cjs')
    expect(install).toMatch(/claude --version \| grep -F "\$\{CLAUDE_CODE_VERSION\}"/)
  })

  it('installs the documented tool set with tini', () => {
    const apt = of('RUN').find(r => r.includes('apt-get install')) ?? ''
    for (const tool of ['ca-certificates', 'git', 'make', 'python3', 'ripgrep', 'jq', 'tini']) {
      expect(apt.split(/\s+/)).toContain(tool)
    }
  })

  it('runs as the non-root user the container command expects', () => {
    const users = of('USER')
    expect(users.at(-1)).toBe('fleet')
    const [uid, gid] = DEFAULT_USER.split(':')
    const create = of('RUN').find(r => r.includes('useradd')) ?? ''
    expect(create).toContain(`--uid ${uid}`)
    expect(create).toContain(`--gid ${gid}`)
    expect(of('WORKDIR').at(-1)).toBe(CONTAINER_WORKSPACE)
    const env = of('ENV').join(' ')
    expect(env).toContain(`HOME=${CONTAINER_HOME}`)
    expect(env).toContain(`CLAUDE_CONFIG_DIR=${CONTAINER_CONFIG_DIR}`)
    expect(env).not.toContain('IS_SANDBOX')
  })

  it('has tini as the entrypoint', () => {
    expect(of('ENTRYPOINT')).toHaveLength(1)
    expect(JSON.parse(of('ENTRYPOINT')[0] as string)).toEqual(['/usr/bin/tini', '--'])
  })

  it('carries the OCI labels', () => {
    const labels = of('LABEL').join(' ')
    for (const key of ['source', 'description', 'licenses', 'version']) {
      expect(labels).toContain(`org.opencontainers.image.${key}=`)
    }
    expect(labels).toContain(`org.opencontainers.image.licenses="${pkg.license}"`)
  })

  it('keeps the checkout (and its persisted token) out of the build context', () => {
    const ignored = readFileSync(path.join(root, '.dockerignore'), 'utf8')
      .split('\n')
      .map(l => l.trim())
    expect(ignored).toContain('*')
    expect(ignored.filter(l => l.startsWith('!'))).toEqual([])
    expect(of('COPY').concat(of('ADD'))).toEqual([])
  })
})
