/** Text from tasks and workers goes into tables and code blocks: keep it from breaking them. */
export function cell(text: string): string {
  return text
    .replace(/\|/g, '\\|')
    .replace(/\r\n?|\n/g, ' ')
    .slice(0, 200)
}

export function fence(text: string): string {
  const longest = Math.max(2, ...(text.match(/`+/g) ?? []).map(s => s.length))
  const ticks = '`'.repeat(longest + 1)
  return `${ticks}\n${text}\n${ticks}`
}

export function duration(ms: number): string {
  if (ms < 1000) return `${ms} ms`
  const s = ms / 1000
  return s < 120 ? `${s.toFixed(1)} s` : `${Math.floor(s / 60)} min ${Math.round(s % 60)} s`
}

export function tokens(n: number): string {
  return n >= 10_000 ? `${(n / 1000).toFixed(1)}k` : String(n)
}
