export const id = 590;
export const ids = [590];
export const modules = {

/***/ 9590:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

__webpack_require__.r(__webpack_exports__);
/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   checklist: () => (/* binding */ checklist),
/* harmony export */   shownText: () => (/* binding */ shownText),
/* harmony export */   taskFromComment: () => (/* binding */ taskFromComment),
/* harmony export */   tasksFromIssue: () => (/* binding */ tasksFromIssue)
/* harmony export */ });
/* harmony import */ var _ids_js__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(43356);
/* harmony import */ var _parse_js__WEBPACK_IMPORTED_MODULE_1__ = __webpack_require__(42649);
/* harmony import */ var _invisible_js__WEBPACK_IMPORTED_MODULE_5__ = __webpack_require__(40773);
/* harmony import */ var _markdown_js__WEBPACK_IMPORTED_MODULE_2__ = __webpack_require__(1633);
/* harmony import */ var _plan_section_js__WEBPACK_IMPORTED_MODULE_3__ = __webpack_require__(32969);
/* harmony import */ var _visible_js__WEBPACK_IMPORTED_MODULE_4__ = __webpack_require__(23028);






/** Markdown as a person sees it on github.com, the hidden characters it lost told to `note`. */
function shownText(markdown, what, note) {
    const { text, hidden } = (0,_visible_js__WEBPACK_IMPORTED_MODULE_4__/* .visibleText */ .Q)(markdown);
    if (hidden > 0 && note)
        note(`${what}: dropped ${hidden} hidden character${hidden === 1 ? '' : 's'} before the prompt`);
    return text;
}
/**
 * The issue's task-list items as github.com renders them (any list, ordered or not, block quotes
 * included; never code, fences or HTML blocks), numbered by position so ids stay put as items
 * are checked.
 */
function checklist(body) {
    return (0,_markdown_js__WEBPACK_IMPORTED_MODULE_2__/* .taskItems */ .a)(body).map((task, index) => ({
        position: index + 1,
        checked: task.checked,
        text: task.paragraph ? (0,_invisible_js__WEBPACK_IMPORTED_MODULE_5__/* .cleanText */ .X)((0,_markdown_js__WEBPACK_IMPORTED_MODULE_2__/* .plainText */ .wh)(task.paragraph)) : ''
    }));
}
/**
 * The tasks an issue asks for: the unchecked items of its plan when `/fleet plan` wrote one
 * (src/tasks/plan-section.ts); else each unchecked checklist item (`issue-N-k`, k its position in
 * the checklist), or the issue itself (`issue-N`) when it has no unchecked items.
 */
