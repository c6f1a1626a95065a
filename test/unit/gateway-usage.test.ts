import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { jsonUsage, SseUsageReader } from '../../src/gateway/usage.js'

const event = (type: string, data: object, eol = '\n') =>
  `event: ${type}${eol}data: ${JSON.stringify({ type, ...data })}${eol}${eol}`

/** A stream as Anthropic sends it: start usage, text (with multi-byte characters), delta usage. */
function stream(eol: string, text: string): string {
  return [
    event(
      'message_start',
      {
        message: {
          id: 'msg_1',
          usage: {
            input_tokens: 1200,
            output_tokens: 1,
            cache_read_input_tokens: 300,
            cache_creation_input_tokens: 40
          }
        }
      },
      eol
    ),
    event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }, eol),
    event('content_block_delta', { index: 0, delta: { type: 'text_delta', text } }, eol),
    event('content_block_stop', { index: 0 }, eol),
    // Cumulative: output 57 in all, not 1 + 57.
    event(
      'message_delta',
      { delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 57 } },
      eol
    ),
    event('message_stop', {}, eol)
  ].join('')
}

const EXPECTED = {
  input_tokens: 1200,
  output_tokens: 57,
  cache_read_input_tokens: 300,
  cache_creation_input_tokens: 40
}

function read(bytes: Buffer, cuts: number[]) {
  const reader = new SseUsageReader()
  let at = 0
  for (const cut of [...cuts].sort((a, b) => a - b)) {
    reader.push(bytes.subarray(at, cut))
    at = cut
  }
  reader.push(bytes.subarray(at))
  return reader.end()
}

describe('the SSE usage reader', () => {
  it('reads the same usage wherever the stream is split (every single byte boundary)', () => {
    for (const eol of ['\n', '\r\n', '\r']) {
      const bytes = Buffer.from(stream(eol, 'héllo — wörld ✓ 🚀 usage'))
      for (let cut = 0; cut <= bytes.length; cut++) {
        expect(read(bytes, [cut]), `${JSON.stringify(eol)} cut at ${cut}`).toEqual(EXPECTED)
      }
    }
  })

  it('reads the same usage for any number of splits at any positions (fast-check)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('\n', '\r\n', '\r'),
        fc.string({ unit: 'grapheme' }),
        fc.array(fc.nat(), { maxLength: 40 }),
        (eol, text, raw) => {
          const bytes = Buffer.from(stream(eol, text))
          const cuts = raw.map(n => n % (bytes.length + 1))
          expect(read(bytes, cuts)).toEqual(EXPECTED)
        }
      )
    )
  })

  it('overwrites with each message_delta (cumulative), and says when nothing was reported', () => {
    const reader = new SseUsageReader()
    reader.push(Buffer.from(event('ping', {})))
    expect(reader.reported).toBe(false)
    reader.push(Buffer.from(event('message_start', { message: { usage: { input_tokens: 9 } } })))
    reader.push(Buffer.from(event('message_delta', { usage: { output_tokens: 3 } })))
    reader.push(
      Buffer.from(event('message_delta', { usage: { output_tokens: 8, input_tokens: 10 } }))
    )
    expect(reader.end()).toEqual({
      input_tokens: 10,
      output_tokens: 8,
      cache_read_input_tokens: 0,
      cache_creation_input_tokens: 0
    })
    expect(reader.reported).toBe(true)
  })

  it('reads a plain JSON reply, and nothing from an error or a non-JSON body', () => {
    const reply = { type: 'message', usage: { input_tokens: 5, output_tokens: 2 } }
    expect(jsonUsage(JSON.stringify(reply))).toEqual({
      input_tokens: 5,
      output_tokens: 2,
      cache_read_input_tokens: 0,
      cache_creation_input_tokens: 0
    })
    expect(jsonUsage('{"type":"error","error":{"type":"overloaded_error"}}')).toBeUndefined()
    expect(jsonUsage('<html>502</html>')).toBeUndefined()
  })
})

