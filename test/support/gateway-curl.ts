// Shell commands a hostile worker runs from its Bash tool to call the gateway directly, with its
// own token, past the sandbox proxy. Each curl prints only the HTTP status it got.

/** One direct request to the gateway's /v1/messages with `body`. */
export function directCurl(body: object, extra = '', headers: Record<string, string> = {}): string {
  const h = Object.entries({
    'content-type': 'application/json',
    'anthropic-version': '2023-06-01',
    ...headers
  })
    .map(([k, v]) => `-H '${k}: ${v}'`)
    .join(' ')
  return `curl --noproxy '*' -s -o /dev/null -w '%{http_code}\\n' ${extra} -H "x-api-key: \${ANTHROPIC_API_KEY:-$ANTHROPIC_AUTH_TOKEN}" ${h} "$ANTHROPIC_BASE_URL/v1/messages" -d '${JSON.stringify(body)}'`
}

/** `count` of those requests at once, all with `body`; the command ends when all have. */
export const burst = (count: number, body: object): string =>
  `for i in $(seq ${count}); do ${directCurl(body)} & done; wait`