function tasksFromIssue(issue, prefix, note) {
    const plan = (0,_plan_section_js__WEBPACK_IMPORTED_MODULE_3__/* .readPlanSection */ .tE)(issue.body);
    if (plan)
        return (0,_plan_section_js__WEBPACK_IMPORTED_MODULE_3__/* .tasksFromPlan */ .mJ)(issue, plan, prefix);
    const title = (0,_invisible_js__WEBPACK_IMPORTED_MODULE_5__/* .cleanText */ .X)(issue.title);
    const body = shownText(issue.body, `issue #${issue.number}'s description`, note);
    // An empty checkbox counts in k but asks for nothing.
    const open = checklist(issue.body).filter(i => !i.checked && i.text !== '');
    if (open.length === 0) {
        const id = `issue-${issue.number}`;
        const prompt = `${title}\n\n${body}`.trim();
        return [
            {
                id,
                title: (0,_parse_js__WEBPACK_IMPORTED_MODULE_1__/* .titleOf */ .Gg)(title || prompt),
                prompt,
                branch: (0,_ids_js__WEBPACK_IMPORTED_MODULE_0__/* .branchFor */ .yC)(prefix, id),
                source: { kind: 'issue', issue: issue.number }
            }
        ];
    }
    return open.map(item => {
        const id = `issue-${issue.number}-${item.position}`;
        return {
            id,
            title: (0,_parse_js__WEBPACK_IMPORTED_MODULE_1__/* .titleOf */ .Gg)(item.text),
            prompt: `${item.text}\n\n(This is one item of the checklist in issue #${issue.number}, "${title}". The issue reads:)\n\n${body}`,
            branch: (0,_ids_js__WEBPACK_IMPORTED_MODULE_0__/* .branchFor */ .yC)(prefix, id),
            source: { kind: 'issue', issue: issue.number, item: item.position }
        };
    });
}
/** A `/fleet <text>` comment: the text is the task, on `issue-N`. */
function taskFromComment(issue, text, prefix, on = 'issue', note) {
    const id = `issue-${issue.number}`;
    const prompt = shownText(text, `the comment on ${on} #${issue.number}`, note);
    const body = shownText(issue.body, `${on} #${issue.number}'s description`, note);
    return {
        id,
        title: (0,_parse_js__WEBPACK_IMPORTED_MODULE_1__/* .titleOf */ .Gg)(prompt),
        prompt: `${prompt}\n\n(Asked in a comment on ${on} #${issue.number}, "${(0,_invisible_js__WEBPACK_IMPORTED_MODULE_5__/* .cleanText */ .X)(issue.title)}". The ${on} reads:)\n\n${body}`,
        branch: (0,_ids_js__WEBPACK_IMPORTED_MODULE_0__/* .branchFor */ .yC)(prefix, id),
        source: { kind: 'issue', issue: issue.number }
    };
}


/***/ }),

/***/ 8613:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   e: () => (/* binding */ visibleHtml)
/* harmony export */ });
/* harmony import */ var parse5__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(63194);
/**
 * Raw HTML in Markdown as a reader of github.com sees it, read by parse5's HTML5 tokenizer (the
 * WHATWG algorithm, as a browser reads it): tags stay, without their attributes (`title`, `alt`,
 * `aria-label`, `data-*`, `placeholder`... are never shown as text); comments, processing
 * instructions, CDATA, doctypes and a tag the text ends inside go. `<script>` and `<style>` go
 * with their content, as GitHub's sanitizer removes them: an element's content is read as a
 * browser reads it (script data, raw text), so it ends only at its own end tag, which may come
 * in a later piece of the same document (`HtmlState`).
 */

/** Elements github.com drops together with everything inside them. */
const DROPPED = {
    script: parse5__WEBPACK_IMPORTED_MODULE_0__/* .TokenizerMode */ .V_.SCRIPT_DATA,
    style: parse5__WEBPACK_IMPORTED_MODULE_0__/* .TokenizerMode */ .V_.RAWTEXT
};
/** The HTML as shown, and the state it leaves for the document's next piece of HTML. */
function visibleHtml(html, state = {}) {
    let out = '';
    const tokenizer = new parse5__WEBPACK_IMPORTED_MODULE_0__/* .Tokenizer */ ._F({ sourceCodeLocationInfo: true }, {
        onStartTag(token) {
            if (state.dropping)
                return;
            const mode = DROPPED[token.tagName];
            if (mode !== undefined) {
                state.dropping = token.tagName;
                tokenizer.state = mode;
                return;
            }
            out += `<${token.tagName}${token.selfClosing ? ' /' : ''}>`;
        },
        onEndTag(token) {
            if (state.dropping) {
                if (token.tagName === state.dropping)
                    state.dropping = undefined;
                return;
            }
            out += `</${token.tagName}>`;
        },
        onCharacter: token => void (state.dropping ? undefined : (out += sourceOf(token))),
        onWhitespaceCharacter: token => void (state.dropping ? undefined : (out += sourceOf(token))),
        onNullCharacter: () => undefined,
        onComment: () => undefined,
        onDoctype: () => undefined,
        onEof: () => undefined
    });
    // Characters as written (a reference stays spelled as it was: visible.ts decides on those).
    const sourceOf = (token) => token.location ? html.slice(token.location.startOffset, token.location.endOffset) : token.chars;
    if (state.dropping) {
        tokenizer.state = DROPPED[state.dropping] ?? parse5__WEBPACK_IMPORTED_MODULE_0__/* .TokenizerMode */ .V_.DATA;
        tokenizer.lastStartTagName = state.dropping;
    }
    tokenizer.write(html, true);
    return out;
}


