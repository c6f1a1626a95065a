/**
 * The environment of a child the action starts, chosen by name: never the action's own, which
 * holds the GitHub token (INPUT_GITHUB-TOKEN, GITHUB_TOKEN), the model key, the Actions runtime
 * tokens (ACTIONS_RUNTIME_TOKEN, ACTIONS_ID_TOKEN_REQUEST_TOKEN) and whatever else a workflow set.
 * A child's environment is readable by any process of the same user (/proc/<pid>/environ), and
 * an install script runs code the action did not write.
 */

/** What any program needs to run as this user: where things are, the locale, the clock. */
const BASE = /^(?:PATH|HOME|USER|LOGNAME|SHELL|LANG|LANGUAGE|LC_\w+|TZ|TMPDIR|TERM)$/

/** How to reach the network on a self-hosted runner: proxies and certificate authorities. */
const NETWORK =
  /^(?:(?:HTTPS?|NO|ALL)_PROXY|(?:https?|no|all)_proxy|SSL_CERT_FILE|SSL_CERT_DIR|NODE_EXTRA_CA_CERTS)$/

/** npm's own settings (cache, registry, offline, proxy...), as `npm_config_<name>` or upper case. */
const NPM = /^(?:npm_config_|NPM_CONFIG_)\w+$/

/** Any name that looks like a credential stays out, whatever allowlist it would match. */
const SECRET = /auth|token|passw|_pass|secret|_key|cred/i

export type EnvAllowlist = ReadonlyArray<RegExp | string>

/**
 * The variables of `host` that `allow` names: an exact name is taken as it is; a pattern never
 * takes a name that looks like a credential (npm_config__authToken, NODE_AUTH_TOKEN...).
 */
export function chosenEnv(host: NodeJS.ProcessEnv, allow: EnvAllowlist): Record<string, string> {
  const wanted = (name: string) =>
    allow.some(a => (typeof a === 'string' ? a === name : a.test(name) && !SECRET.test(name)))
  const env: Record<string, string> = {}
  for (const [name, value] of Object.entries(host)) {
    if (value !== undefined && wanted(name)) env[name] = value
  }
  return env
}

/** A system command (sudo, apt-get, sysctl, a container runtime's inspect): base and network. */
export function systemEnv(
  host: NodeJS.ProcessEnv,
  extra: EnvAllowlist = []
): Record<string, string> {
  return chosenEnv(host, [BASE, NETWORK, ...extra])
}

/** npm installing a package, and its install script: base, network and npm's settings. */
export function npmEnv(host: NodeJS.ProcessEnv): Record<string, string> {
  return chosenEnv(host, [BASE, NETWORK, NPM])
}
