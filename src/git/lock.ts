/**
 * One step at a time per repository, where two git commands must not overlap: `worktree add`
 * writes a worktree's HEAD before its commit is there, and a fetch's object check that runs
 * meanwhile reads every worktree's HEAD ("bad object worktrees/<id>/HEAD").
 */
const chains = new Map<string, Promise<unknown>>()

export function serialIn<T>(repoDir: string, step: () => Promise<T>): Promise<T> {
  const next = (chains.get(repoDir) ?? Promise.resolve()).then(step, step)
  chains.set(
    repoDir,
    next.catch(() => undefined)
  )
  return next
}