/***/ }),

/***/ 1633:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   Dd: () => (/* binding */ parseMarkdown),
/* harmony export */   a: () => (/* binding */ taskItems),
/* harmony export */   vz: () => (/* binding */ sourceOf),
/* harmony export */   wh: () => (/* binding */ plainText)
/* harmony export */ });
/* harmony import */ var mdast_util_from_markdown__WEBPACK_IMPORTED_MODULE_1__ = __webpack_require__(46855);
/* harmony import */ var mdast_util_gfm__WEBPACK_IMPORTED_MODULE_3__ = __webpack_require__(88595);
/* harmony import */ var micromark_extension_gfm__WEBPACK_IMPORTED_MODULE_2__ = __webpack_require__(74678);
/* harmony import */ var _html_js__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(8613);




function parseMarkdown(text) {
    return (0,mdast_util_from_markdown__WEBPACK_IMPORTED_MODULE_1__/* .fromMarkdown */ .Y)(text, { extensions: [(0,micromark_extension_gfm__WEBPACK_IMPORTED_MODULE_2__/* .gfm */ .T)()], mdastExtensions: [(0,mdast_util_gfm__WEBPACK_IMPORTED_MODULE_3__/* .gfmFromMarkdown */ .C)()] });
}
/**
 * `- [ ]` followed by spaces and nothing else: github.com (cmark-gfm) renders an empty checkbox,
 * micromark a plain item holding the text `[ ]`. Counted as a checkbox, so `k` matches what a
 * reader counts.
 */
function emptyCheck(item, source) {
    const first = item.children[0];
    if (item.children.length !== 1 || first?.type !== 'paragraph')
        return undefined;
    const at = first.position;
    if (!at || at.start.offset === undefined || at.end.offset === undefined)
        return undefined;
    const raw = source.slice(at.start.offset, at.end.offset);
    const m = /^\[([ xX])\][ \t]+$/.exec(raw);
    return m ? m[1] !== ' ' : undefined;
}
/** The checkbox cmark-gfm takes off an item's first line: `[ ]`, `[x]` or `[X]`, then a space or tab. */
const CHECKBOX = /^\[([ xX])\][ \t]+/;
/**
 * An item whose text is a setext heading (`- [ ] Bar` over `---`): cmark-gfm takes the checkbox
 * off the item's first line before it reads the block, so github.com draws a checkbox and the
 * heading `Bar`; micromark reads the heading `[ ] Bar`. And when nothing but spaces followed the
 * checkbox, the underline is no underline to cmark-gfm but the item's text (`- [ ]  ` over `===`).
 */
function headingTask(item, source) {
    const first = item.children[0];
    if (first?.type !== 'heading')
        return undefined;
    const raw = sourceOf(first, source);
    const m = CHECKBOX.exec(raw);
    // An ATX heading starts with '#': only a setext heading can start with the checkbox.
    if (!m)
        return undefined;
    const rest = raw.slice(m[0].length);
    const firstLine = rest.split('\n')[0] ?? '';
    const children = firstLine.trim() === ''
        ? [{ type: 'text', value: rest.trim() }]
        : first.children.map((child, i) => i === 0 && child.type === 'text'
            ? { ...child, value: child.value.replace(CHECKBOX, '') }
            : child);
    const paragraph = { type: 'paragraph', children, position: first.position };
    return { checked: m[1] !== ' ', item, paragraph };
}
function taskOf(item, source) {
    if (typeof item.checked === 'boolean') {
        const first = item.children[0];
        return {
            checked: item.checked,
            item,
            ...(first?.type === 'paragraph' ? { paragraph: first } : {})
        };
    }
    const heading = headingTask(item, source);
    if (heading)
        return heading;
    const empty = emptyCheck(item, source);
    return empty === undefined ? undefined : { checked: empty, item };
}
/** Every task-list item of a document, in document order (a parent before its nested items). */
function taskItems(source, tree = parseMarkdown(source)) {
    const found = [];
    const walk = (node) => {
        if (node.type === 'listItem') {
            const task = taskOf(node, source);
            if (task)
                found.push(task);
        }
        if ('children' in node)
            for (const child of node.children)
                walk(child);
    };
    walk(tree);
    return found;
}
/**
 * What a reader sees of inline content, as plain text: text, code spans and link text kept;
 * images, raw HTML, footnote marks and the content of a `<script>` or `<style>` dropped.
 */
