import { describe, expect, it } from 'vitest'
import { parseConfig, type Config } from '../../src/config.js'
import type { Task } from '../../src/domain.js'
import { workerArgs, workerPrompt, workerSettings } from '../../src/worker/args.js'

const PROMPT = 'Fix the zqx-marker handling; then `rm -rf /tmp/x` && echo "$(id)" \n--max-turns 999'

function config(over: Partial<Config> = {}): Config {
  return { ...parseConfig({}), ...over }
}

function task(over: Partial<Task> = {}): Task {
  return {
    id: 'fix-1',
    prompt: PROMPT,
    title: 'Fix',
    branch: 'fleet/fix-1',
    source: { kind: 'input' },
    ...over
  }
}

const valueOf = (args: string[], flag: string) => args[args.indexOf(flag) + 1]

describe('workerArgs', () => {
  it('never puts the prompt, or any part of it, on the command line', () => {
    const args = workerArgs(config({ appendSystemPrompt: 'Be brief.' }), task(), '/tmp/s.json')
    for (const arg of args) {
      expect(arg).not.toContain('zqx-marker')
      expect(arg).not.toContain('rm -rf')
    }
    expect(args).not.toContain(PROMPT)
    // The prompt's own '--max-turns 999' is text, not a flag.
    expect(args).not.toContain('999')
  })

  it('prints one JSON result stream in print mode with the given settings and permission mode', () => {
    const args = workerArgs(config({ permissionMode: 'acceptEdits' }), task(), '/tmp/s.json')
    expect(args[0]).toBe('-p')
    expect(valueOf(args, '--output-format')).toBe('stream-json')
    expect(args).toContain('--verbose')
    expect(valueOf(args, '--settings')).toBe('/tmp/s.json')
    expect(valueOf(args, '--permission-mode')).toBe('acceptEdits')
  })

  it("--max-turns is the task's own when given, else the config's", () => {
    expect(valueOf(workerArgs(config({ maxTurns: 40 }), task(), 's'), '--max-turns')).toBe('40')
    expect(
      valueOf(workerArgs(config({ maxTurns: 40 }), task({ maxTurns: 7 }), 's'), '--max-turns')
    ).toBe('7')
  })

  it('joins the tools into one --tools value; leaves it out for the CLI default set', () => {
    const args = workerArgs(config(), task(), 's')
    expect(valueOf(args, '--tools')).toBe('Bash,Edit,Read,Write')
    expect(workerArgs(config({ tools: undefined }), task(), 's')).not.toContain('--tools')
  })

  it('passes allowed and disallowed tool rules, and claude-args last', () => {
    const args = workerArgs(
      config({
        allowedTools: ['Edit', 'Bash(npm test)'],
        disallowedTools: ['WebFetch'],
        claudeArgs: ['--fallback-model', 'small']
      }),
      task(),
      's'
    )
    const at = args.indexOf('--allowed-tools')
    expect(args.slice(at, at + 3)).toEqual(['--allowed-tools', 'Edit', 'Bash(npm test)'])
    expect(valueOf(args, '--disallowed-tools')).toBe('WebFetch')
    expect(args.slice(-2)).toEqual(['--fallback-model', 'small'])
    expect(workerArgs(config(), task(), 's')).not.toContain('--allowed-tools')
  })
})

describe('workerSettings and workerPrompt', () => {
  it("uses the task's effort over the config's, and disables hooks, Bash edit diffs and the CLI's git instructions", () => {
    expect(workerSettings(config(), task())).toEqual({
      effortLevel: 'high',
      disableAllHooks: true,
      bashEditDiffEnabled: false,
      includeGitInstructions: false
    })
    expect(workerSettings(config(), task({ effort: 'low' })).effortLevel).toBe('low')
  })

  it('frames the prompt verbatim inside <task>, and says where it came from', () => {
    const text = workerPrompt(task({ source: { kind: 'issue', issue: 12, item: 3 } }))
    expect(text).toContain(`<task>\n${PROMPT}\n</task>`)
    expect(text).toContain('issue #12, checklist item 3')
    expect(workerPrompt(task({ source: { kind: 'follow-up', pr: 8 } }))).toContain(
      'pull request #8'
    )
  })
})
