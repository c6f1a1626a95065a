// What an e2e test of the egress proxy needs: a loopback service that records who asked, and a
// raw request to the proxy from inside a cage, with no client between to tidy the target.
import http from 'node:http'
import type { AddressInfo } from 'node:net'

export interface Service {
  port: number
  /** The Host header of every request it answered. */
  hosts: string[]
  close(): void
}

/** An HTTP service on `host` (loopback by default) that records the Host header of every request. */
export function service(name: string, host = '127.0.0.1'): Promise<Service> {
  const hosts: string[] = []
  const server = http.createServer((req, res) => {
    hosts.push(req.headers.host ?? '')
    res.end(`${name} host=${req.headers.host ?? ''}`)
  })
  return new Promise(resolve =>
    server.listen(0, host, () =>
      resolve({
        port: (server.address() as AddressInfo).port,
        hosts,
        close: () => server.close()
      })
    )
  )
}

/**
 * A raw request to the proxy $HTTP_PROXY names, over bash's /dev/tcp: prints
 * `<label> => <status line> | <last line of the body>`.
 */
export function raw(label: string, request: string): string {
  const send = request.replaceAll('%', '%%')
  return [
    `p=\${HTTP_PROXY#http://}; p=\${p%/}`,
    `exec 3<>/dev/tcp/\${p%:*}/\${p##*:}`,
    `printf '${send}\\r\\nHost: x\\r\\n\\r\\n' >&3`,
    `echo "${label} => $(timeout 10 cat <&3 | tr -d '\\r' | sed -n '1p;$p' | paste -sd'|')"`,
    'exec 3<&-'
  ].join('; ')
}