function plainText(node, html = {}) {
    if (html.dropping && node.type !== 'html' && !('children' in node))
        return '';
    switch (node.type) {
        case 'text':
        case 'inlineCode':
            return node.value;
        case 'break':
            return '\n';
        case 'html':
            // Read for the elements it opens and closes; none of it is shown as plain text.
            (0,_html_js__WEBPACK_IMPORTED_MODULE_0__/* .visibleHtml */ .e)(node.value, html);
            return '';
        case 'image':
        case 'imageReference':
        case 'footnoteReference':
            return '';
        default:
            return 'children' in node ? node.children.map(child => plainText(child, html)).join('') : '';
    }
}
/** The source text a node spans. */
function sourceOf(node, source) {
    const at = node.position;
    if (at?.start.offset === undefined || at.end.offset === undefined)
        return '';
    return source.slice(at.start.offset, at.end.offset);
}


/***/ }),

/***/ 32969:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   JQ: () => (/* binding */ renderPlanSection),
/* harmony export */   V_: () => (/* binding */ checklistItems),
/* harmony export */   Vt: () => (/* binding */ replacePlanSection),
/* harmony export */   ao: () => (/* binding */ planItemId),
/* harmony export */   kz: () => (/* binding */ titleKey),
/* harmony export */   mJ: () => (/* binding */ tasksFromPlan),
/* harmony export */   tE: () => (/* binding */ readPlanSection),
/* harmony export */   v6: () => (/* binding */ withoutPlanSection)
/* harmony export */ });
/* unused harmony exports PLAN_START, PLAN_END */
/* harmony import */ var node_crypto__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(77598);
/* harmony import */ var node_crypto__WEBPACK_IMPORTED_MODULE_0___default = /*#__PURE__*/__webpack_require__.n(node_crypto__WEBPACK_IMPORTED_MODULE_0__);
/* harmony import */ var _invisible_js__WEBPACK_IMPORTED_MODULE_6__ = __webpack_require__(40773);
/* harmony import */ var _markdown_js__WEBPACK_IMPORTED_MODULE_1__ = __webpack_require__(1633);
/* harmony import */ var _visible_js__WEBPACK_IMPORTED_MODULE_2__ = __webpack_require__(23028);
/* harmony import */ var _inert_text_js__WEBPACK_IMPORTED_MODULE_3__ = __webpack_require__(92899);
/* harmony import */ var _ids_js__WEBPACK_IMPORTED_MODULE_4__ = __webpack_require__(43356);
/* harmony import */ var _parse_js__WEBPACK_IMPORTED_MODULE_5__ = __webpack_require__(42649);
/**
 * The planner's plan as it lives in an issue's description: a section between two hidden markers,
 * one checklist item per task, the item's prompt indented below its title. A person edits it
 * like any checklist; `/fleet` runs its unchecked items.
 *
 * Ids come from titles, not positions: `issue-<N>-<slug>-<hash>`, so re-planning (or a person
 * reordering, adding or deleting items) keeps the id, branch and PR of every item whose title
 * stays the same. Editing an item's prompt keeps its id; editing its title makes it a new task.
 */







