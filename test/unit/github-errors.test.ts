// Issue 27: GitHub's refusals as one typed error, made in one place (the client's error hook)
// from Octokit's RequestError, so callers read a kind instead of status codes.
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { RequestError } from '@octokit/request-error'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createClient } from '../../src/github/client.js'
import { GitHubError, gitHubError, isGitHubError, kindOf } from '../../src/github/errors.js'
import { failureMessage } from '../../src/run/failure.js'

const request = { method: 'GET' as const, url: 'https://api.github.com/repos/o/r', headers: {} }
const requestError = (status: number, headers: Record<string, string> = {}, message = 'no') =>
  new RequestError(message, status, {
    request,
    response: { status, url: request.url, headers, data: { message } }
  })

describe('kindOf: what a status means', () => {
  it('maps each status GitHub refuses with', () => {
    expect(kindOf(401)).toBe('unauthorized')
    expect(kindOf(403)).toBe('forbidden')
    expect(kindOf(404)).toBe('not-found')
    expect(kindOf(410)).toBe('not-found')
    expect(kindOf(409)).toBe('conflict')
    expect(kindOf(422)).toBe('validation')
    expect(kindOf(429)).toBe('rate-limited')
    expect(kindOf(500)).toBe('server')
    expect(kindOf(502)).toBe('server')
    expect(kindOf(400)).toBe('other')
  })

  it('tells a rate limit from a refusal on 403 by its headers or its message', () => {
    expect(kindOf(403, { 'x-ratelimit-remaining': '0' })).toBe('rate-limited')
    expect(kindOf(403, { 'x-ratelimit-remaining': '4999' })).toBe('forbidden')
    expect(kindOf(403, { 'retry-after': '60' })).toBe('rate-limited')
    expect(kindOf(403, {}, 'You have exceeded a secondary rate limit')).toBe('rate-limited')
    expect(kindOf(403, {}, 'Resource not accessible by integration')).toBe('forbidden')
  })
})

describe('gitHubError: made from a RequestError, nothing else', () => {
  it('keeps the status, request, response and message, and adds the kind', () => {
    const made = gitHubError(requestError(409, {}, 'Reference already exists'))
    expect(made).toBeInstanceOf(GitHubError)
    expect(made).toBeInstanceOf(RequestError)
    const e = made as GitHubError
    expect([e.kind, e.status, e.message, e.request.url]).toEqual([
      'conflict',
      409,
      'Reference already exists',
      request.url
    ])
    expect(isGitHubError(e, 'conflict')).toBe(true)
    expect(isGitHubError(e, 'not-found', 'validation')).toBe(false)
    expect(isGitHubError(e)).toBe(true)
  })

  it('passes any other error through untouched (a network failure, a bug)', () => {
    const plain = new Error('socket hang up')
    expect(gitHubError(plain)).toBe(plain)
    expect(isGitHubError(plain)).toBe(false)
    expect(isGitHubError({ status: 404 }, 'not-found')).toBe(false)
    const made = gitHubError(requestError(404))
    expect(gitHubError(made)).toBe(made)
  })

  it("names the API call in the step's one line", () => {
    const e = gitHubError(requestError(422, {}, 'Validation Failed'))
    expect(failureMessage(e)).toBe(`GitHub API (GET ${request.url}): Validation Failed`)
    expect(failureMessage(new Error('x'))).toBe('x')
  })
})

describe("the client's requests throw GitHubError", () => {
  let server: http.Server
  let url = ''
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      const status = Number(/\/status\/(\d+)/.exec(req.url ?? '')?.[1] ?? 200)
      res.writeHead(status, { 'content-type': 'application/json', 'x-ratelimit-remaining': '4999' })
      res.end(JSON.stringify({ message: `answered ${status}` }))
    })
    await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })
  afterAll(() => new Promise<void>(resolve => server.close(() => resolve())))

  it.each([
    [404, 'not-found'],
    [422, 'validation'],
    [403, 'forbidden'],
    [401, 'unauthorized']
  ] as const)('%i is a GitHubError of kind %s', async (status, kind) => {
    const octokit = createClient('t0ken', url, () => undefined)
    const got = await octokit.request('GET /status/{status}', { status }).catch((e: unknown) => e)
    expect(got).toBeInstanceOf(GitHubError)
    expect((got as GitHubError).kind).toBe(kind)
    expect((got as GitHubError).message).toContain(`answered ${status}`)
  })

  it('a success is untouched', async () => {
    const octokit = createClient('t0ken', url, () => undefined)
    const got = await octokit.request('GET /status/{status}', { status: 200 })
    expect(got.data).toEqual({ message: 'answered 200' })
  })
})
