import { cleanText } from './invisible.js'

// "2026-01-01T00:00:00.1234567Z " starts every line of an Actions log; ANSI colours are noise.
const TIMESTAMP = /^\uFEFF?\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z ?/
// eslint-disable-next-line no-control-regex -- ANSI escapes are exactly what this removes
const ANSI = /\u001b\[[0-9;]*[A-Za-z]/g

/** The last `lines` lines of a job's log (at most `chars` characters), timestamps and colours off. */
export function logTail(log: string, lines = 80, chars = 6000): string {
  const all = log
    .replace(/\r\n?/g, '\n')
    .split('\n')
    .map(line => line.replace(TIMESTAMP, '').replace(ANSI, ''))
  while (all.length > 0 && all.at(-1)?.trim() === '') all.pop()
  const tail = cleanText(all.slice(-lines).join('\n'))
  return tail.length > chars ? tail.slice(-chars) : tail
}