const PLAN_START = '<!-- fleet-worker:plan -->';
const PLAN_END = '<!-- /fleet-worker:plan -->';
/** A title as it decides an id and a duplicate: case, spacing and hidden characters do not count. */
function titleKey(title) {
    return (0,_invisible_js__WEBPACK_IMPORTED_MODULE_6__/* .cleanText */ .X)(title).replace(/\s+/g, ' ').toLowerCase();
}
/**
 * A task id from a title: a slug of its first words plus 6 hex of its hash, after `prefix`
 * (`issue-12-` on an issue), within the 63 characters an id may have.
 */
function planItemId(title, prefix = '') {
    const key = titleKey(title);
    const hash = (0,node_crypto__WEBPACK_IMPORTED_MODULE_0__.createHash)('sha256').update(key).digest('hex').slice(0, 6);
    const room = 63 - prefix.length - hash.length - 1;
    const words = key
        .normalize('NFKD')
        .replace(/[^a-z0-9\s]+/g, ' ')
        .split(/\s+/)
        .filter(Boolean);
    let slug = '';
    for (const word of words) {
        const next = slug ? `${slug}-${word}` : word;
        if (next.length > Math.min(40, room))
            break;
        slug = next;
    }
    return `${prefix}${slug || 'task'}-${hash}`;
}
/** Removes the smallest common indentation of the non-blank lines. */
function dedent(lines) {
    const indents = lines.filter(l => l.trim() !== '').map(l => /^[ \t]*/.exec(l)?.[0].length ?? 0);
    const cut = indents.length ? Math.min(...indents) : 0;
    return lines
        .map(l => l.slice(cut))
        .join('\n')
        .trim();
}
/** A top-level task item: its title is its first line, its prompt the indented lines below, dedented. */
function planItem(task, source) {
    const from = task.paragraph?.position?.start.offset;
    const to = task.item.position?.end.offset;
    if (from === undefined || to === undefined)
        return undefined;
    const [first = '', ...rest] = source.slice(from, to).split('\n');
    const title = (0,_invisible_js__WEBPACK_IMPORTED_MODULE_6__/* .cleanText */ .X)(first);
    if (!title)
        return undefined;
    // The prompt is the indented block below the title: an unindented line (lazy prose, or the
    // next item where a fence left open ends) is not part of it.
    const cut = rest.findIndex(line => line.trim() !== '' && !/^\s/.test(line));
    const lines = cut < 0 ? rest : rest.slice(0, cut);
    return { checked: task.checked, title, prompt: (0,_visible_js__WEBPACK_IMPORTED_MODULE_2__/* .visibleText */ .Q)(dedent(lines)).text || title };
}
/**
 * The task-list items of a markdown text's top-level lists (as GitHub renders them), each with
 * the indented lines below its first as its prompt (the title when there are none). Nested items
 * belong to their parent's prompt; unindented prose belongs to no prompt.
 */
function checklistItems(text) {
    const source = text.replace(/\r\n?/g, '\n');
    const tree = (0,_markdown_js__WEBPACK_IMPORTED_MODULE_1__/* .parseMarkdown */ .Dd)(source);
    const top = new Set(tree.children.flatMap(n => (n.type === 'list' ? n.children : [])));
    return (0,_markdown_js__WEBPACK_IMPORTED_MODULE_1__/* .taskItems */ .a)(source, tree)
        .filter(task => top.has(task.item))
        .flatMap(task => planItem(task, source) ?? []);
}
function bounds(body) {
    const start = body.indexOf(PLAN_START);
    if (start < 0)
        return undefined;
    const close = body.indexOf(PLAN_END, start);
    return { start, end: close < 0 ? body.length : close + PLAN_END.length };
}
/** The plan's items, or undefined when the description holds no plan section. */
function readPlanSection(body) {
    const at = bounds(body);
    return at ? checklistItems(body.slice(at.start + PLAN_START.length, at.end)) : undefined;
}
/** The description without its plan section: what the issue itself says. */
function withoutPlanSection(body) {
    const at = bounds(body);
    if (!at)
        return body;
    return `${body.slice(0, at.start).trimEnd()}\n\n${body.slice(at.end).trimStart()}`.trim();
}
/** The section in place of the old one, or appended below the description. */
function replacePlanSection(body, section) {
    const at = bounds(body);
    if (at)
        return `${body.slice(0, at.start)}${section}${body.slice(at.end)}`;
    return body.trim() ? `${body.trimEnd()}\n\n${section}` : section;
}
/**
 * Planned text is the planner's, read from the repository and the issue: in the description it
 * must not ping anyone, reference or close an issue, hide a marker (ours would end the section
 * early), or show an image from another host. inertProse breaks each with a zero-width space,
 * which cleanText removes again before a worker reads the text; a foreign image or link becomes
 * code.
 */
