// Ids that stay put across the move to a real GFM parser: these are the usual checklist shapes
// of issues in the wild, and the ids (so the branches and PRs) each got before that move. This
// file was written and passed against the regular-expression reader first; it must pass
// unchanged against the parser, or branches and PRs already open would be orphaned.
import { describe, expect, it } from 'vitest'
import { tasksFromIssue } from '../../src/tasks/from-issue.js'

const ids = (body: string): string[] =>
  tasksFromIssue({ number: 12, title: 'Work', body }, 'fleet/').map(t => t.id)

const SHAPES: Array<[string, string, string[]]> = [
  ['a plain list', '- [ ] a\n- [ ] b\n- [ ] c', ['issue-12-1', 'issue-12-2', 'issue-12-3']],
  [
    'checked items in between, either case of x',
    '- [x] a\n- [ ] b\n- [X] c\n- [ ] d',
    ['issue-12-2', 'issue-12-4']
  ],
  ['the three bullet characters', '* [ ] a\n+ [x] b\n- [ ] c', ['issue-12-1', 'issue-12-3']],
  [
    'an intro paragraph, a heading and a closing note',
    '## Tasks\n\nWe need these:\n\n- [ ] a\n- [x] b\n- [ ] c\n\nThanks!',
    ['issue-12-1', 'issue-12-3']
  ],
  [
    'two lists under two headings',
    '### Backend\n- [ ] a\n- [x] b\n\n### Frontend\n- [ ] c\n- [ ] d',
    ['issue-12-1', 'issue-12-3', 'issue-12-4']
  ],
  [
    'nested items count after their parent',
    '- [ ] a\n  - [x] a1\n  - [ ] a2\n- [ ] b',
    ['issue-12-1', 'issue-12-3', 'issue-12-4']
  ],
  [
    'a loose list (blank lines between items)',
    '- [ ] a\n\n- [x] b\n\n- [ ] c',
    ['issue-12-1', 'issue-12-3']
  ],
  [
    'items with code, links, emphasis and issue references',
    '- [ ] Fix `parse()` in [the reader](https://example.com/x)\n- [ ] **Bold** move of #12\n- [x] _done_',
    ['issue-12-1', 'issue-12-2']
  ],
  [
    'a closed fence before the list holds no item',
    '```\n- [ ] not a task\n```\n\n- [ ] a\n- [ ] b',
    ['issue-12-1', 'issue-12-2']
  ],
  [
    'a tilde fence before the list holds no item',
    '~~~md\n- [ ] not a task\n~~~\n- [x] a\n- [ ] b',
    ['issue-12-2']
  ],
  ['Windows line endings', '- [ ] a\r\n- [x] b\r\n- [ ] c\r\n', ['issue-12-1', 'issue-12-3']],
  [
    'plain bullets beside the checklist are not items',
    '- background\n- [ ] a\n- more background\n- [ ] b',
    ['issue-12-1', 'issue-12-2']
  ],
  ['all checked: the issue itself', '- [x] a\n- [x] b', ['issue-12']],
  ['no checklist: the issue itself', 'Make the button blue.', ['issue-12']]
]

describe('checklist ids of the usual shapes stay put', () => {
  for (const [shape, body, expected] of SHAPES) {
    it(shape, () => {
      expect(ids(body)).toEqual(expected)
    })
  }
})
