import type http from 'node:http'

/** How long the rest of a refused body is still read, and dropped, after the answer. */
export const LINGER_MS = 5_000

/**
 * Closes the connection of an answer sent before its request body was read, in stages (RFC 9112,
 * section 9.6; nginx's lingering close): the answer and then a FIN, the rest of the body read and
 * dropped until the client closes its side or `ms` pass, and only then the socket. Node's server
 * would destroy the socket as soon as a `Connection: close` answer is written; with the client's
 * body still arriving, that close sends a reset, which can overtake the answer: a client still
 * writing (fetch, as the claude CLI uses) then fails with EPIPE or "other side closed" and never
 * sees the 413. Nothing of the rest is kept, so the 32 MiB cap on what is held still stands.
 */
export function closeAfterAnswer(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  ms = LINGER_MS
): void {
  const socket = req.socket
  // The server ends a `Connection: close` answer's socket with destroySoon(); this one half-closes.
  socket.destroySoon = () => {
    socket.end()
    const timer = setTimeout(() => socket.destroy(), ms)
    timer.unref()
    socket.once('close', () => clearTimeout(timer))
    // The client closing its side after the answer ends the socket; until then its bytes are dropped.
    req.removeAllListeners('data')
    req.resume()
  }
  res.setHeader('connection', 'close')
}