const quiet = (text) => (0,_inert_text_js__WEBPACK_IMPORTED_MODULE_3__/* .inertProse */ .CH)(text);
function renderPlanSection(items, phrase) {
    const lines = [
        PLAN_START,
        '### Plan',
        '',
        `_Planned by Fleet Worker. Edit, add or delete items as you like; an item's id (and branch) comes from its title. Comment \`${phrase}\` to run the unchecked items, or \`${phrase} plan\` to plan again._`,
        ''
    ];
    for (const item of items) {
        const title = quiet(item.title.replace(/\s+/g, ' ').trim());
        lines.push(`- [${item.checked ? 'x' : ' '}] ${title}`, '');
        for (const line of quiet(item.prompt).split('\n'))
            lines.push(line.trim() ? `  ${line}` : '');
        lines.push('');
    }
    lines.push(PLAN_END);
    return lines.join('\n');
}
/**
 * The unchecked plan items as tasks. Two items a person gave the same title get `-2`, `-3` in
 * order, so an edit never stops the run.
 */
function tasksFromPlan(issue, items, prefix) {
    const seen = new Map();
    const tasks = [];
    items.forEach((item, index) => {
        const base = planItemId(item.title, `issue-${issue.number}-`);
        const n = (seen.get(base) ?? 0) + 1;
        seen.set(base, n);
        if (item.checked)
            return;
        const id = n === 1 ? base : `${base.slice(0, 60 - String(n).length)}-${n}`;
        tasks.push({
            id,
            title: (0,_parse_js__WEBPACK_IMPORTED_MODULE_5__/* .titleOf */ .Gg)(item.title),
            prompt: item.prompt,
            branch: (0,_ids_js__WEBPACK_IMPORTED_MODULE_4__/* .branchFor */ .yC)(prefix, id),
            source: { kind: 'issue', issue: issue.number, item: index + 1 }
        });
    });
    return tasks;
}


/***/ }),

/***/ 23028:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   Q: () => (/* binding */ visibleText)
/* harmony export */ });
/* harmony import */ var _html_js__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(8613);
/* harmony import */ var _invisible_js__WEBPACK_IMPORTED_MODULE_2__ = __webpack_require__(40773);
/* harmony import */ var _markdown_js__WEBPACK_IMPORTED_MODULE_1__ = __webpack_require__(1633);



