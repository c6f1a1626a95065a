import { describe, expect, it } from 'vitest'
import { useStack } from '../support/scenario.js'
import { script } from '../../demo/model-server.js'
import { byId } from '../../demo/stack.js'

const SKILL =
  '---\nname: changelog\ndescription: How this repository writes CHANGELOG entries.\n---\nAdd entries under "## Unreleased", newest first.\n'

describe('skills: folders of the checkout in every worker config dir', () => {
  const stack = useStack({
    files: { 'README.md': '# widgets\n', '.claude/skills/changelog/SKILL.md': SKILL }
  })

  it('a worker finds the skill in its own config dir', async () => {
    const task = {
      id: 'with-skill',
      prompt: `Read your skills.\n${script({
        key: 'with-skill',
        steps: [
          {
            tool: 'Bash',
            input: { command: 'cat "$CLAUDE_CONFIG_DIR/skills/changelog/SKILL.md"' }
          },
          { tool: 'Write', input: { file_path: 'CHANGELOG.md', content: '## Unreleased\n' } },
          { text: 'Done.' }
        ]
      })}`
    }
    const run = await stack.run({
      inputs: { tasks: JSON.stringify([task]), skills: '.claude/skills/changelog' }
    })
    expect(run.exitCode, run.stdout).toBe(0)
    expect(byId(run).get('with-skill')?.status).toBe('pr-opened')
    const shown = stack.model
      .requestsFor('with-skill')
      .find(r => r.step === 1)
      ?.toolResults.join('\n')
    expect(shown).toContain('Add entries under "## Unreleased", newest first.')
  })

  it('a skills entry without a SKILL.md fails before any worker runs, naming the input', async () => {
    const before = stack.model.requests.length
    const run = await stack.run({
      inputs: { tasks: 'Do something small', skills: '.claude/skills/missing' }
    })
    expect(run.exitCode).not.toBe(0)
    expect(run.stdout).toMatch(/Input 'skills': '\.claude\/skills\/missing' has no SKILL\.md/)
    const outside = await stack.run({
      inputs: { tasks: 'Do something small', skills: '../elsewhere' }
    })
    expect(outside.stdout).toMatch(
      /Input 'skills': '\.\.\/elsewhere' is not a folder inside the repository/
    )
    expect(stack.model.requests.length).toBe(before)
  })
})
