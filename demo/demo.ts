/**
 * `npm run demo`: three tasks through the real action (node dist/index.js) and the real claude
 * CLI, against the test harness's scripted model, git remote and GitHub API mock, all on loopback.
 */
import { script } from './model-server.js'
import { OWNER, REPO, results, startStack } from './stack.js'

const DEMO_TASKS = [
  {
    id: 'add-contributing',
    title: 'Add CONTRIBUTING.md',
    file: 'CONTRIBUTING.md',
    content: '# Contributing\n\nOpen an issue first.\n'
  },
  {
    id: 'add-editorconfig',
    title: 'Add .editorconfig',
    file: '.editorconfig',
    content: 'root = true\n\n[*]\nindent_style = space\n'
  },
  {
    id: 'document-usage',
    title: 'Document usage',
    file: 'docs/usage.md',
    content: '# Usage\n\nRun `npm start`.\n'
  }
]

export async function demo(): Promise<number> {
  console.log(
    'Starting the scripted model server, a git remote and the GitHub API mock on loopback...'
  )
  const stack = await startStack()
  try {
    const tasks = DEMO_TASKS.map(t => ({
      id: t.id,
      title: t.title,
      prompt: `${t.title}.\n${script({ key: t.id, delayMs: 300, steps: [{ tool: 'Bash', input: { command: 'ls' } }, { tool: 'Write', input: { file_path: t.file, content: t.content } }, { text: `Added ${t.file}.` }] })}`
    }))
    console.log(`Running ${tasks.length} tasks through node dist/index.js, 2 workers at a time...`)
    const run = await stack.run({ inputs: { tasks: JSON.stringify(tasks), 'max-parallel': '2' } })
    const branches = await stack.git.branches(`${OWNER}/${REPO}`)
    console.log(`\nRemote branches: ${Object.keys(branches).sort().join(', ')}`)
    console.log('Pull requests in the API mock:')
    for (const pr of stack.github.state.pulls)
      console.log(`  #${pr.number} ${pr.pull.head} -> ${pr.pull.base}: ${pr.title}`)
    console.log('\nTasks:')
    for (const r of results(run)) {
      console.log(
        `  ${r.id.padEnd(18)} ${r.status.padEnd(11)} PR #${r['pr-number'] ?? '-'}  turns ${r.turns}  tokens in ${r.usage.input_tokens} out ${r.usage.output_tokens}  ${(r['duration-ms'] / 1000).toFixed(1)}s`
      )
    }
    console.log(
      `\nThe action exited ${run.exitCode}; no secret appeared in any output (leak scan passed).`
    )
    return run.exitCode ?? 1
  } finally {
    await stack.close()
  }
}
