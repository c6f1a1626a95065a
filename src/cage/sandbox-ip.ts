/**
 * What a proxy target names: an IP literal (in any of the forms a resolver or URL parser takes) or
 * a host name, and which addresses are the runner's own or its network's. Pure.
 */
import { BlockList, isIP } from 'node:net'

export type HostKind =
  | { kind: 'ip'; address: string; family: 4 | 6 }
  | { kind: 'name'; name: string }
  | { kind: 'invalid' }

const INVALID: HostKind = { kind: 'invalid' }

/** `::ffff:7f00:1`, as the URL parser writes `::ffff:127.0.0.1`: the IPv4 address it carries. */
function unmapped(v6: string): string | undefined {
  const m = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(v6)
  if (!m) return undefined
  const [hi, lo] = [parseInt(m[1] ?? '', 16), parseInt(m[2] ?? '', 16)]
  return [hi >> 8, hi & 255, lo >> 8, lo & 255].join('.')
}

function ipv6(h: string): HostKind {
  // A zone id (`fe80::1%eth0`) names an interface, not a host: dropped, the address still judged.
  const address = h.split('%', 1)[0] ?? ''
  if (isIP(address) !== 6) return INVALID
  const canonical = new URL(`http://[${address}]/`).hostname.slice(1, -1)
  const v4 = unmapped(canonical)
  return v4 ? { kind: 'ip', address: v4, family: 4 } : { kind: 'ip', address: canonical, family: 6 }
}

/**
 * The host as a proxy request or an `allowed-domains` entry names it. IPv4 in any form a URL
 * parser or inet_aton takes (`2130706433`, `0177.0.0.1`, `0x7f.1`, `127.1`) comes back as its
 * dotted quad; IPv6 (brackets, zone id, v4-mapped) as its canonical form or the IPv4 it maps.
 */
export function classifyHost(raw: string): HostKind {
  const bracketed = /^\[(.*)\]$/.exec(raw.toLowerCase())
  if (bracketed) return ipv6(bracketed[1] ?? '')
  const h = raw.toLowerCase().replace(/\.$/, '')
  if (h.includes(':') || h.includes('%')) return ipv6(h)
  if (!/^[a-z0-9_.-]+$/.test(h)) return INVALID
  let parsed: string
  try {
    // WHATWG's host parser: a name whose last label is a number is an IPv4 address, or invalid.
    parsed = new URL(`http://${h}/`).hostname
  } catch {
    return INVALID
  }
  return isIP(parsed) === 4 ? { kind: 'ip', address: parsed, family: 4 } : { kind: 'name', name: h }
}

const SPECIAL = new BlockList()
const RANGES4: [string, number, string][] = [
  ['0.0.0.0', 8, 'unspecified'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'private'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'private'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'private'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved']
]
const RANGES6: [string, number, string][] = [
  ['::', 128, 'unspecified'],
  ['::1', 128, 'loopback'],
  ['fe80::', 10, 'link-local'],
  ['fc00::', 7, 'unique-local'],
  ['ff00::', 8, 'multicast'],
  // Tunnels and translations that carry an IPv4 address inside: judged as not global.
  ['2001::', 32, 'tunnelled'],
  ['2002::', 16, 'tunnelled'],
  ['2001:db8::', 32, 'reserved']
]
for (const [net, bits] of RANGES4) SPECIAL.addSubnet(net, bits, 'ipv4')
for (const [net, bits] of RANGES6) SPECIAL.addSubnet(net, bits, 'ipv6')
const GLOBAL6 = new BlockList()
GLOBAL6.addSubnet('2000::', 3, 'ipv6')

/**
 * What an address is when the proxy must not reach it unnamed (loopback, private, link-local,
 * unique-local, multicast, unspecified, reserved), or undefined for a public unicast address.
 */
export function specialKind(address: string, family: 4 | 6): string | undefined {
  const type = family === 4 ? 'ipv4' : 'ipv6'
  if (SPECIAL.check(address, type)) {
    const ranges = family === 4 ? RANGES4 : RANGES6
    const one = ranges.find(([net, bits]) => {
      const list = new BlockList()
      list.addSubnet(net, bits, type)
      return list.check(address, type)
    })
    return one?.[2] ?? 'reserved'
  }
  if (family === 6 && !GLOBAL6.check(address, 'ipv6')) return 'reserved'
  return undefined
}
