// A stand-in for the docker CLI where no engine runs (this machine has no Docker daemon, and no
// worker image can be built offline): it reads the command line the action gives `docker run` and
// applies its mount list with bubblewrap, so what a container of the action's would see and
// write is what this cage sees and writes. What it does NOT stand in for: the image (the host's
// /usr and /etc, read-only, and the host's claude bound in), the bridge network (a cage with a
// network shares the host's loopback, so `network inspect` answers 127.0.0.1; `--network none`
// gets none), cgroup limits, capabilities and the seccomp profile (`--cpus`, `--memory`,
// `--cap-drop`, `--security-opt` are accepted and ignored).
//
// Environment: FLEET_STANDIN_BWRAP (bwrap's path), FLEET_STANDIN_CLAUDE (the claude binary the
// "image" holds), FLEET_STANDIN_STATE (a directory for each running container's pid, for `kill`).
import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'

const env = process.env
const state = env.FLEET_STANDIN_STATE ?? '/tmp/fleet-standin'
const [command, ...rest] = process.argv.slice(2)

function fail(message) {
  process.stderr.write(`standin-runtime: ${message}\n`)
  process.exit(125)
}

/** `--mount type=bind,src=S,dst=D[,readonly]` as the action writes it (container.ts bind). */
function mountArgs(spec) {
  const fields = Object.fromEntries(
    spec.split(',').map(kv => (kv.includes('=') ? kv.split(/=(.*)/s).slice(0, 2) : [kv, 'true']))
  )
  if (fields.type !== 'bind' || !fields.src || !fields.dst) fail(`unsupported mount '${spec}'`)
  return [fields.readonly ? '--ro-bind' : '--bind', fields.src, fields.dst]
}

/** `docker run`'s flags, read as the action writes them; anything unknown is refused. */
function parseRun(args) {
  const run = { mounts: [], env: [], user: undefined, workdir: '/', network: 'bridge', name: '' }
  const ignored = new Set(['--cpus', '--memory', '--memory-swap', '--pids-limit', '--label'])
  const ignoredValues = new Set(['--security-opt', '--cap-drop'])
  let i = 0
  for (; i < args.length; i++) {
    const a = args[i]
    if (!a.startsWith('--')) break
    const value = args[i + 1]
    if (a === '--rm' || a === '--interactive') continue
    i++
    if (a === '--mount') run.mounts.push(mountArgs(value))
    else if (a === '--volume') fail(`overlay volumes ('${value}') are podman's; not stood in for`)
    else if (a === '--env') run.env.push(value)
    else if (a === '--user') run.user = value
    else if (a === '--workdir') run.workdir = value
    else if (a === '--network') run.network = value
    else if (a === '--name') run.name = value
    else if (!ignored.has(a) && !ignoredValues.has(a)) fail(`unknown flag ${a}`)
  }
  run.image = args[i]
  run.command = args.slice(i + 1)
  return run
}

/** The environment inside: `--env NAME=VALUE` as given, `--env NAME` from this CLI's own. */
function innerEnv(entries, claudeDir) {
  const inner = { PATH: `${claudeDir}:/usr/local/bin:/usr/bin:/bin`, HOME: '/home/fleet' }
  for (const e of entries) {
    const eq = e.indexOf('=')
    if (eq >= 0) inner[e.slice(0, eq)] = e.slice(eq + 1)
    else if (env[e] !== undefined) inner[e] = env[e]
  }
  return Object.entries(inner).flatMap(([k, v]) => ['--setenv', k, v])
}

function runContainer(args) {
  const run = parseRun(args)
  if (!run.image || run.command.length === 0) fail('no image or command')
  const claude = env.FLEET_STANDIN_CLAUDE
  const claudeDir = '/opt/standin-image/bin'
  const [uid, gid] = (run.user ?? `${process.getuid()}:${process.getgid()}`).split(':')
  const bwrap = [
    '--unshare-user',
    '--uid',
    uid,
    '--gid',
    gid ?? uid,
    '--unshare-pid',
    '--unshare-ipc',
    '--unshare-uts',
    ...(run.network === 'none' ? ['--unshare-net'] : []),
    '--die-with-parent',
    '--new-session',
    '--ro-bind',
    '/usr',
    '/usr',
    '--ro-bind',
    '/etc',
    '/etc',
    ...['bin', 'lib', 'lib64', 'sbin'].flatMap(d =>
      existsSync(`/${d}`) ? ['--symlink', `usr/${d}`, `/${d}`] : []
    ),
    '--proc',
    '/proc',
    '--dev',
    '/dev',
    '--tmpfs',
    '/tmp',
    '--tmpfs',
    '/home',
    '--dir',
    '/home/fleet',
    // The "image's" claude: the host binary's directory, and `claude` on PATH naming it.
    ...(claude
      ? [
          '--ro-bind',
          path.dirname(claude),
          '/opt/standin-image/lib',
          '--symlink',
          `/opt/standin-image/lib/${path.basename(claude)}`,
          `${claudeDir}/claude`
        ]
      : []),
    // The action's mount list, in its order (a later mount over an earlier one's path, as the
    // read-only .git over the task's files, lands on top as it does in a container).
    ...run.mounts.flat(),
    '--chdir',
    run.workdir,
    '--clearenv',
    ...innerEnv(run.env, claudeDir),
    '--',
    ...run.command
  ]
  mkdirSync(state, { recursive: true })
  const child = spawn(env.FLEET_STANDIN_BWRAP ?? 'bwrap', bwrap, { stdio: 'inherit' })
  const pidFile = path.join(state, `${run.name || 'anonymous'}.pid`)
  if (run.name && child.pid) writeFileSync(pidFile, String(child.pid))
  const forward = signal => () => child.kill(signal)
  for (const s of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(s, forward(s))
  child.on('exit', (code, signal) => {
    rmSync(pidFile, { force: true })
    process.exit(code ?? 128 + (signal === 'SIGKILL' ? 9 : 15))
  })
}

function kill(name) {
  const pidFile = path.join(state, `${name}.pid`)
  if (!existsSync(pidFile)) fail(`no such container: ${name}`)
  try {
    process.kill(Number(readFileSync(pidFile, 'utf8')), 'SIGKILL')
  } catch {
    fail(`no such container: ${name}`)
  }
}

switch (command) {
  case 'run':
    runContainer(rest)
    break
  case 'network':
    // `network inspect <name> --format ...`: the gateway the workers reach the model through.
    process.stdout.write('127.0.0.1\n')
    break
  case 'kill':
    kill(rest.at(-1))
    break
  case 'rm':
    break
  case 'container':
    // `container inspect --format {{.State.Running}} <name>`
    process.stdout.write(existsSync(path.join(state, `${rest.at(-1)}.pid`)) ? 'true\n' : 'false\n')
    break
  default:
    fail(`'${command}' is not stood in for`)
}