function collect(tree, ctx) {
    const walk = (node) => {
        if (node.type === 'definition')
            ctx.definitions.set(node.identifier, node);
        if (node.type === 'linkReference')
            ctx.linked.add(node.identifier);
        if (node.type === 'footnoteReference')
            ctx.noted.add(node.identifier);
        if ('children' in node)
            for (const child of node.children)
                walk(child);
    };
    walk(tree);
}
/** The source from `from` to `to`, each child replaced by what it renders to. */
function splice(children, from, to, ctx) {
    let out = '';
    let at = from;
    for (const child of children) {
        const start = child.position?.start.offset;
        const stop = child.position?.end.offset;
        if (start === undefined || stop === undefined || start < at)
            continue;
        out += ctx.source.slice(at, start) + render(child, ctx);
        at = stop;
    }
    return out + ctx.source.slice(at, to);
}
function spliced(node, ctx) {
    const { start, end } = node.position ?? {};
    if (start?.offset === undefined || end?.offset === undefined)
        return '';
    return splice(node.children, start.offset, end.offset, ctx);
}
/** The text between a link's brackets. */
function linkText(node, ctx) {
    const from = node.children[0]?.position?.start.offset;
    const to = node.children.at(-1)?.position?.end.offset;
    return from === undefined || to === undefined ? '' : splice(node.children, from, to, ctx);
}
function render(node, ctx) {
    // Inside a script or style element github.com drops (its end tag may come in a later node).
    if (ctx.html.dropping && node.type !== 'html' && !('children' in node)) {
        ctx.hidden += (0,_markdown_js__WEBPACK_IMPORTED_MODULE_1__/* .sourceOf */ .vz)(node, ctx.source).length;
        return '';
    }
    switch (node.type) {
        case 'text': {
            // Its source, unless a character reference (`&#8203;`) spells an invisible character.
            const decoded = (0,_invisible_js__WEBPACK_IMPORTED_MODULE_2__/* .dropInvisible */ .N)(node.value);
            if (decoded.dropped === 0)
                return (0,_markdown_js__WEBPACK_IMPORTED_MODULE_1__/* .sourceOf */ .vz)(node, ctx.source);
            ctx.hidden += decoded.dropped;
            return decoded.text;
        }
        case 'image':
            ctx.hidden += (node.alt ?? '').length + (node.title ?? '').length;
            return `![](${node.url})`;
        case 'imageReference': {
            ctx.hidden += (node.alt ?? '').length;
            const url = ctx.definitions.get(node.identifier)?.url;
            return url ? `![](${url})` : '';
        }
        case 'link':
            if (node.title === null || node.title === undefined)
                break;
            ctx.hidden += node.title.length;
            return `[${linkText(node, ctx)}](${node.url})`;
        case 'definition': {
            if (!ctx.linked.has(node.identifier)) {
                ctx.hidden += (0,_markdown_js__WEBPACK_IMPORTED_MODULE_1__/* .sourceOf */ .vz)(node, ctx.source).length;
                return '';
            }
            ctx.hidden += (node.title ?? '').length;
            return `[${node.label ?? node.identifier}]: ${node.url}`;
        }
        case 'footnoteDefinition':
            if (ctx.noted.has(node.identifier))
                break;
            ctx.hidden += (0,_markdown_js__WEBPACK_IMPORTED_MODULE_1__/* .sourceOf */ .vz)(node, ctx.source).length;
            return '';
        case 'html': {
            const shown = (0,_html_js__WEBPACK_IMPORTED_MODULE_0__/* .visibleHtml */ .e)(node.value, ctx.html);
            ctx.hidden += node.value.length - shown.length;
            return shown;
        }
    }
    return 'children' in node ? spliced(node, ctx) : (0,_markdown_js__WEBPACK_IMPORTED_MODULE_1__/* .sourceOf */ .vz)(node, ctx.source);
}
function visibleText(markdown) {
    const source = markdown.replace(/\r\n?/g, '\n');
    const tree = (0,_markdown_js__WEBPACK_IMPORTED_MODULE_1__/* .parseMarkdown */ .Dd)(source);
    const ctx = {
        source,
        definitions: new Map(),
        linked: new Set(),
        noted: new Set(),
        html: {},
        hidden: 0
    };
    collect(tree, ctx);
    const shown = (0,_invisible_js__WEBPACK_IMPORTED_MODULE_2__/* .dropInvisible */ .N)(splice(tree.children, 0, source.length, ctx));
    const text = shown.text.trim();
    return { text, hidden: ctx.hidden + shown.dropped };
}


/***/ })

};
