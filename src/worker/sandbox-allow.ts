/**
 * The sandbox's egress allowlist (`allowed-domains`): which host:port a caged command may reach
 * through the action's proxy. Pure.
 */

export interface AllowRule {
  /** Lower-case host name or IPv4 address; with `wildcard`, the suffix its subdomains end in. */
  host: string
  wildcard: boolean
  /** Ports allowed: the one given, else 80 and 443. */
  ports: number[]
}

const LABEL = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?'
const ENTRY = new RegExp(`^(\\*\\.)?(${LABEL}(?:\\.${LABEL})*)(?::(\\d{1,5}))?$`)

/**
 * One `allowed-domains` entry: `host`, `*.host` (its subdomains, not itself) or either with
 * `:port`. Returns the rule, or a sentence saying what would be right.
 */
export function parseAllowEntry(entry: string): AllowRule | string {
  const m = ENTRY.exec(entry.trim().toLowerCase())
  const port = m?.[3] === undefined ? undefined : Number(m[3])
  if (!m?.[2] || (port !== undefined && (port < 1 || port > 65535))) {
    return `'${entry}' is not a host name: expected e.g. registry.npmjs.org, *.pythonhosted.org or localhost:8080`
  }
  return { host: m[2], wildcard: m[1] !== undefined, ports: port ? [port] : [80, 443] }
}

export function parseAllowList(entries: string[]): AllowRule[] | string {
  const rules: AllowRule[] = []
  for (const entry of entries) {
    const rule = parseAllowEntry(entry)
    if (typeof rule === 'string') return rule
    rules.push(rule)
  }
  return rules
}

/** The host as a proxy request names it: lower case, no trailing dot, no IPv6 brackets. */
export function normaliseHost(host: string): string {
  return host
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.$/, '')
}

export function isAllowed(rules: readonly AllowRule[], host: string, port: number): boolean {
  const h = normaliseHost(host)
  return rules.some(
    r => r.ports.includes(port) && (r.wildcard ? h.endsWith(`.${r.host}`) : h === r.host)
  )
}

/** Loopback names and addresses: a model endpoint there is forwarded, not proxied. */
export function isLoopback(host: string): boolean {
  const h = normaliseHost(host)
  return h === 'localhost' || h === '::1' || /^127\.\d+\.\d+\.\d+$/.test(h)
}
