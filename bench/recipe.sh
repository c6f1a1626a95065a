#!/usr/bin/env bash
# The plain shell recipe users write by hand, for comparison with the action (bench/run.mjs):
# a worktree per task, `claude -p` in the background with at most P running, wait, then commit and
# push each branch. No verify, no PRs, no retries, no leases, no isolation between workers.
# usage: recipe.sh REMOTE_URL TASKS_DIR P WORKDIR   (one prompt per TASKS_DIR/<id>.txt)
# The model endpoint and key come from the environment (ANTHROPIC_BASE_URL, ANTHROPIC_API_KEY);
# the push credential from git's environment config (GIT_CONFIG_*).
set -euo pipefail
remote=$1 tasks=$2 p=$3 work=$4
git clone --quiet "$remote" "$work/repo"
cd "$work/repo"
running=0
for file in "$tasks"/*.txt; do
  id=$(basename "$file" .txt)
  git worktree add --quiet -b "shell/$id" "$work/wt/$id" origin/main
  (cd "$work/wt/$id" && claude -p "$(cat "$file")" --dangerously-skip-permissions --output-format json \
    > "$work/$id.json" 2>&1 < /dev/null || true) &
  running=$((running + 1))
  if [ "$running" -ge "$p" ]; then
    wait -n || true
    running=$((running - 1))
  fi
done
wait
for file in "$tasks"/*.txt; do
  id=$(basename "$file" .txt)
  git -C "$work/wt/$id" add -A
  git -C "$work/wt/$id" commit --quiet -m "$id" || true
  git -C "$work/wt/$id" push --quiet origin "shell/$id"
done