describe('usage as billed', () => {
  // An event whose JSON spans several data: lines (legal SSE: joined by \n), comments, CRLF.
  const split = (type: string, data: object, eol: string) =>
    `: keep-alive${eol}event: ${type}${eol}` +
    JSON.stringify({ type, ...data }, null, 1)
      .split('\n')
      .map(line => `data: ${line}${eol}`)
      .join('') +
    eol

  const start = {
    message: {
      usage: {
        input_tokens: 50,
        output_tokens: 1,
        cache_read_input_tokens: 40,
        cache_creation_input_tokens: 300,
        cache_creation: { ephemeral_5m_input_tokens: 100, ephemeral_1h_input_tokens: 200 }
      }
    }
  }
  // Compaction: the top level shows the last pass; the billed total is the passes' sum.
  const delta = {
    delta: { stop_reason: 'end_turn' },
    usage: {
      input_tokens: 50,
      output_tokens: 30,
      cache_read_input_tokens: 40,
      cache_creation_input_tokens: 300,
      cache_creation: { ephemeral_5m_input_tokens: 100, ephemeral_1h_input_tokens: 200 },
      server_tool_use: { web_search_requests: 2 },
      iterations: [
        { type: 'compaction', input_tokens: 207_000, output_tokens: 470 },
        {
          type: 'message',
          input_tokens: 50,
          output_tokens: 30,
          cache_read_input_tokens: 40,
          cache_creation_input_tokens: 300,
          cache_creation: { ephemeral_5m_input_tokens: 100, ephemeral_1h_input_tokens: 200 }
        }
      ]
    }
  }
  const BILLED = {
    input_tokens: 207_050,
    output_tokens: 500,
    cache_read_input_tokens: 40,
    cache_creation_input_tokens: 300,
    cache_creation: { ephemeral_5m_input_tokens: 100, ephemeral_1h_input_tokens: 200 },
    server_tool_use: { web_search_requests: 2 }
  }

  it('joins multi-line data, skips comments, takes CRLF, CR and LF; sums iterations; keeps the cache split and searches', () => {
    for (const eol of ['\n', '\r\n', '\r']) {
      const text = split('message_start', start, eol) + split('message_delta', delta, eol)
      const bytes = Buffer.from(text)
      expect(read(bytes, [])).toEqual(BILLED)
      expect(read(bytes, [7, 61, 62, bytes.length - 1])).toEqual(BILLED)
    }
  })

  it('reads the same from a JSON reply', () => {
    expect(jsonUsage(JSON.stringify({ type: 'message', usage: delta.usage }))).toEqual(BILLED)
  })
})

describe('cached tokens inside input_tokens', () => {
  it('are taken out once when the reply says so the OpenAI way, and left alone in Anthropic’s shape', () => {
    const reply = (usage: object) => jsonUsage(JSON.stringify({ type: 'message', usage }))
    // GLM / DeepSeek style: prompt_tokens_details.cached_tokens only.
    expect(
      reply({
        input_tokens: 15427,
        output_tokens: 139,
        prompt_tokens_details: { cached_tokens: 170 }
      })
    ).toEqual({
      input_tokens: 15257,
      output_tokens: 139,
      cache_read_input_tokens: 170,
      cache_creation_input_tokens: 0
    })
    // DeepSeek's own field, beside an Anthropic cache read it repeats.
    expect(
      reply({
        input_tokens: 4282,
        output_tokens: 46,
        cache_read_input_tokens: 1024,
        prompt_cache_hit_tokens: 1024
      })
    ).toMatchObject({ input_tokens: 3258, cache_read_input_tokens: 1024 })
    // Anthropic: input_tokens is already the uncached part.
    expect(
      reply({ input_tokens: 6, output_tokens: 9, cache_read_input_tokens: 18840 })
    ).toMatchObject({ input_tokens: 6, cache_read_input_tokens: 18840 })
  })

  it('once a stream shows the inclusive shape, a later delta without the marker is read the same way', () => {
    const reader = new SseUsageReader()
    reader.push(
      Buffer.from(
        event('message_start', {
          message: {
            usage: { input_tokens: 900, cache_read_input_tokens: 800, cached_tokens: 800 }
          }
        })
      )
    )
    reader.push(
      Buffer.from(event('message_delta', { usage: { input_tokens: 900, output_tokens: 5 } }))
    )
    expect(reader.end()).toMatchObject({
      input_tokens: 100,
      cache_read_input_tokens: 800,
      output_tokens: 5
    })
  })
})
