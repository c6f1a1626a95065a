import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  type AllowRule,
  entryFor,
  judgeAddresses,
  judgeTarget,
  parseAllowEntry,
  parseAllowList
} from '../../src/cage/sandbox-allow.js'
import { classifyHost, specialKind } from '../../src/cage/sandbox-ip.js'
import { blockedLines } from '../../src/cage/sandbox-proxy.js'

function rulesOf(entries: string[]): AllowRule[] {
  const rules = parseAllowList(entries)
  if (typeof rules === 'string') throw new Error(rules)
  return rules
}

/** Every way a resolver or URL parser writes 127.0.0.1, and the zone-id trick of the report. */
const LOOPBACK_FORMS = [
  '127.0.0.1',
  '2130706433',
  '0177.0.0.1',
  '0x7f.1',
  '0x7f000001',
  '127.1',
  '127.0.1',
  '127.0.0.1.',
  '[::ffff:127.0.0.1]',
  '::ffff:7f00:1',
  '[::ffff:127.0.0.1%x.example.com]',
  '[::ffff:7f00:1%25x.example.com]'
]

describe('IP literals, in any form', () => {
  it('come back as the one address they name', () => {
    for (const form of LOOPBACK_FORMS)
      expect(classifyHost(form), form).toEqual({ kind: 'ip', address: '127.0.0.1', family: 4 })
    expect(classifyHost('[::1]')).toEqual({ kind: 'ip', address: '::1', family: 6 })
    expect(classifyHost('fe80::1%eth0')).toEqual({ kind: 'ip', address: 'fe80::1', family: 6 })
    expect(classifyHost('[0:0:0:0:0:0:0:1]')).toEqual({ kind: 'ip', address: '::1', family: 6 })
    expect(classifyHost('0xa9.0xfe.0xa9.0xfe')).toEqual({
      kind: 'ip',
      address: '169.254.169.254',
      family: 4
    })
  })

  it('are names only when they are not numbers, and garbage is neither', () => {
    expect(classifyHost('a.example.com')).toEqual({ kind: 'name', name: 'a.example.com' })
    expect(classifyHost('1.2.3.4.example.com')).toEqual({
      kind: 'name',
      name: '1.2.3.4.example.com'
    })
    for (const bad of ['256.1.1.1', '0x7f.1.example.com.1', 'a b', '', 'x@y', '[nope]', 'x%y'])
      expect(classifyHost(bad), bad).toEqual({ kind: 'invalid' })
  })

  it('are refused under a wildcard whose suffix they carry, in every form', () => {
    const rules = rulesOf(['*.example.com', 'registry.npmjs.org'])
    for (const form of [...LOOPBACK_FORMS, '169.254.169.254', '[::1%x.example.com]']) {
      const v = judgeTarget(rules, form, 443)
      expect(v.ok, form).toBe(false)
    }
    expect(judgeTarget(rules, 'a.example.com', 443)).toEqual({
      ok: true,
      name: 'a.example.com',
      anyAddress: false
    })
  })

  it('are allowed only by an entry naming that address and port, whatever form either uses', () => {
    const rules = rulesOf(['127.0.0.1:8080', '[::1]:8080'])
    for (const form of LOOPBACK_FORMS)
      expect(judgeTarget(rules, form, 8080), form).toEqual({ ok: true, ip: '127.0.0.1' })
    expect(judgeTarget(rules, '[::1]', 8080)).toEqual({ ok: true, ip: '::1' })
    expect(judgeTarget(rules, '127.0.0.1', 8081).ok).toBe(false)
    expect(judgeTarget(rules, '127.0.0.2', 8080).ok).toBe(false)
    expect(judgeTarget(rules, 'localhost', 8080).ok).toBe(false)
    expect(judgeTarget(rulesOf(['0x7f.1:8080']), '127.0.0.1', 8080).ok).toBe(true)
  })

  it('say which entry would allow them', () => {
    expect(judgeTarget([], '0x7f.1', 8080)).toEqual({
      ok: false,
      says: 'is not in allowed-domains',
      allow: '127.0.0.1:8080'
    })
    expect(judgeTarget([], '[::1]', 443)).toMatchObject({ allow: '[::1]' })
    expect(judgeTarget([], 'pypi.org', 443)).toMatchObject({ allow: 'pypi.org' })
    expect(judgeTarget([], 'pypi.org', 8443)).toMatchObject({ allow: 'pypi.org:8443' })
    // The suggested entry parses, and allows exactly what was refused.
    fc.assert(
      fc.property(
        fc.oneof(fc.ipV4(), fc.ipV6(), fc.ipV4Extended(), fc.domain()),
        fc.integer({ min: 1, max: 65535 }),
        (host, port) => {
          const v = judgeTarget([], host, port)
          expect(v.ok).toBe(false)
          if (v.ok || !v.allow) return
          expect(judgeTarget(rulesOf([v.allow]), host, port).ok).toBe(true)
        }
      )
    )
  })

  it('never pass a name rule, and a name rule never passes an address', () => {
    fc.assert(
      fc.property(fc.oneof(fc.ipV4(), fc.ipV4Extended(), fc.ipV6()), ip => {
        const rules = rulesOf(['*.example.com', 'example.com', 'localhost'])
        expect(judgeTarget(rules, ip, 443).ok).toBe(false)
        expect(judgeTarget(rules, `[${ip}%x.example.com]`, 443).ok).toBe(false)
      })
    )
  })
})

