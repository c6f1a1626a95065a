import { access, constants } from 'node:fs/promises'
import path from 'node:path'
import { InputError } from '../errors.js'
import { npmEnv } from '../child-env.js'
import { runOk } from '../process.js'

/** The claude CLI this release is tested with; test/unit/pin.test.ts holds it to package.json. */
export const CLAUDE_CODE_VERSION = '2.1.332'

async function isExecutable(file: string): Promise<boolean> {
  return access(file, constants.X_OK).then(
    () => true,
    () => false
  )
}

export async function findOnPath(
  name: string,
  pathVar: string | undefined
): Promise<string | undefined> {
  for (const dir of (pathVar ?? '').split(path.delimiter).filter(Boolean)) {
    const candidate = path.join(dir, name)
    if (await isExecutable(candidate)) return candidate
  }
  return undefined
}

/**
 * Installs the pinned CLI under `dir`. npm 11 does not run a dependency's install scripts unless
 * allowed, and the CLI's postinstall links its native binary, so run that step explicitly. Both
 * run with an environment chosen by name (PATH, HOME, locale, proxies, npm's settings): the
 * action's own holds the GitHub token and the model key, and an install script is code from the
 * registry.
 */
async function installPinned(dir: string, host: NodeJS.ProcessEnv): Promise<string> {
  const env = npmEnv(host)
  await runOk(
    'npm',
    [
      'install',
      '--prefix',
      dir,
      '--no-save',
      '--no-audit',
      '--no-fund',
      // A runner's npm cache (setup-node's, or the image's) saves the 186 MB download.
      '--prefer-offline',
      `@anthropic-ai/claude-code@${CLAUDE_CODE_VERSION}`
    ],
    { env, maxBuffer: 16 * 1024 * 1024 }
  )
  const pkg = path.join(dir, 'node_modules', '@anthropic-ai', 'claude-code')
  await runOk(process.execPath, [path.join(pkg, 'install.cjs')], { cwd: pkg, env })
  return path.join(dir, 'node_modules', '.bin', 'claude')
}

export interface Claude {
  file: string
  version: string
}

/** Reads the version of the claude at `file` (`claude --version`'s first word). */
export type VersionProbe = (file: string) => Promise<string>

/** The first word of `claude --version`'s answer: `2.1.332 (Claude Code)`. */
export function versionIn(answer: string): string {
  return answer.trim().split(/\s/)[0] || 'unknown'
}

/** `--version` run here, on the runner. */
const hostVersion =
  (pathVar: string | undefined): VersionProbe =>
  async file => {
    const { stdout } = await runOk(file, ['--version'], {
      env: { PATH: pathVar ?? '', DISABLE_AUTOUPDATER: '1' }
    })
    return versionIn(stdout)
  }

/** `claude-path`, else `claude` on PATH, else the pinned version installed under `installDir`. */
export async function resolveClaude(opts: {
  claudePath?: string
  pathVar?: string
  /** The action's environment, from which the install's own is chosen (see installPinned). */
  host: NodeJS.ProcessEnv
  installDir: string
  log: (m: string) => void
  /**
   * How its version is read, where the workers will run it (the sandbox's own start of it,
   * which is checked anyway): one start of the binary, not two. Default: `--version` here.
   */
  version?: VersionProbe
}): Promise<Claude> {
  let file = opts.claudePath
  if (file && !(await isExecutable(file))) {
    throw new InputError(
      'claude-path',
      `'${file}' is not an executable file; give the path of the claude binary, or leave it empty`
    )
  }
  file ??= await findOnPath('claude', opts.pathVar)
  if (!file) {
    opts.log(`claude is not on PATH: installing @anthropic-ai/claude-code@${CLAUDE_CODE_VERSION}`)
    file = await installPinned(opts.installDir, opts.host)
  }
  const version = await (opts.version ?? hostVersion(opts.pathVar))(file)
  if (version !== CLAUDE_CODE_VERSION) {
    opts.log(
      `warning: claude ${version} at ${file}; this release is tested with ${CLAUDE_CODE_VERSION}`
    )
  }
  return { file, version }
}
