export const id = 176;
export const ids = [176];
export const modules = {

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

/***/ 46176:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

__webpack_require__.r(__webpack_exports__);
/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   checksPrompt: () => (/* binding */ checksPrompt),
/* harmony export */   reviewPrompt: () => (/* binding */ reviewPrompt)
/* harmony export */ });
/* harmony import */ var _invisible_js__WEBPACK_IMPORTED_MODULE_1__ = __webpack_require__(40773);
/* harmony import */ var _visible_js__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(23028);


const MAX_THREADS = 30;
const MAX_HUNK = 3000;
const MAX_COMMENT = 4000;
const clip = (text, max) => text.length > max ? `${text.slice(0, max)}\n[... cut at ${max} characters]` : text;
function threadText(thread, k) {
    const first = thread[0];
    if (!first)
        return '';
    const where = `${(0,_invisible_js__WEBPACK_IMPORTED_MODULE_1__/* .cleanText */ .X)(first.path)}${first.line !== null ? ` line ${first.line}` : ''}`;
    return [
        `<comment n="${k}" file="${where}">`,
        'The diff hunk it is on:',
        clip((0,_invisible_js__WEBPACK_IMPORTED_MODULE_1__/* .cleanText */ .X)(first.diffHunk), MAX_HUNK),
        ...thread.map(c => `${(0,_invisible_js__WEBPACK_IMPORTED_MODULE_1__/* .cleanText */ .X)(c.author)} wrote:\n${clip((0,_visible_js__WEBPACK_IMPORTED_MODULE_0__/* .visibleText */ .Q)(c.body).text, MAX_COMMENT)}`),
        '</comment>'
    ].join('\n');
}
const ANSWER_FORM = (n) => `End your final message with one line per numbered comment (${n === 1 ? '[1]' : `[1] to [${n}]`}), each in this form, for the reviewer to read in its thread:\n[k] what you changed for it, or why you did not change anything`;
/** A review (its body and each inline thread), or one comment's thread, as a follow-up task. */
function reviewPrompt(ask) {
    const threads = ask.threads.slice(0, MAX_THREADS);
    const lines = [
        `@${ask.reviewer} reviewed pull request #${ask.pr}, "${(0,_invisible_js__WEBPACK_IMPORTED_MODULE_1__/* .cleanText */ .X)(ask.title)}", which holds your earlier work on this branch. Address the review here: change the code where the reviewer is right, and say so where you disagree.`,
        ''
    ];
    if (ask.text.trim())
        lines.push('<review>', clip((0,_visible_js__WEBPACK_IMPORTED_MODULE_0__/* .visibleText */ .Q)(ask.text).text, MAX_COMMENT), '</review>', '');
    threads.forEach((thread, i) => lines.push(threadText(thread, i + 1), ''));
    if (threads.length > 0)
        lines.push(ANSWER_FORM(threads.length));
    return lines.join('\n').trim();
}
/** Failed checks as a follow-up task: each failed job's name, failed steps and log tail. */
function checksPrompt(ask) {
    return [
        `The checks of pull request #${ask.pr} failed on this branch (workflow "${(0,_invisible_js__WEBPACK_IMPORTED_MODULE_1__/* .cleanText */ .X)(ask.run)}"). Find the cause in the logs below and fix the code so the checks pass. Do not weaken, skip or delete a check or a test.`,
        '',
        ...ask.jobs.flatMap(job => [
            `<failed-job name="${(0,_invisible_js__WEBPACK_IMPORTED_MODULE_1__/* .cleanText */ .X)(job.name)}">`,
            ...(job.failedSteps.length
                ? [`Failed steps: ${job.failedSteps.map(s => (0,_invisible_js__WEBPACK_IMPORTED_MODULE_1__/* .cleanText */ .X)(s)).join(', ')}`]
                : []),
            'The end of its log:',
            job.tail,
            '</failed-job>',
            ''
        ]),
        'End your final message with a short summary of the cause and the fix.'
    ]
        .join('\n')
        .trim();
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