describe("a name's resolved addresses", () => {
  const rules = rulesOf(['*.example.com', '10.0.0.5:443'])

  it('are refused when any is the runner’s own or its network’s, naming the kind', () => {
    const cases: [string[], string][] = [
      [['127.0.0.1'], 'loopback'],
      [['93.184.216.34', '169.254.169.254'], 'link-local'],
      [['10.1.2.3'], 'private'],
      [['192.168.1.1'], 'private'],
      [['172.20.0.1'], 'private'],
      [['0.0.0.0'], 'unspecified'],
      [['224.0.0.1'], 'multicast'],
      [['::1'], 'loopback'],
      [['::'], 'unspecified'],
      [['fe80::1'], 'link-local'],
      [['fd00::1'], 'unique-local'],
      [['ff02::1'], 'multicast'],
      [['::ffff:127.0.0.1'], 'loopback'],
      [['2606:4700::1', '::ffff:a9fe:a9fe'], 'link-local']
    ]
    for (const [addresses, kind] of cases) {
      const v = judgeAddresses(rules, 443, addresses)
      expect(v, addresses.join()).toMatchObject({ ok: false })
      if (!v.ok) expect(v.says).toContain(`a ${kind} address`)
    }
  })

  it('go to the first address when all are public, or named', () => {
    expect(judgeAddresses(rules, 443, ['93.184.216.34', '2606:4700::1'])).toEqual({
      ok: true,
      ip: '93.184.216.34'
    })
    expect(judgeAddresses(rules, 443, ['10.0.0.5'])).toEqual({ ok: true, ip: '10.0.0.5' })
    expect(judgeAddresses(rules, 80, ['10.0.0.5'])).toMatchObject({
      ok: false,
      allow: '10.0.0.5'
    })
    expect(judgeAddresses(rules, 443, []).ok).toBe(false)
  })

  it('classify public unicast as public, and everything in the special ranges as special', () => {
    expect(specialKind('8.8.8.8', 4)).toBeUndefined()
    expect(specialKind('2606:4700::1', 6)).toBeUndefined()
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0, max: 255 }), (c, d) => {
        for (const prefix of ['127.9', '10.200', '169.254', '192.168', '172.31'])
          expect(specialKind(`${prefix}.${c}.${d}`, 4)).toBeDefined()
      })
    )
  })
})

describe('allowed-domains entries for addresses', () => {
  it('take IPv4 and bracketed IPv6, with or without a port, canonical', () => {
    expect(parseAllowEntry('127.0.0.1:8080')).toEqual({
      host: '127.0.0.1',
      wildcard: false,
      ports: [8080],
      ip: true
    })
    expect(parseAllowEntry('[FD00::0005]')).toEqual({
      host: 'fd00::5',
      wildcard: false,
      ports: [80, 443],
      ip: true
    })
    for (const bad of ['*.10.0.0.1', '[::1', '[nope]:80', '::1', '256.0.0.1'])
      expect(parseAllowEntry(bad), bad).toMatch(/is not a host name/)
  })

  it('are suggested in the summary, one line per refused target', () => {
    const lines = blockedLines(
      new Map([
        [
          '127.0.0.1:8080',
          { says: 'is not in allowed-domains', allow: entryFor('127.0.0.1', 8080) }
        ],
        ['x:1', { says: 'is not a host name or an IP address and port' }]
      ])
    )
    expect(lines).toEqual([
      '`127.0.0.1:8080` is not in allowed-domains; to allow it, add `127.0.0.1:8080` to `allowed-domains`',
      '`x:1` is not a host name or an IP address and port'
    ])
  })
})
