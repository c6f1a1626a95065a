// The landing train's time per PR landed (issue #36): ten approved fleet PRs, cut from an older
// main, landed by one mode: merge run through dist/ on the stand-ins (the git remote over HTTP, the
// GitHub mock whose merges move main). Every PR is behind, so each is rebased onto main as the
// previous merge left it, verified again in its cage, pushed with a lease and merged. verify is a
// fixed `sleep`, so verify's own time is known; the figure is the step's time per PR landed, and
// what the train adds on top of verify. Target: at most verify + 5 s per PR.
// Run: npm run bench:merge-train (BENCH_TRAIN_PRS=10, BENCH_TRAIN_VERIFY_S=2).
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { loadavg, tmpdir } from 'node:os'
import path from 'node:path'
import { byId, OWNER, REPO, startStack } from '../demo/stack.js'
import { runGit, gitTestEnv } from '../demo/git-remote.js'

const PRS = Number(process.env.BENCH_TRAIN_PRS ?? 10)
const VERIFY_S = Number(process.env.BENCH_TRAIN_VERIFY_S ?? 2)
const FULL = `${OWNER}/${REPO}`
const ACTION = [
  '-c',
  'user.name=github-actions[bot]',
  '-c',
  'user.email=41898282+github-actions[bot]@users.noreply.github.com'
]

const stack = await startStack({
  pullsFromGit: true,
  github: { collaborators: { wren: 'write' } }
})
const work = await mkdtemp(path.join(tmpdir(), 'bench-train-'))
const env = gitTestEnv(path.join(work, 'home'))
const git = async (args: string[]) => {
  const r = await runGit(args, path.join(work, 'clone'), env)
  if (r.exitCode !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`)
  return r.stdout.trim()
}
try {
  const cloned = await runGit(['clone', '-q', stack.git.repoPath(FULL), 'clone'], work, env)
  if (cloned.exitCode !== 0) throw new Error(cloned.stderr)
  // Ten fleet PRs as the action opens them: its commit, its marker; each writes its own file.
  for (let i = 0; i < PRS; i++) {
    const id = `bench-${i}`
    await git(['checkout', '-q', '-B', id, 'origin/main'])
    await writeFile(path.join(work, 'clone', `${id}.txt`), `${id}\n`)
    await git(['add', '.'])
    await git([...ACTION, 'commit', '-q', '-m', `Write ${id}.txt`])
    await git(['push', '-q', 'origin', `HEAD:refs/heads/fleet/${id}`])
    const pr = stack.github.addPull({
      head: `fleet/${id}`,
      title: `Write ${id}.txt`,
      body: `### Task\n\nWrite ${id}.txt\n\n<!-- fleet-worker:task=${id} -->`
    })
    stack.github.state.addReview(pr.number, 'wren', 'APPROVED')
  }
  // main moves under them: every PR must be brought up to date before it lands.
  await git(['checkout', '-q', '-B', 'main', 'origin/main'])
  await writeFile(path.join(work, 'clone', 'moved.txt'), 'main moved\n')
  await git(['add', '.'])
  await git(['commit', '-q', '-m', 'main moves'])
  await git(['push', '-q', 'origin', 'HEAD:refs/heads/main'])

  const run = await stack.run({
    inputs: { mode: 'merge', verify: `sleep ${VERIFY_S}` },
    timeoutMs: 900_000
  })
  const merged = [...byId(run).values()].filter(r => r.status === 'merged')
  if (merged.length !== PRS)
    throw new Error(
      `expected ${PRS} merged, got ${merged.length}: ${run.outputs.results}\n${run.stderr}`
    )
  const perPr = run.durationMs / PRS
  const inTrain = merged.reduce((n, r) => n + r['duration-ms'], 0) / PRS
  console.log(
    [
      `${PRS} approved PRs landed in ${(run.durationMs / 1000).toFixed(1)} s (the action's step, start to exit)`,
      `per PR landed: ${(perPr / 1000).toFixed(2)} s for the step, ${(inTrain / 1000).toFixed(2)} s inside the train (fetch, rebase, verify, push, PR body, merge)`,
      `verify's own time: ${VERIFY_S} s; the train adds ${((inTrain - VERIFY_S * 1000) / 1000).toFixed(2)} s per PR (step: ${((perPr - VERIFY_S * 1000) / 1000).toFixed(2)} s)`,
      `isolation: ${stack.isolation}; load ${loadavg()
        .map(l => l.toFixed(1))
        .join(' ')}`
    ].join('\n')
  )
} finally {
  await stack.close()
  await rm(work, { recursive: true, force: true })
}
