#!/usr/bin/env node
// Cuts GitHub's official OpenAPI description (13 MB, ~16 s for Prism to load) down to the
// operations Fleet Worker calls, so the test mock starts in a couple of seconds.
//
//   npm install --prefix /tmp/openapi @octokit/openapi
//   node scripts/trim-github-spec.mjs [source.json] [output.json]
import { readFileSync, writeFileSync } from 'node:fs'
import console from 'node:console'
import process from 'node:process'
import { URL, fileURLToPath } from 'node:url'

const source =
  process.argv[2] ?? '/tmp/openapi/node_modules/@octokit/openapi/generated/api.github.com.json'
const output =
  process.argv[3] ?? fileURLToPath(new URL('../demo/github-api.trimmed.json', import.meta.url))

/** The action's Octokit calls; anything else gets Prism's "no path matched" in tests. */
const OPERATIONS = {
  '/repos/{owner}/{repo}': ['get'],
  '/repos/{owner}/{repo}/pulls': ['get', 'post'],
  '/repos/{owner}/{repo}/pulls/{pull_number}': ['get', 'patch'],
  '/repos/{owner}/{repo}/pulls/{pull_number}/requested_reviewers': ['post'],
  '/repos/{owner}/{repo}/issues': ['get'],
  '/repos/{owner}/{repo}/issues/{issue_number}': ['get', 'patch'],
  '/repos/{owner}/{repo}/issues/{issue_number}/comments': ['get', 'post'],
  '/repos/{owner}/{repo}/issues/comments/{comment_id}': ['patch'],
  '/repos/{owner}/{repo}/issues/{issue_number}/labels': ['post'],
  '/repos/{owner}/{repo}/issues/{issue_number}/labels/{name}': ['delete'],
  '/repos/{owner}/{repo}/issues/{issue_number}/assignees': ['post'],
  '/repos/{owner}/{repo}/issues/comments/{comment_id}/reactions': ['post'],
  '/repos/{owner}/{repo}/collaborators/{username}/permission': ['get'],
  '/repos/{owner}/{repo}/labels': ['get', 'post'],
  '/repos/{owner}/{repo}/labels/{name}': ['get'],
  // Who the token is (the live comment is the one it wrote), who labelled an issue (the queue),
  // and whether a run that took queued issues is still going (reclaiming them).
  '/user': ['get'],
  '/repos/{owner}/{repo}/issues/{issue_number}/events': ['get'],
  '/repos/{owner}/{repo}/actions/runs/{run_id}': ['get'],
  // Answering on the PR (#18): a review's inline comments, a comment's thread, replies in a
  // thread, the 👀 on a review comment; a failed run's jobs and each job's log (a 302 to the text).
  '/repos/{owner}/{repo}/pulls/{pull_number}/comments': ['get'],
  '/repos/{owner}/{repo}/pulls/{pull_number}/reviews/{review_id}/comments': ['get'],
  '/repos/{owner}/{repo}/pulls/{pull_number}/comments/{comment_id}/replies': ['post'],
  '/repos/{owner}/{repo}/pulls/comments/{comment_id}/reactions': ['post'],
  '/repos/{owner}/{repo}/actions/runs/{run_id}/jobs': ['get'],
  '/repos/{owner}/{repo}/actions/jobs/{job_id}/logs': ['get'],
  // The landing train (#36): who reviewed, the merge with the head pinned, "Update branch", the
  // checks a commit has and the rules of the base. (GraphQL is checked against GitHub's GraphQL
  // schema instead: demo/github-graphql.ts.)
  '/repos/{owner}/{repo}/pulls/{pull_number}/reviews': ['get'],
  '/repos/{owner}/{repo}/pulls/{pull_number}/merge': ['put'],
  '/repos/{owner}/{repo}/pulls/{pull_number}/update-branch': ['put'],
  '/repos/{owner}/{repo}/commits/{ref}/check-runs': ['get'],
  '/repos/{owner}/{repo}/rules/branches/{branch}': ['get']
}

const spec = JSON.parse(readFileSync(source, 'utf8'))

const paths = {}
for (const [path, methods] of Object.entries(OPERATIONS)) {
  const item = spec.paths[path]
  if (!item) throw new Error(`${path} is not in ${source}`)
  const kept = {}
  if (item.parameters) kept.parameters = item.parameters
  for (const method of methods) {
    if (!item[method]) throw new Error(`${method.toUpperCase()} ${path} is not in ${source}`)
    kept[method] = item[method]
  }
  paths[path] = kept
}

const EXAMPLE_REF = '#/components/examples/'
const exampleValue = ref => {
  const example = spec.components.examples[ref.slice(EXAMPLE_REF.length)]
  if (!example) throw new Error(`dangling ${ref}`)
  return example.value
}

// A few inline examples put an Example Object's $ref where the example's *value* belongs, so once
// resolved the payload is wrapped as {value: ...} and Prism serves that wrapper. Inline the value.
let patched = 0
const unwrapExampleRefs = node => {
  if (Array.isArray(node)) return node.map(unwrapExampleRefs)
  if (!node || typeof node !== 'object') return node
  if (typeof node.$ref === 'string' && node.$ref.startsWith(EXAMPLE_REF)) {
    patched++
    return unwrapExampleRefs(JSON.parse(JSON.stringify(exampleValue(node.$ref))))
  }
  return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, unwrapExampleRefs(v)]))
}
for (const item of Object.values(paths))
  for (const op of Object.values(item))
    for (const response of Object.values(op.responses ?? {}))
      for (const media of Object.values(response.content ?? {}))
        for (const example of Object.values(media.examples ?? {}))
          if ('value' in example) example.value = unwrapExampleRefs(example.value)

// Keep every component the operations reach, transitively.
const components = {}
const seen = new Set()
const collect = node => {
  if (Array.isArray(node)) return node.forEach(collect)
  if (!node || typeof node !== 'object') return
  if (typeof node.$ref === 'string' && !seen.has(node.$ref)) {
    seen.add(node.$ref)
    const [, , kind, name, ...rest] = node.$ref.split('/')
    if (rest.length || !kind || !name) throw new Error(`unexpected $ref ${node.$ref}`)
    const target = spec.components[kind]?.[name]
    if (!target) throw new Error(`dangling ${node.$ref}`)
    ;(components[kind] ??= {})[name] = target
    collect(target)
  }
  Object.values(node).forEach(collect)
}
collect(paths)

const sorted = obj =>
  Object.fromEntries(
    Object.keys(obj)
      .sort()
      .map(k => [k, obj[k]])
  )
const trimmed = {
  openapi: spec.openapi,
  info: { ...spec.info, description: `${spec.info.description} (trimmed for Fleet Worker tests)` },
  servers: spec.servers,
  paths,
  components: Object.fromEntries(
    Object.keys(components)
      .sort()
      .map(k => [k, sorted(components[k])])
  )
}
writeFileSync(output, JSON.stringify(trimmed, null, 1) + '\n')
const count = Object.values(paths).reduce((n, item) => n + Object.keys(item).length, 0)
console.log(
  `${count} operations, ${seen.size} components, ${patched} example refs inlined -> ${output}`
)
