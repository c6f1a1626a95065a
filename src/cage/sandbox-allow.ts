/**
 * The sandbox's egress allowlist (`allowed-domains`): which host:port a caged command may reach
 * through the action's proxy, and why one is refused. Pure.
 */
import { classifyHost, specialKind } from './sandbox-ip.js'

export interface AllowRule {
  /** Lower-case host name, or an IP address in canonical form; with `wildcard`, the suffix its subdomains end in. */
  host: string
  wildcard: boolean
  /** Ports allowed: the one given, else 80 and 443. */
  ports: number[]
  /** `host` is an IP address: the one rule that lets the proxy reach it, public or not. */
  ip?: boolean
  /** Set by the action, never by an entry: the name may resolve anywhere (the model endpoint's). */
  anyAddress?: boolean
}

const LABEL = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?'
const ENTRY = new RegExp(`^(\\*\\.)?(${LABEL}(?:\\.${LABEL})*)(?::(\\d{1,5}))?$`)
const ENTRY6 = /^\[([0-9a-f:.]+)\](?::(\d{1,5}))?$/

function ruleOf(host: string, wildcard: boolean, port: string | undefined): AllowRule | undefined {
  const p = port === undefined ? undefined : Number(port)
  if (p !== undefined && (p < 1 || p > 65535)) return undefined
  const ports = p ? [p] : [80, 443]
  const kind = classifyHost(host)
  if (kind.kind === 'invalid' || (kind.kind === 'ip' && wildcard)) return undefined
  if (kind.kind === 'ip') return { host: kind.address, wildcard: false, ports, ip: true }
  return { host: kind.name, wildcard, ports }
}

/**
 * One `allowed-domains` entry: `host`, `*.host` (its subdomains, not itself), an IP address
 * (`10.0.0.5`, `[fd00::5]`), or any of these with `:port`. Returns the rule, or a sentence saying
 * what would be right.
 */
export function parseAllowEntry(entry: string): AllowRule | string {
  const e = entry.trim().toLowerCase()
  const v6 = ENTRY6.exec(e)
  const m = v6 ? undefined : ENTRY.exec(e)
  const rule = v6
    ? ruleOf(v6[1] ?? '', false, v6[2])
    : m?.[2] && ruleOf(m[2], m[1] !== undefined, m[3])
  return (
    rule ||
    `'${entry}' is not a host name: expected e.g. registry.npmjs.org, *.pythonhosted.org, localhost:8080, 10.0.0.5:8080 or [fd00::5]:8080`
  )
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

/** The rules a name matches on this port (never an IP rule). */
function nameRules(rules: readonly AllowRule[], name: string, port: number): AllowRule[] {
  return rules.filter(
    r =>
      !r.ip &&
      r.ports.includes(port) &&
      (r.wildcard ? name.endsWith(`.${r.host}`) : name === r.host)
  )
}

function namesIp(rules: readonly AllowRule[], address: string, port: number): boolean {
  return rules.some(r => r.ip && r.host === address && r.ports.includes(port))
}

/** The `allowed-domains` entry that allows exactly this host and port. */
export function entryFor(host: string, port: number): string {
  const h = host.includes(':') ? `[${host}]` : host
  return port === 80 || port === 443 ? h : `${h}:${port}`
}

export type Verdict =
  | { ok: true; ip: string }
  | { ok: true; name: string; anyAddress: boolean }
  /** `says` completes "<target> …"; `allow` is the entry that would allow it, if one would. */
  | { ok: false; says: string; allow?: string }

export const NOT_ALLOWED = 'is not in allowed-domains'

/**
 * Whether the proxy may go to host:port as the worker named it. An IP literal, in any form, only
 * when an entry names that address; a name when an entry matches it (its addresses are judged
 * once resolved: judgeAddresses).
 */
export function judgeTarget(rules: readonly AllowRule[], host: string, port: number): Verdict {
  const kind = classifyHost(host)
  if (kind.kind === 'invalid' || !(port >= 1 && port <= 65535))
    return { ok: false, says: 'is not a host name or an IP address and port' }
  if (kind.kind === 'ip')
    return namesIp(rules, kind.address, port)
      ? { ok: true, ip: kind.address }
      : { ok: false, says: NOT_ALLOWED, allow: entryFor(kind.address, port) }
  const matched = nameRules(rules, kind.name, port)
  if (matched.length === 0)
    return { ok: false, says: NOT_ALLOWED, allow: entryFor(kind.name, port) }
  return { ok: true, name: kind.name, anyAddress: matched.some(r => r.anyAddress) }
}

/**
 * An allowed name's resolved addresses: the first to connect to, or the refusal when any of them
 * is loopback, private, link-local, unique-local, multicast or unspecified and no entry names it
 * (a public name pointed at the runner's own network is how an allowlist is bypassed).
 */
export function judgeAddresses(
  rules: readonly AllowRule[],
  port: number,
  addresses: readonly string[]
): Verdict {
  const judged = addresses.map(a => classifyHost(a))
  for (const k of judged) {
    if (k.kind !== 'ip') return { ok: false, says: 'did not resolve to an IP address' }
    const special = specialKind(k.address, k.family)
    if (special && !namesIp(rules, k.address, port))
      return {
        ok: false,
        says: `resolves to ${k.address}, a ${special} address not in allowed-domains`,
        allow: entryFor(k.address, port)
      }
  }
  const first = judged[0]
  return first?.kind === 'ip'
    ? { ok: true, ip: first.address }
    : { ok: false, says: 'did not resolve' }
}

/** Loopback names and addresses: a model endpoint there is forwarded, not proxied. */
export function isLoopback(host: string): boolean {
  const h = normaliseHost(host)
  return h === 'localhost' || h === '::1' || /^127\.\d+\.\d+\.\d+$/.test(h)
}

/** Whether host:port passes the rules before any resolution. */
export function isAllowed(rules: readonly AllowRule[], host: string, port: number): boolean {
  return judgeTarget(rules, host, port).ok
}
