#!/usr/bin/env bash
# Builds the worker image and runs one real claude worker in it, on a machine with no Docker
# engine and no access to Docker Hub: Debian's podman/buildah, chroot isolation, runc.
#
# The base image is a STAND-IN: `debootstrap --variant=minbase bookworm` imported into podman,
# plus this checkout's Node 24 binary (node_modules/node) and the host's npm, put where the official
# node image puts them. It is built with `podman build --from`, replacing the Dockerfile's pinned
# node:24-bookworm-slim. Everything after FROM is the real Dockerfile, run as written.
#
# Run as root from the repository root: bash scripts/podman-check.sh
# It talks to a throwaway model server on the podman bridge, never to a real model.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=${FLEET_PODMAN_WORK:-/tmp/fleet-podman}
IMAGE=localhost/fleet-worker:check
STANDIN=localhost/fleet-node24-standin:bookworm
NODE_BIN="$ROOT/node_modules/node/bin/node"
NPM_DIR=$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")
mkdir -p "$WORK"
log() { printf '[podman-check %(%T)T] %s\n' -1 "$*"; }

# Podman asks runc for nofile=1048576 and nproc=4194304 by default. On the VM this was first run
# on (hard limits nofile 20000, nproc 96364) runc failed "error setting rlimit type 7" (then 6),
# even at exactly the host's hard limits; these modest values work, and --pids-limit bounds
# processes anyway.
printf '[containers]\ndefault_ulimits = ["nofile=16384:16384", "nproc=8192:8192"]\n' >"$WORK/containers.conf"
export CONTAINERS_CONF="$WORK/containers.conf"

