import { access, constants } from 'node:fs/promises'
import path from 'node:path'
import { InputError } from '../errors.js'
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
 * npm's environment for the install: what it needs to find itself, its cache and the registry
 * (npm_config_*, proxies, CA files), never the action's tokens or the model key.
 */
function installEnv(host: NodeJS.ProcessEnv): Record<string, string | undefined> {
  const keep =
    /^(PATH|HOME|TMPDIR|LANG|LC_ALL|SSL_CERT_(FILE|DIR)|NODE_EXTRA_CA_CERTS|(HTTPS?|NO)_PROXY|(https?|no)_proxy|npm_config_\w+|NPM_CONFIG_\w+)$/
  return Object.fromEntries(
    Object.entries(host).filter(([name]) => keep.test(name) && !/TOKEN|AUTH|PASSWORD/i.test(name))
  )
}

/**
 * Installs the pinned CLI under `dir`. npm 11 does not run a dependency's install scripts unless
 * allowed, and the CLI's postinstall links its native binary, so run that step explicitly.
 */
async function installPinned(dir: string): Promise<string> {
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
    { maxBuffer: 16 * 1024 * 1024, env: installEnv(process.env) }
  )
  const pkg = path.join(dir, 'node_modules', '@anthropic-ai', 'claude-code')
  await runOk(process.execPath, [path.join(pkg, 'install.cjs')], {
    cwd: pkg,
    env: installEnv(process.env)
  })
  return path.join(dir, 'node_modules', '.bin', 'claude')
}

export interface Claude {
  file: string
  version: string
}

/** `claude-path`, else `claude` on PATH, else the pinned version installed under `installDir`. */
export async function resolveClaude(opts: {
  claudePath?: string
  pathVar?: string
  installDir: string
  log: (m: string) => void
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
    file = await installPinned(opts.installDir)
  }
  const { stdout } = await runOk(file, ['--version'], {
    env: { PATH: opts.pathVar ?? '', DISABLE_AUTOUPDATER: '1' }
  })
  const version = stdout.trim().split(/\s/)[0] ?? 'unknown'
  if (version !== CLAUDE_CODE_VERSION) {
    opts.log(
      `warning: claude ${version} at ${file}; this release is tested with ${CLAUDE_CODE_VERSION}`
    )
  }
  return { file, version }
}