need=()
for tool in podman buildah debootstrap runc; do command -v "$tool" >/dev/null || need+=("$tool"); done
if ((${#need[@]})); then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq podman buildah debootstrap runc uidmap >/dev/null
fi

if ! podman image exists localhost/debian-minbase:bookworm; then
  log 'debootstrap minbase bookworm'
  rm -rf "$WORK/rootfs"
  debootstrap --variant=minbase bookworm "$WORK/rootfs" http://deb.debian.org/debian >"$WORK/debootstrap.log"
  tar -C "$WORK/rootfs" -c . | podman import - localhost/debian-minbase:bookworm
fi

log 'stand-in base: minbase + Node 24 + npm'
rm -rf "$WORK/standin" && mkdir -p "$WORK/standin/lib"
cp "$NODE_BIN" "$WORK/standin/node"
cp -a "$NPM_DIR" "$WORK/standin/lib/npm"
# Where the registry is reached through a TLS-inspecting egress proxy (as on the machine this was
# first run on), npm in the build must trust the host's CA bundle. Stand-in only: the real base
# and the published image carry no such certificate.
cp /etc/ssl/certs/ca-certificates.crt "$WORK/standin/host-ca.crt"
cat >"$WORK/standin/Containerfile" <<'EOF'
FROM localhost/debian-minbase:bookworm
COPY node /usr/local/bin/node
COPY lib/npm /usr/local/lib/node_modules/npm
COPY host-ca.crt /usr/local/share/fleet-check/host-ca.crt
ENV NODE_EXTRA_CA_CERTS=/usr/local/share/fleet-check/host-ca.crt
RUN ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \
 && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx \
 && node --version && npm --version
EOF
podman build --isolation=chroot -q -t "$STANDIN" "$WORK/standin" >/dev/null

log 'build the real Dockerfile on the stand-in base'
start=$(date +%s)
podman build --isolation=chroot --from "$STANDIN" -t "$IMAGE" -f "$ROOT/Dockerfile" "$ROOT" >"$WORK/build.log" 2>&1 \
  || { tail -30 "$WORK/build.log"; exit 1; }
log "built in $(($(date +%s) - start)) s; size $(podman image inspect "$IMAGE" --format '{{.Size}}') bytes"
podman run --rm "$IMAGE" claude --version
podman run --rm "$IMAGE" id

log 'one worker inside the image, through containerCommand(), against a scripted model server'
cat >"$WORK/worker.mts" <<'NODE'
// One task's life in container mode, by hand: repo + worktree + shared clone, a scripted model,
// containerCommand()'s argv run for real. Node 24 strips the types of the imported .ts files.
import { execFileSync, spawn } from 'node:child_process'
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import net from 'node:net'
import path from 'node:path'
const [root, work, image] = process.argv.slice(2) as [string, string, string]
const { containerCommand } = await import(path.join(root, 'src/cage/container.ts'))
const { startModelServer, script } = await import(path.join(root, 'demo/model-server.ts'))

const dir = path.join(work, 'run')
rmSync(dir, { recursive: true, force: true })
const repo = path.join(dir, 'repo'), wt = path.join(dir, 'wt'), clone = path.join(dir, 'clone')
const configDir = path.join(dir, 'config'), home = path.join(dir, 'home')
const git = (...args: string[]) => execFileSync('git', args, { encoding: 'utf8' }).trim()
mkdirSync(configDir, { recursive: true })
mkdirSync(home)
git('init', '-q', '-b', 'main', repo)
git('-C', repo, '-c', 'user.name=t', '-c', 'user.email=t@e', 'commit', '-q', '--allow-empty', '-m', 'base')
// What actions/checkout leaves behind: the container must not be able to read it.
git('-C', repo, 'config', 'http.https://github.com/.extraheader', 'AUTHORIZATION: basic c2VjcmV0')
git('-C', repo, 'worktree', 'add', '-q', '-b', 'fleet/t1', wt)
// The container's git: a shared clone on the task's branch; objects borrowed read-only.
git('clone', '-q', '--shared', '--no-checkout', repo, clone)
const gitDir = path.join(clone, '.git')
git('--git-dir', gitDir, 'remote', 'remove', 'origin')
git('--git-dir', gitDir, 'update-ref', 'refs/heads/fleet/t1', git('-C', wt, 'rev-parse', 'HEAD'))
git('--git-dir', gitDir, 'symbolic-ref', 'HEAD', 'refs/heads/fleet/t1')
git('--git-dir', gitDir, 'read-tree', 'HEAD')
git('--git-dir', gitDir, 'config', 'user.name', 'Fleet Worker')
git('--git-dir', gitDir, 'config', 'user.email', 'fleet-worker@localhost')
execFileSync('chown', ['-R', '1001:1001', wt, gitDir, configDir])

await using server = await startModelServer()
// The model server is loopback-only; the container reaches the host through the bridge gateway.
const relay = net.createServer(c => {
  const u = net.connect(Number(new URL(server.url).port), '127.0.0.1')
  c.pipe(u).pipe(c)
  c.on('error', () => u.destroy())
  u.on('error', () => c.destroy())
})
await new Promise<void>(r => relay.listen(0, '0.0.0.0', r))
const port = (relay.address() as net.AddressInfo).port
const gateway = execFileSync('podman', ['network', 'inspect', 'podman', '--format', '{{range .Subnets}}{{.Gateway}}{{end}}'], { encoding: 'utf8' }).trim()

const cmd = containerCommand({
  runtime: 'podman', image, name: 'fleet-check-t1', worktree: wt, configDir,
  git: { gitDir, objectsDir: path.join(repo, '.git', 'objects') },
  env: {
    PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, LANG: 'C.UTF-8',
    ANTHROPIC_BASE_URL: `http://${gateway}:${port}`, ANTHROPIC_API_KEY: 'sk-ant-check-0123456789',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', CLAUDE_CODE_MAX_RETRIES: '0'
  },
  cpus: '1', memory: '1g', pidsLimit: 256,
  claudeArgs: ['-p', '--output-format', 'json', '--no-session-persistence', '--permission-mode', 'bypassPermissions', '--max-turns', '5', '--tools', 'Bash,Read,Write,Edit']
})
console.log('argv:', cmd.file, cmd.args.join(' '))
const bash = `id -u > uid.txt; git add hello.txt && git commit -qm hello && (test -e ${repo}/.git/config && echo visible || echo hidden) > checkout-config.txt`
const prompt = 'Do it. ' + script({ key: 'podman', steps: [
  { tool: 'Write', input: { file_path: '/workspace/hello.txt', content: 'hello from a container\n' } },
  { tool: 'Bash', input: { command: bash } },
  { text: 'done' }
] })
const started = Date.now()
// CONTAINERS_CONF is this machine's podman setting (see the top of the script), not the worker's.
const child = spawn(cmd.file, cmd.args, { env: { ...cmd.env, CONTAINERS_CONF: process.env.CONTAINERS_CONF ?? '' }, stdio: ['pipe', 'pipe', 'inherit'] })
child.stdin.end(prompt)
let out = ''
child.stdout.on('data', d => (out += d))
const code = await new Promise<number | null>(r => child.on('close', r))
relay.close()
const result = JSON.parse(out.trim().split('\n').pop() ?? '{}')
const read = (f: string) => { try { return readFileSync(path.join(wt, f), 'utf8').trim() } catch { return '(missing)' } }
// The clone is now owned by the container's uid (1001), not by this root process, and git 2.39
// honours safe.directory only from protected (system/global) config, not from -c: a throwaway
// global config vouches for this one path.
const safeConfig = path.join(dir, 'safe.gitconfig')
writeFileSync(safeConfig, `[safe]\n\tdirectory = ${gitDir}\n`)
const asOwner = { encoding: 'utf8' as const, env: { ...process.env, GIT_CONFIG_GLOBAL: safeConfig } }
execFileSync('git', ['-C', repo, 'fetch', '-q', gitDir, 'fleet/t1:refs/heads/fleet/t1-container'], asOwner)
const report = {
  exitCode: code, seconds: (Date.now() - started) / 1000, is_error: result.is_error, num_turns: result.num_turns,
  requests: server.requests.length, hello: read('hello.txt'), uid: read('uid.txt'),
  checkoutConfig: read('checkout-config.txt'),
  workerCommit: execFileSync('git', ['--git-dir', gitDir, 'log', '-1', '--format=%s by %an'], asOwner).trim(),
  fetchedBack: git('-C', repo, 'log', '-1', '--format=%s', 'fleet/t1-container')
}
console.log(JSON.stringify(report, null, 2))
const ok = code === 0 && result.is_error === false && report.uid === '1001' && report.checkoutConfig === 'hidden' && report.fetchedBack === 'hello'
console.log(ok ? 'PODMAN CHECK: OK' : 'PODMAN CHECK: FAILED')
process.exitCode = ok ? 0 : 1
NODE
"$NODE_BIN" "$WORK/worker.mts" "$ROOT" "$WORK" "$IMAGE"
