export const id = 528;
export const ids = [528];
export const modules = {

/***/ 82528:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {


// EXPORTS
__webpack_require__.d(__webpack_exports__, {
  demo: () => (/* binding */ demo)
});

// EXTERNAL MODULE: external "node:crypto"
var external_node_crypto_ = __webpack_require__(77598);
// EXTERNAL MODULE: external "node:http"
var external_node_http_ = __webpack_require__(37067);
var external_node_http_default = /*#__PURE__*/__webpack_require__.n(external_node_http_);
// EXTERNAL MODULE: external "node:path"
var external_node_path_ = __webpack_require__(76760);
var external_node_path_default = /*#__PURE__*/__webpack_require__.n(external_node_path_);
// EXTERNAL MODULE: external "node:timers/promises"
var promises_ = __webpack_require__(58500);
// EXTERNAL MODULE: ./node_modules/zod/v4/classic/schemas.js + 15 modules
var schemas = __webpack_require__(9691);
;// CONCATENATED MODULE: ./src/demo/model-server.ts
// A scripted Anthropic-compatible Messages server for end-to-end tests, the bench and the demo.
//
// The script travels inside the task prompt ([[fleet-script]] {json} [[/fleet-script]]), so any
// number of workers can share one server and each still plays its own script deterministically.
// Which step to play is derived from the conversation (the number of assistant messages already
// in the request), never from server state; only fault counters live in the server, per key, so
// they survive the action re-running a worker.
//
// Measured against the real claude CLI 2.1.332 (-p, stream-json, --tools Bash,Edit,Read,Write):
// - Every request is `POST /v1/messages?beta=true`, stream: true, ~18 kB body, headers include
//   anthropic-version 2023-06-01, user-agent `claude-cli/2.1.332 (external, sdk-cli)`, x-app cli.
// - The working directory is not in `system`: it is in a `role: "system"` entry of `messages`
//   (after the first user message), as the line ` - Primary working directory: /abs/path`.
// - The first user message has several text blocks: <system-reminder> blocks (git status,
//   attribution) come first and the prompt is the last one.
// - After a tool step the CLI sends back ONE assistant message holding text + tool_use, so
//   "assistant messages so far" is the step index.
// - result.usage is the plain sum, over every response, of the usage this server reported;
//   within one response the last value of each field wins (message_delta over message_start),
//   so output_tokens is message_delta's, not start + delta. HTTP errors add nothing, but a
//   dropped stream's message_start usage IS added (input, cache, output_tokens 1) before the
//   retry's. usageFor(key) computes exactly that sum from the recorded requests.
//   (Measured with the cut 100 ms after message_start; cut in the same tick, it was racy.)
// - A 200 with a non-SSE body (garbage) makes the CLI retry that turn at once with
//   stream: false; garbage again there ends the run (exit 1). A dropped stream is retried
//   (~0.5 s later) with stream: true.
// - faults 529 x3 with CLAUDE_CODE_MAX_RETRIES=2: 3 attempts ~0.6 s and ~1.1 s apart, then
//   exit 1, is_error true, subtype "success", terminal_reason "api_error", num_turns 1,
//   api_error_status 529, api_error_type "overloaded_error", result "API Error: 529 <our
//   message>. This is a server-side issue, usually temporary — try again in a moment.", usage 0.
// - 401 with CLAUDE_CODE_MAX_RETRIES=0: one attempt, exit 1, api_error_status 401,
//   api_error_type "authentication_error", result "Invalid API key · Fix external API key".
// - hang with API_TIMEOUT_MS=1500, no retries: exit 1 after ~1.6 s, api_error_status null,
//   result "Request timed out. If the API is slow to answer, ... set API_TIMEOUT_MS above 1500."
// - Spawned with a piped stdin the CLI waits 3 s for input ("no stdin data received"): give it
//   stdin 'ignore'.
// - Structured output (--json-schema, the planner): the CLI offers a `StructuredOutput` tool whose
//   input_schema is the schema; a scripted step { tool: 'StructuredOutput', input: {...} } calls
//   it, and the run ends after that one request, with `structured_output` (and `result` as its
//   JSON text) in the result. An input that fails the schema comes back as a tool error
//   ("Output does not match required schema: /tasks: must NOT have more than 2 items"). A plain
//   text answer gets ONE more request ("[structured-output-enforce] You MUST call the
//   StructuredOutput tool..."); if that is text too, the run ends exit 0 with it as `result`.





const repeat = schemas/* union */.KCZ([schemas/* boolean */.zMY(), schemas/* number */.aig().int().nonnegative()]);
const scriptSchema = schemas/* object */.Ikc({
    key: schemas/* string */.YjP().min(1).optional(),
    steps: schemas/* array */.YOg(schemas/* union */.KCZ([
        schemas/* object */.Ikc({
            tool: schemas/* string */.YjP().min(1),
            input: schemas/* record */.g1P(schemas/* string */.YjP(), schemas/* unknown */.L5J()),
            text: schemas/* string */.YjP().optional()
        }),
        schemas/* object */.Ikc({ text: schemas/* string */.YjP() })
    ])),
    delayMs: schemas/* number */.aig().int().nonnegative().optional(),
    faults: schemas/* array */.YOg(schemas/* object */.Ikc({
        status: schemas/* number */.aig().int().min(400).max(599),
        times: schemas/* number */.aig().int().nonnegative(),
        retryAfter: schemas/* number */.aig().nonnegative().optional()
    }))
        .optional(),
    // true = every request of this key; a number n = the next n requests after the faults.
    hang: repeat.optional(),
    // Like drop, but the stream then stays open, silent, until the client goes away.
    stall: repeat.optional(),
    drop: repeat.optional(),
    garbage: repeat.optional()
});
const OPEN = '[[fleet-script]]';
const CLOSE = '[[/fleet-script]]';
const BLOCK = /\[\[fleet-script\]\]([\s\S]*?)\[\[\/fleet-script\]\]/;
const CWD_LINE = /^\s*-?\s*(?:Primary working directory|Working directory):\s*(\S.*?)\s*$/m;
const PATH_KEYS = ['file_path', 'notebook_path'];
const DROP_AFTER_MS = 100;
/** Renders the block to put in a prompt. */
function script(s) {
    return `${OPEN} ${JSON.stringify(s)} ${CLOSE}`;
}
/** The key the server files a script under: its own key, else a hash of its text. */
function scriptKey(s) {
    return s.key ?? hashKey(JSON.stringify(s));
}
function hashKey(text) {
    return 'h' + (0,external_node_crypto_.createHash)('sha256').update(text.trim()).digest('hex').slice(0, 12);
}
/** Deterministic usage: distinct per step so a sum can be told from a max or a last value. */
function usageForStep(step) {
    return {
        input_tokens: 100 + step,
        output_tokens: 10 + step,
        cache_read_input_tokens: 5,
        cache_creation_input_tokens: 2
    };
}
const SIDE_USAGE = {
    input_tokens: 20,
    output_tokens: 2,
    cache_read_input_tokens: 0,
    cache_creation_input_tokens: 0
};
function sumUsage(usages) {
    const total = {
        input_tokens: 0,
        output_tokens: 0,
        cache_read_input_tokens: 0,
        cache_creation_input_tokens: 0
    };
    for (const u of usages) {
        if (!u)
            continue;
        total.input_tokens += u.input_tokens;
        total.output_tokens += u.output_tokens;
        total.cache_read_input_tokens += u.cache_read_input_tokens;
        total.cache_creation_input_tokens += u.cache_creation_input_tokens;
    }
    return total;
}
function texts(content) {
    if (typeof content === 'string')
        return [content];
    if (!Array.isArray(content))
        return [];
    return content.flatMap((b) => b?.type === 'text' && typeof b.text === 'string' ? [b.text] : []);
}
function toolResultTexts(content) {
    if (!Array.isArray(content))
        return [];
    return content.flatMap((b) => b?.type === 'tool_result' ? [texts(b.content).join('\n')] : []);
}
function messagesOf(body) {
    return Array.isArray(body.messages) ? body.messages : [];
}
function findCwd(body) {
    const all = [...texts(body.system), ...messagesOf(body).flatMap(m => texts(m.content))];
    for (const t of all) {
        const m = CWD_LINE.exec(t);
        if (m?.[1])
            return m[1];
    }
    return undefined;
}
/** The user's own prompt: text blocks of the first user message, minus CLI reminders. */
function promptText(first) {
    return texts(first?.content)
        .map(t => t.replace(/<system-reminder>[\s\S]*?<\/system-reminder>/g, '').trim())
        .filter(t => t !== '')
        .join('\n');
}
function resolveScript(first, opts) {
    for (const t of texts(first?.content)) {
        const m = BLOCK.exec(t);
        if (!m)
            continue;
        const raw = m[1] ?? '';
        let json;
        try {
            json = JSON.parse(raw);
        }
        catch (e) {
            return { error: `fleet-script is not JSON: ${String(e)}` };
        }
        const parsed = scriptSchema.safeParse(json);
        if (!parsed.success)
            return { error: `fleet-script is invalid: ${parsed.error.message}` };
        return { key: parsed.data.key ?? hashKey(raw), script: parsed.data };
    }
    if (!first)
        return undefined;
    const prompt = promptText(first);
    const s = opts.defaultScript?.(prompt) ?? { steps: [] };
    return { key: s.key ?? hashKey(prompt), script: s };
}
function credential(headers) {
    const apiKey = headers['x-api-key'];
    if (typeof apiKey === 'string')
        return apiKey;
    const m = /^Bearer\s+(.+)$/i.exec(headers.authorization ?? '');
    return m?.[1];
}
/** Faults first, in order, then drop, stall, garbage, hang: each phase covers its next n requests. */
function misbehaviourAt(s, ordinal) {
    const count = (r) => r === true ? Infinity : r === false ? 0 : (r ?? 0);
    const phases = [
        ...(s.faults ?? []).map((f) => [
            f.times,
            { kind: 'fault', status: f.status, retryAfter: f.retryAfter }
        ]),
        [count(s.drop), { kind: 'drop' }],
        [count(s.stall), { kind: 'stall' }],
        [count(s.garbage), { kind: 'garbage' }],
        [count(s.hang), { kind: 'hang' }]
    ];
    let left = ordinal;
    for (const [times, m] of phases) {
        if (left < times)
            return m;
        left -= times;
    }
    return undefined;
}
const ERROR_TYPES = {
    400: 'invalid_request_error',
    401: 'authentication_error',
    403: 'permission_error',
    404: 'not_found_error',
    413: 'request_too_large',
    429: 'rate_limit_error',
    500: 'api_error',
    529: 'overloaded_error'
};
function sendError(res, status, message, retryAfter) {
    const headers = { 'content-type': 'application/json' };
    if (retryAfter !== undefined)
        headers['retry-after'] = String(retryAfter);
    res.writeHead(status, headers);
    const type = ERROR_TYPES[status] ?? 'api_error';
    res.end(JSON.stringify({ type: 'error', error: { type, message } }));
}
function absolutize(input, cwd) {
    if (!cwd)
        return input;
    const out = { ...input };
    for (const k of PATH_KEYS) {
        const v = out[k];
        if (typeof v === 'string' && !external_node_path_default().isAbsolute(v))
            out[k] = external_node_path_default().resolve(cwd, v);
    }
    return out;
}
function sse(res, type, data) {
    res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
}
function messageHead(id, model, usage) {
    return {
        id,
        type: 'message',
        role: 'assistant',
        model: model ?? 'unknown',
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { ...usage, output_tokens: 1 }
    };
}
function streamReply(res, id, model, r) {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    sse(res, 'message_start', { message: messageHead(id, model, r.usage) });
    r.content.forEach((block, index) => {
        if (block.type === 'text') {
            sse(res, 'content_block_start', { index, content_block: { type: 'text', text: '' } });
            sse(res, 'content_block_delta', { index, delta: { type: 'text_delta', text: block.text } });
        }
        else {
            const start = { ...block, input: {} };
            sse(res, 'content_block_start', { index, content_block: start });
            // Two chunks, so the client really has to join partial JSON.
            const json = JSON.stringify(block.input);
            const cut = Math.floor(json.length / 2);
            for (const part of [json.slice(0, cut), json.slice(cut)]) {
                sse(res, 'content_block_delta', {
                    index,
                    delta: { type: 'input_json_delta', partial_json: part }
                });
            }
        }
        sse(res, 'content_block_stop', { index });
    });
    sse(res, 'message_delta', {
        delta: { stop_reason: r.stopReason, stop_sequence: null },
        usage: r.usage
    });
    sse(res, 'message_stop', {});
    res.end();
}
function jsonReply(res, id, model, r) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({
        ...messageHead(id, model, r.usage),
        content: r.content,
        stop_reason: r.stopReason,
        usage: r.usage
    }));
}
function replyFor(state, s, step, cwd) {
    const usage = usageForStep(step);
    const planned = s.steps[step];
    if (planned && 'tool' in planned) {
        const id = `toolu_fleet_${String(++state.ids).padStart(6, '0')}`;
        return {
            content: [
                { type: 'text', text: planned.text ?? `Using ${planned.tool}.` },
                { type: 'tool_use', id, name: planned.tool, input: absolutize(planned.input, cwd) }
            ],
            stopReason: 'tool_use',
            usage
        };
    }
    return {
        content: [{ type: 'text', text: planned?.text ?? 'Done.' }],
        stopReason: 'end_turn',
        usage
    };
}
function headersOf(req) {
    const headers = {};
    for (const [k, v] of Object.entries(req.headers)) {
        if (v !== undefined)
            headers[k] = Array.isArray(v) ? v.join(', ') : v;
    }
    return headers;
}
/** The request as the tests read it back, before it is answered. */
function recordOf(req, raw, body, resolved) {
    const messages = messagesOf(body);
    const last = messages.at(-1);
    return {
        key: resolved && 'key' in resolved ? resolved.key : undefined,
        step: messages.filter(m => m.role === 'assistant').length,
        model: typeof body.model === 'string' ? body.model : undefined,
        path: req.url ?? '',
        headers: headersOf(req),
        body,
        bodyBytes: raw.length,
        stream: body.stream === true,
        cwd: findCwd(body),
        toolResults: last?.role === 'user' ? toolResultTexts(last.content) : [],
        outcome: 'reply',
        status: 0,
        usage: undefined,
        at: Date.now()
    };
}
/** A scripted misbehaviour other than a fault, played on the response. */
async function misbehave(state, kind, rec, req, res) {
    if (kind === 'hang')
        return void (rec.outcome = 'hang');
    if (kind === 'garbage') {
        Object.assign(rec, { outcome: 'garbage', status: 200 });
        res.writeHead(200, { 'content-type': 'text/html' });
        return void res.end('<html><body>502 Bad Gateway (not really)</body></html>\n');
    }
    // The CLI counts a dropped stream's message_start usage in its totals: record it too.
    const head = messageHead(`msg_${kind}_${++state.ids}`, rec.model, usageForStep(rec.step));
    Object.assign(rec, { outcome: kind, status: 200, usage: head.usage });
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    sse(res, 'message_start', { message: head });
    sse(res, 'content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
    if (kind === 'stall')
        return;
    // Cut only after the client has surely parsed message_start: cutting in the same tick
    // made the CLI count the partial usage in some runs and not in others.
    sse(res, 'content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'Wor' } });
    await (0,promises_.setTimeout)(DROP_AFTER_MS, undefined, { signal: state.closing.signal });
    req.socket.destroy();
}
/** The request body as JSON, or why it is not. */
function parseBody(raw) {
    try {
        return { body: JSON.parse(raw.toString('utf8')) };
    }
    catch (e) {
        return { body: {}, parseError: `body is not JSON: ${String(e)}` };
    }
}
/**
 * A request refused before its script plays (over maxConcurrent, a wrong key, a bad body), or
 * counted as open until its response closes.
 */
function refusal(state, req, res, rec, resolved) {
    const { opts } = state;
    if (opts.maxConcurrent !== undefined && state.openNow >= opts.maxConcurrent) {
        const busy = 'High concurrency usage of this API, please reduce concurrency or contact customer service to increase limits';
        return ['refused', 429, busy];
    }
    state.openNow++;
    res.once('close', () => {
        state.openNow--;
        rec.closedAt = Date.now();
    });
    if (opts.acceptKeys && !opts.acceptKeys.includes(credential(req.headers) ?? '')) {
        return ['unauthorized', 401, 'invalid x-api-key'];
    }
    if (resolved && 'error' in resolved)
        return ['bad-request', 400, resolved.error];
    return undefined;
}
async function handle(state, req, res, raw) {
    const { opts } = state;
    const pathname = new URL(req.url ?? '/', 'http://x').pathname;
    if (req.method === 'HEAD' || req.method === 'GET')
        return void res.writeHead(200).end();
    if (pathname !== '/v1/messages' && pathname !== '/v1/messages/count_tokens') {
        return sendError(res, 404, `no route for ${pathname}`);
    }
    const { body, parseError } = parseBody(raw);
    if (pathname === '/v1/messages/count_tokens') {
        res.writeHead(200, { 'content-type': 'application/json' });
        return void res.end(JSON.stringify({ input_tokens: Math.ceil(raw.length / 4) }));
    }
    const first = messagesOf(body).find(m => m.role === 'user');
    const resolved = parseError ? { error: parseError } : resolveScript(first, opts);
    const rec = recordOf(req, raw, body, resolved);
    state.requests.push(rec);
    const fail = (outcome, status, message, retryAfter) => {
        Object.assign(rec, { outcome, status });
        sendError(res, status, message, retryAfter);
    };
    const refused = refusal(state, req, res, rec, resolved);
    if (refused)
        return fail(...refused);
    // A refusal above answered a body that had no script.
    const play = resolved && 'script' in resolved ? resolved : undefined;
    const s = play?.script;
    await (0,promises_.setTimeout)(s?.delayMs ?? opts.delayMs ?? 0, undefined, { signal: state.closing.signal });
    // The client gave up while we held the answer (its own timeout): nothing to send.
    if (req.socket.destroyed)
        return;
    let reply;
    const hasTools = Array.isArray(body.tools) && body.tools.length > 0;
    if (!s || !play || !hasTools) {
        rec.outcome = 'side';
        reply = { content: [{ type: 'text', text: 'OK.' }], stopReason: 'end_turn', usage: SIDE_USAGE };
    }
    else {
        const ordinal = state.ordinals.get(play.key) ?? 0;
        state.ordinals.set(play.key, ordinal + 1);
        const bad = misbehaviourAt(s, ordinal);
        if (bad?.kind === 'fault') {
            const message = `scripted ${bad.status} (request ${ordinal + 1})`;
            return fail('fault', bad.status, message, bad.retryAfter);
        }
        if (bad)
            return misbehave(state, bad.kind, rec, req, res);
        reply = replyFor(state, s, rec.step, rec.cwd);
    }
    Object.assign(rec, { status: 200, usage: reply.usage });
    const id = `msg_fleet_${String(++state.ids).padStart(6, '0')}`;
    if (rec.stream)
        streamReply(res, id, rec.model, reply);
    else
        jsonReply(res, id, rec.model, reply);
}
async function startModelServer(opts = {}) {
    const state = {
        // A copy: setMaxConcurrent changes this server's limit, never the caller's object.
        opts: { ...opts },
        requests: [],
        ordinals: new Map(),
        closing: new AbortController(),
        ids: 0,
        openNow: 0
    };
    const { requests, closing } = state;
    const server = external_node_http_default().createServer((req, res) => {
        const chunks = [];
        req.on('data', (c) => chunks.push(c));
        req.on('end', () => {
            handle(state, req, res, Buffer.concat(chunks)).catch((e) => {
                if (closing.signal.aborted)
                    return;
                if (!res.headersSent)
                    sendError(res, 500, `model-server bug: ${String(e)}`);
                else
                    res.destroy();
            });
        });
    });
    await new Promise(resolve => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address();
    const close = async () => {
        if (closing.signal.aborted)
            return;
        closing.abort();
        const closed = new Promise(resolve => server.close(() => resolve()));
        server.closeAllConnections();
        await closed;
    };
    const requestsFor = (key) => requests.filter(r => r.key === key);
    return {
        url: `http://127.0.0.1:${port}`,
        requests,
        requestsFor,
        usageFor: key => sumUsage(requestsFor(key).map(r => r.usage)),
        open: () => state.openNow,
        setMaxConcurrent: n => {
            state.opts.maxConcurrent = n;
        },
        close,
        [Symbol.asyncDispose]: close
    };
}

// EXTERNAL MODULE: external "node:fs/promises"
var external_node_fs_promises_ = __webpack_require__(51455);
// EXTERNAL MODULE: external "node:os"
var external_node_os_ = __webpack_require__(48161);
// EXTERNAL MODULE: external "node:child_process"
var external_node_child_process_ = __webpack_require__(31421);
// EXTERNAL MODULE: external "node:fs"
var external_node_fs_ = __webpack_require__(73024);
;// CONCATENATED MODULE: ./src/demo/git-remote.ts
// A real git smart-HTTP remote for end-to-end tests: `git http-backend` behind a token check, so
// pushes, auth failures, hook rejections and outages behave as they do against GitHub.







/** The config file and variables that pin git's behaviour, independent of the machine's config. */
function gitTestEnv(home) {
    (0,external_node_fs_.mkdirSync)(home, { recursive: true });
    const globalConfig = (0,external_node_path_.join)(home, '.gitconfig');
    (0,external_node_fs_.writeFileSync)(globalConfig, [
        '[user]',
        '\tname = Fleet Test',
        '\temail = fleet-test@example.com',
        '[init]',
        '\tdefaultBranch = main',
        '[advice]',
        '\tdetachedHead = false',
        ''
    ].join('\n'));
    return {
        PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
        HOME: home,
        LC_ALL: 'C',
        GIT_CONFIG_NOSYSTEM: '1',
        GIT_CONFIG_GLOBAL: globalConfig,
        GIT_TERMINAL_PROMPT: '0'
    };
}
/** The header value actions/checkout persists for a token. */
function extraheaderValue(token) {
    return `AUTHORIZATION: basic ${Buffer.from(`x-access-token:${token}`).toString('base64')}`;
}
async function runGit(args, cwd, env) {
    return new Promise((resolve, reject) => {
        const child = (0,external_node_child_process_.spawn)('git', args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
        const out = [];
        const err = [];
        child.stdout.on('data', (c) => out.push(c));
        child.stderr.on('data', (c) => err.push(c));
        child.on('error', reject);
        child.on('close', exitCode => resolve({
            exitCode,
            stdout: Buffer.concat(out).toString('utf8'),
            stderr: Buffer.concat(err).toString('utf8')
        }));
    });
}
async function gitOk(args, cwd, env) {
    const r = await runGit(args, cwd, env);
    if (r.exitCode !== 0) {
        throw new Error(`git ${args.join(' ')} failed (${r.exitCode}): ${r.stderr.trim()}`);
    }
    return r.stdout;
}
/** Matches what GitHub accepts: Basic with the token as password (any user), or Bearer. */
function isAuthorized(header, token) {
    if (!header)
        return false;
    const [scheme = '', credential = ''] = header.trim().split(/\s+/, 2);
    if (scheme.toLowerCase() === 'bearer')
        return credential === token;
    if (scheme.toLowerCase() !== 'basic')
        return false;
    const decoded = Buffer.from(credential, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    return colon > 0 && decoded.slice(colon + 1) === token;
}
function serviceOf(pathname, query) {
    const fromQuery = query.get('service');
    if (fromQuery)
        return fromQuery;
    return /\/(git-upload-pack|git-receive-pack)$/.exec(pathname)?.[1];
}
function repoDir(root, name) {
    if (!/^[\w.-]+(\/[\w.-]+)*$/.test(name) || name.split('/').includes('..')) {
        throw new Error(`Bad repository name '${name}'`);
    }
    return (0,external_node_path_.join)(root, name.endsWith('.git') ? name : `${name}.git`);
}
/** The CGI environment `git http-backend` reads for one request. */
function cgiEnvOf(req, url, base) {
    return {
        ...base.env,
        GIT_PROJECT_ROOT: base.root,
        GIT_HTTP_EXPORT_ALL: '1',
        GATEWAY_INTERFACE: 'CGI/1.1',
        REQUEST_METHOD: req.method ?? 'GET',
        PATH_INFO: decodeURIComponent(url.pathname),
        QUERY_STRING: url.search.replace(/^\?/, ''),
        CONTENT_TYPE: req.headers['content-type'] ?? '',
        REMOTE_ADDR: req.socket.remoteAddress ?? '127.0.0.1',
        // Only authorized requests reach the backend.
        REMOTE_USER: 'x-access-token',
        ...(req.headers['content-length'] ? { CONTENT_LENGTH: req.headers['content-length'] } : {}),
        ...(req.headers['content-encoding']
            ? { HTTP_CONTENT_ENCODING: req.headers['content-encoding'] }
            : {}),
        // Without this the backend speaks protocol v0 even when the client asked for v2.
        ...(typeof req.headers['git-protocol'] === 'string'
            ? { HTTP_GIT_PROTOCOL: req.headers['git-protocol'] }
            : {})
    };
}
/** Where a CGI response's headers end in `text`, or -1 while they have not yet. */
function headersEnd(text) {
    const crlf = text.indexOf('\r\n\r\n');
    const lf = text.indexOf('\n\n');
    return crlf >= 0 && (lf < 0 || crlf < lf) ? crlf + 4 : lf >= 0 ? lf + 2 : -1;
}
/** The CGI headers (with `Status:`) onto the response; returns the status. */
function writeCgiHead(res, head) {
    let status = 200;
    for (const line of head.split(/\r?\n/)) {
        const colon = line.indexOf(':');
        if (colon <= 0)
            continue;
        const key = line.slice(0, colon).trim();
        const value = line.slice(colon + 1).trim();
        if (key.toLowerCase() === 'status')
            status = Number.parseInt(value, 10);
        else
            res.setHeader(key, value);
    }
    return status;
}
/** One request through `git http-backend`: its CGI output relayed as the HTTP response. */
function serveBackend(req, res, url, base) {
    const child = (0,external_node_child_process_.spawn)('git', ['http-backend'], {
        env: cgiEnvOf(req, url, base),
        stdio: ['pipe', 'pipe', 'pipe']
    });
    base.backends.add(child);
    child.on('close', () => base.backends.delete(child));
    // The backend may answer (e.g. 403) without reading the body: ignore the broken pipe.
    child.stdin.on('error', () => { });
    req.pipe(child.stdin);
    let head = Buffer.alloc(0);
    let headersSent = false;
    child.stdout.on('data', (chunk) => {
        if (headersSent) {
            res.write(chunk);
            return;
        }
        head = Buffer.concat([head, chunk]);
        const text = head.toString('latin1');
        const end = headersEnd(text);
        if (end < 0)
            return;
        res.writeHead(writeCgiHead(res, text.slice(0, end)));
        headersSent = true;
        res.write(head.subarray(end));
    });
    const stderr = [];
    child.stderr.on('data', (c) => stderr.push(c));
    child.on('close', code => {
        if (!headersSent) {
            res.writeHead(500, { 'content-type': 'text/plain' });
            res.end(`git http-backend exited ${code}: ${Buffer.concat(stderr).toString()}`);
            return;
        }
        res.end();
    });
}
/** Every request: recorded, then refused while down or without the token, else served. */
function answer(req, res, state) {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const authorized = isAuthorized(req.headers.authorization, state.token);
    const service = serviceOf(url.pathname, url.searchParams);
    state.requests.push({
        method: req.method ?? 'GET',
        path: url.pathname,
        authorized,
        ...(service ? { service } : {})
    });
    if (state.down()) {
        req.resume();
        res.writeHead(503, { 'content-type': 'text/plain' });
        res.end('Service Unavailable\n');
        return;
    }
    if (!authorized) {
        req.resume();
        res.writeHead(401, {
            'www-authenticate': 'Basic realm="GitHub"',
            'content-type': 'text/plain'
        });
        res.end('Unauthorized\n');
        return;
    }
    serveBackend(req, res, url, state);
}
/** A bare repository at `dir` whose `branch` holds one commit of `files`. */
async function createBare(dir, base, env, branch, files) {
    await (0,external_node_fs_promises_.mkdir)((0,external_node_path_.dirname)(dir), { recursive: true });
    await gitOk(['init', '--bare', '--quiet', `--initial-branch=${branch}`, dir], base, env);
    await gitOk(['config', 'http.receivepack', 'true'], dir, env);
    const seed = await (0,external_node_fs_promises_.mkdtemp)((0,external_node_path_.join)(base, 'seed-'));
    try {
        await gitOk(['init', '--quiet', `--initial-branch=${branch}`], seed, env);
        for (const [path, content] of Object.entries(files)) {
            await (0,external_node_fs_promises_.mkdir)((0,external_node_path_.dirname)((0,external_node_path_.join)(seed, path)), { recursive: true });
            await (0,external_node_fs_promises_.writeFile)((0,external_node_path_.join)(seed, path), content);
        }
        await gitOk(['add', '--all'], seed, env);
        await gitOk(['commit', '--quiet', '--allow-empty', '-m', 'Initial commit'], seed, env);
        await gitOk(['push', '--quiet', dir, `HEAD:refs/heads/${branch}`], seed, env);
    }
    finally {
        await (0,external_node_fs_promises_.rm)(seed, { recursive: true, force: true });
    }
}
async function branchesOf(dir, env) {
    const format = '--format=%(refname:strip=2) %(objectname)';
    const out = await gitOk(['for-each-ref', format, 'refs/heads'], dir, env);
    const result = {};
    for (const line of out.split('\n')) {
        const space = line.lastIndexOf(' ');
        if (space > 0)
            result[line.slice(0, space)] = line.slice(space + 1);
    }
    return result;
}
async function logOf(dir, ref, n, env) {
    const format = '--format=%H%x1f%s%x1f%b%x1f%an <%ae>%x1e';
    const out = await gitOk(['log', `-n${n}`, format, ref, '--'], dir, env);
    return out
        .split('\x1e')
        .map(record => record.replace(/^\n/, ''))
        .filter(record => record.length > 0)
        .map(record => {
        const [sha = '', subject = '', body = '', author = ''] = record.split('\x1f');
        return { sha, subject, body: body.replace(/\n+$/, ''), author };
    });
}
async function startGitRemote(opts) {
    const base = await (0,external_node_fs_promises_.mkdtemp)((0,external_node_path_.join)((0,external_node_os_.tmpdir)(), 'fleet-git-remote-'));
    const root = (0,external_node_path_.join)(base, 'repos');
    await (0,external_node_fs_promises_.mkdir)(root);
    const env = gitTestEnv((0,external_node_path_.join)(base, 'home'));
    const requests = [];
    const backends = new Set();
    let down = false;
    const server = (0,external_node_http_.createServer)((req, res) => answer(req, res, { token: opts.token, requests, down: () => down, env, root, backends }));
    await new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(0, '127.0.0.1', () => resolve());
    });
    const port = server.address().port;
    const url = `http://127.0.0.1:${port}/`;
    const bare = (name) => repoDir(root, name);
    return {
        url,
        requests,
        async createRepo(name, repoOpts = {}) {
            await createBare(bare(name), base, env, repoOpts.branch ?? 'main', repoOpts.files ?? { 'README.md': `# ${name}\n` });
            return `${url}${name.endsWith('.git') ? name : `${name}.git`}`;
        },
        repoPath: bare,
        branches: name => branchesOf(bare(name), env),
        async readFile(name, ref, path) {
            const r = await runGit(['cat-file', 'blob', `${ref}:${path}`], bare(name), env);
            return r.exitCode === 0 ? r.stdout : undefined;
        },
        log: (name, ref, n = 20) => logOf(bare(name), ref, n, env),
        async setPreReceive(name, script) {
            const hook = (0,external_node_path_.join)(bare(name), 'hooks', 'pre-receive');
            await (0,external_node_fs_promises_.mkdir)((0,external_node_path_.dirname)(hook), { recursive: true });
            await (0,external_node_fs_promises_.writeFile)(hook, script.startsWith('#!') ? script : `#!/bin/sh\n${script}\n`);
            await (0,external_node_fs_promises_.chmod)(hook, 0o755);
        },
        setDown(value) {
            down = value;
        },
        async close() {
            for (const child of backends)
                child.kill('SIGKILL');
            server.closeAllConnections();
            await new Promise(resolve => server.close(() => resolve()));
            await (0,external_node_fs_promises_.rm)(base, { recursive: true, force: true });
        }
    };
}
/** The token where actions/checkout puts it: .git/config, or a file included from it (v6). */
async function addCredentials(dir, env, cloneUrl, token, opts) {
    const git = (...args) => gitOk(args, dir, env);
    const headerKey = `http.${new URL(cloneUrl).origin}/.extraheader`;
    if (opts.credentials !== 'includeIf') {
        await git('config', '--local', headerKey, extraheaderValue(token));
        return;
    }
    const credDir = opts.credentialsDir ?? (0,external_node_path_.join)(dir, '.git');
    const credFile = (0,external_node_path_.join)(credDir, `git-credentials-${(0,external_node_crypto_.randomUUID)()}.config`);
    await (0,external_node_fs_promises_.mkdir)(credDir, { recursive: true });
    await git('config', '--file', credFile, headerKey, extraheaderValue(token));
    const gitDir = (0,external_node_path_.join)(dir, '.git');
    await git('config', '--local', `includeIf.gitdir:${gitDir}.path`, credFile);
    await git('config', '--local', `includeIf.gitdir:${gitDir}/worktrees/*.path`, credFile);
}
/** Clone `cloneUrl` into a workspace laid out exactly as actions/checkout leaves one. */
async function makeWorkspace(cloneUrl, token, opts = {}) {
    const dir = opts.dir ?? (await (0,external_node_fs_promises_.mkdtemp)((0,external_node_path_.join)((0,external_node_os_.tmpdir)(), 'fleet-workspace-')));
    await (0,external_node_fs_promises_.mkdir)(dir, { recursive: true });
    // Setup needs no identity: keep the machine's config out without a home of its own.
    const env = {
        PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
        HOME: dir,
        LC_ALL: 'C',
        GIT_CONFIG_NOSYSTEM: '1',
        GIT_CONFIG_GLOBAL: '/dev/null',
        GIT_TERMINAL_PROMPT: '0'
    };
    const git = (...args) => gitOk(args, dir, env);
    await git('-c', 'init.defaultBranch=main', 'init', '--quiet');
    await git('remote', 'add', 'origin', cloneUrl);
    await git('config', '--local', 'gc.auto', '0');
    await addCredentials(dir, env, cloneUrl, token, opts);
    // checkout gets ref and sha from the event (GITHUB_REF, GITHUB_SHA): here, the remote's HEAD.
    const symref = await git('ls-remote', '--symref', 'origin', 'HEAD');
    const branch = /^ref: refs\/heads\/(\S+)\tHEAD$/m.exec(symref)?.[1];
    const sha = /^([0-9a-f]{40})\tHEAD$/m.exec(symref)?.[1];
    if (!branch || !sha)
        throw new Error(`Cannot read the default branch of ${cloneUrl}: ${symref}`);
    const depth = opts.fetchDepth ?? 1;
    const fetch = ['-c', 'protocol.version=2', 'fetch'];
    if (depth > 0) {
        const refspec = opts.detach ? sha : `+${sha}:refs/remotes/origin/${branch}`;
        await git(...fetch, '--no-tags', '--prune', '--no-recurse-submodules', `--depth=${depth}`, 'origin', refspec);
    }
    else {
        await git(...fetch, '--prune', '--no-recurse-submodules', 'origin', '+refs/heads/*:refs/remotes/origin/*', '+refs/tags/*:refs/tags/*');
    }
    if (opts.detach)
        await git('checkout', '--quiet', '--force', sha);
    else
        await git('checkout', '--quiet', '--force', '-B', branch, `refs/remotes/origin/${branch}`);
    return dir;
}

// EXTERNAL MODULE: external "node:net"
var external_node_net_ = __webpack_require__(77030);
// EXTERNAL MODULE: external "node:url"
var external_node_url_ = __webpack_require__(73136);
;// CONCATENATED MODULE: ./src/demo/prism.ts
// One Prism per test process, shared by every GitHub mock in it. Prism validates requests against
// GitHub's OpenAPI description; loading even the trimmed spec takes ~2 s, so it is started lazily,
// kept while mocks use it (and briefly after, so back-to-back tests reuse it), and never orphaned.






const SPEC = (0,external_node_url_.fileURLToPath)(new URL(/* asset import */ __webpack_require__(51126), __webpack_require__.b));
// Preloaded into Prism: it exits when our end of its stdin closes, i.e. when this process dies,
// however it dies (SIGKILL from a test runner included).
const EXIT_WITH_PARENT = 'data:text/javascript,process.stdin.on("end",()=>process.exit(0)).on("error",()=>process.exit(0)).resume()';
const IDLE_MS = 1500;
let starting;
let users = 0;
let idle;
async function acquirePrism() {
    users++;
    clearTimeout(idle);
    starting ??= start();
    try {
        return await starting;
    }
    catch (error) {
        users--;
        starting = undefined;
        throw error;
    }
}
function releasePrism() {
    users = Math.max(users - 1, 0);
    if (users > 0)
        return;
    clearTimeout(idle);
    idle = setTimeout(() => void stopPrism(), IDLE_MS).unref();
}
/** Stops Prism now (and waits for it), whatever still uses it. */
async function stopPrism() {
    clearTimeout(idle);
    const current = starting;
    starting = undefined;
    if (!current)
        return;
    const prism = await current.catch(() => undefined);
    if (prism)
        await kill(prism.child);
}
async function start() {
    const port = await freePort();
    const began = performance.now();
    const child = (0,external_node_child_process_.spawn)(process.execPath, [
        '--import',
        EXIT_WITH_PARENT,
        prismCli(),
        'mock',
        SPEC,
        '-p',
        String(port),
        '-h',
        '127.0.0.1',
        '-v',
        'warn'
    ], { detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
    // Its own process group, killed whole at exit; the pipes are drained so Prism never blocks.
    const killAtExit = () => signalGroup(child, 'SIGKILL');
    process.once('exit', killAtExit);
    child.once('exit', () => process.off('exit', killAtExit));
    let output = '';
    const keep = (chunk) => (output = (output + chunk.toString()).slice(-4000));
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    child.unref();
    for (const stream of [child.stdin, child.stdout, child.stderr])
        stream?.unref?.();
    const exited = new Promise((_, reject) => child.once('exit', code => reject(new Error(`Prism exited (${code}) before listening:\n${output}`))));
    exited.catch(() => undefined);
    await Promise.race([waitForPort(port, 30_000), exited]);
    // A Prism that dies under us is started afresh by the next mock rather than reused.
    const current = starting;
    child.once('exit', () => {
        if (starting === current)
            starting = undefined;
    });
    const url = `http://127.0.0.1:${port}`;
    const agent = new external_node_http_.Agent({ keepAlive: true });
    return {
        child,
        url,
        startupMs: Math.round(performance.now() - began),
        forward: (method, path, headers, body) => send(agent, url, method, path, headers, body)
    };
}
function send(agent, base, method, path, headers, body) {
    return new Promise((resolve, reject) => {
        const req = (0,external_node_http_.request)(new URL(path, base), { method, headers, agent }, res => {
            const chunks = [];
            res.on('data', (c) => chunks.push(c));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
            res.on('error', reject);
        });
        req.on('error', reject);
        req.end(body.length > 0 ? body : undefined);
    });
}
function signalGroup(child, signal) {
    if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null)
        return;
    try {
        process.kill(-child.pid, signal);
    }
    catch {
        // the group is already gone
    }
}
async function kill(child) {
    if (child.exitCode !== null || child.signalCode !== null)
        return;
    const gone = new Promise(resolve => child.once('exit', () => resolve()));
    signalGroup(child, 'SIGTERM');
    const timer = setTimeout(() => signalGroup(child, 'SIGKILL'), 3000);
    await gone;
    clearTimeout(timer);
}
/**
 * Found at run time rather than through a literal path, so that when the demo bundles this file
 * (ncc) the CLI is still run from node_modules instead of being copied away from its own modules.
 */
function prismCli() {
    for (const start of [external_node_path_default().dirname((0,external_node_url_.fileURLToPath)(import.meta.url)), process.cwd()]) {
        for (let dir = start;; dir = external_node_path_default().dirname(dir)) {
            const cli = external_node_path_default().join(dir, 'node_modules', '@stoplight', 'prism-cli', 'dist', 'index.js');
            if ((0,external_node_fs_.existsSync)(cli))
                return cli;
            if (external_node_path_default().dirname(dir) === dir)
                break;
        }
    }
    throw new Error('@stoplight/prism-cli (a devDependency) is not installed: run npm ci');
}
function freePort() {
    return new Promise((resolve, reject) => {
        const server = (0,external_node_net_.createServer)();
        server.once('error', reject);
        server.listen(0, '127.0.0.1', () => {
            const address = server.address();
            server.close(() => typeof address === 'object' && address
                ? resolve(address.port)
                : reject(new Error('no port')));
        });
    });
}
async function waitForPort(port, timeoutMs) {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
        const open = await new Promise(resolve => {
            const socket = (0,external_node_net_.connect)(port, '127.0.0.1');
            socket.once('connect', () => (socket.destroy(), resolve(true)));
            socket.once('error', () => resolve(false));
        });
        if (open)
            return;
        await new Promise(r => setTimeout(r, 25));
    }
    throw new Error(`Prism did not listen on ${port} within ${timeoutMs} ms`);
}

;// CONCATENATED MODULE: ./src/demo/github-state.ts
// In-memory repository state behind the GitHub mock, and the JSON GitHub would render from it.

const TOKEN_USER = 'github-actions[bot]';
/** A PR's fields the mock does not model, at what GitHub says for a fresh one-commit PR. */
const PULL_UNMODELLED = {
    locked: false,
    milestone: null,
    active_lock_reason: null,
    merge_commit_sha: null,
    requested_teams: [],
    auto_merge: null,
    mergeable: null,
    rebaseable: null,
    mergeable_state: 'unknown',
    merged_by: null,
    review_comments: 0,
    commits: 1,
    additions: 0,
    deletions: 0,
    changed_files: 0
};
/** GitHub's timestamps carry no milliseconds. */
const now = () => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
const fakeSha = (seed) => (0,external_node_crypto_.createHash)('sha1').update(seed).digest('hex');
class GitHubState {
    repo;
    issues = [];
    comments = [];
    events = [];
    runs = new Map();
    reactions = [];
    reviewComments = [];
    jobs = [];
    labels = [];
    collaborators = new Map();
    nextId = 1;
    userIds = new Map([[TOKEN_USER, 41898282]]);
    constructor(repo) {
        this.repo = repo;
    }
    get pulls() {
        return this.issues.filter((i) => i.pull !== undefined);
    }
    issue(number) {
        return this.issues.find(i => i.number === number);
    }
    pullByNumber(number) {
        return this.pulls.find(p => p.number === number);
    }
    comment(id) {
        return this.comments.find(c => c.id === id);
    }
    label(name) {
        const key = name.toLowerCase();
        return this.labels.find(l => l.name.toLowerCase() === key);
    }
    /** Adding an unknown label to an issue creates it, as GitHub does. */
    ensureLabel(name, color = 'ededed', description = null) {
        const existing = this.label(name);
        if (existing)
            return existing;
        const created = { id: this.id(), name, color, description };
        this.labels.push(created);
        return created;
    }
    id() {
        return 1000 + this.nextId++;
    }
    addIssue(seed) {
        const created_at = seed.created_at ?? now();
        const issue = {
            number: this.issues.length + 1,
            id: this.id(),
            title: seed.title,
            body: seed.body ?? null,
            state: seed.state ?? 'open',
            state_reason: seed.state === 'closed' ? 'completed' : null,
            labels: (seed.labels ?? []).map(name => this.ensureLabel(name).name),
            assignees: [],
            user: seed.user ?? 'octocat',
            created_at,
            updated_at: created_at,
            closed_at: seed.state === 'closed' ? created_at : null
        };
        this.issues.push(issue);
        for (const label of issue.labels)
            this.labelEvent(issue.number, 'labeled', label, seed.labeledBy ?? issue.user, created_at);
        return issue;
    }
    labelEvent(issue_number, event, label, actor, created_at = now()) {
        this.events.push({ id: this.id(), issue_number, event, label, actor, created_at });
    }
    /** The GitHub App behind a bot login (github-actions[bot] -> the github-actions app). */
    appJson(bot) {
        const slug = bot.replace(/\[bot\]$/, '');
        return {
            id: 15368,
            slug,
            node_id: nodeId('A', 15368),
            owner: this.userJson('github', 'Organization'),
            name: slug === 'github-actions' ? 'GitHub Actions' : slug,
            description: 'Automate your workflow from idea to production',
            external_url: 'https://help.github.com/en/actions',
            html_url: `${this.repo.serverUrl}/apps/${slug}`,
            created_at: '2018-07-30T09:30:17Z',
            updated_at: '2019-12-10T19:04:12Z',
            permissions: { issues: 'write', pull_requests: 'write', contents: 'write' },
            events: []
        };
    }
    eventJson(e) {
        const label = this.ensureLabel(e.label);
        return {
            id: e.id,
            node_id: nodeId('LE', e.id),
            url: `${this.repoApi}/issues/events/${e.id}`,
            actor: this.userJson(e.actor),
            event: e.event,
            commit_id: null,
            commit_url: null,
            created_at: e.created_at,
            label: { name: label.name, color: label.color },
            performed_via_github_app: null
        };
    }
    runJson(run) {
        return {
            id: run.id,
            name: 'Fleet',
            node_id: nodeId('WFR', run.id),
            status: run.status,
            conclusion: run.conclusion,
            url: `${this.repoApi}/actions/runs/${run.id}`,
            html_url: `${this.repoHtml}/actions/runs/${run.id}`
        };
    }
    addPull(seed) {
        const base = seed.base ?? this.repo.defaultBranch;
        const issue = this.addIssue({
            title: seed.title ?? seed.head,
            user: seed.user ?? TOKEN_USER,
            ...(seed.body !== undefined && { body: seed.body }),
            ...(seed.labels && { labels: seed.labels }),
            ...(seed.state && { state: seed.state }),
            ...(seed.created_at && { created_at: seed.created_at })
        });
        issue.state_reason = null;
        const pull = {
            head: seed.head,
            base,
            head_sha: seed.head_sha ?? fakeSha(`${seed.head}#${issue.number}`),
            base_sha: fakeSha(base),
            draft: seed.draft ?? false,
            merged_at: null,
            requested_reviewers: [],
            maintainer_can_modify: false
        };
        return Object.assign(issue, { pull });
    }
    addComment(issueNumber, body, user = TOKEN_USER) {
        const at = now();
        const comment = {
            id: this.id(),
            issue_number: issueNumber,
            body,
            user,
            created_at: at,
            updated_at: at
        };
        this.comments.push(comment);
        return comment;
    }
    /** A submitted review's inline comments (or one reply, with `in_reply_to_id`), on the PR's head. */
    addReviewComments(pullNumber, user, seeds, reviewId = this.id()) {
        const pr = this.pullByNumber(pullNumber);
        if (!pr)
            throw new Error(`no pull request #${pullNumber}`);
        return seeds.map(seed => {
            const at = now();
            const comment = {
                id: this.id(),
                pull_number: pullNumber,
                review_id: reviewId,
                body: seed.body,
                user,
                path: seed.path,
                line: seed.line,
                diff_hunk: seed.diff_hunk ?? `@@ -0,0 +1,${seed.line} @@`,
                commit_id: pr.pull.head_sha,
                ...(seed.in_reply_to_id !== undefined && { in_reply_to_id: seed.in_reply_to_id }),
                created_at: at,
                updated_at: at
            };
            this.reviewComments.push(comment);
            return comment;
        });
    }
    reviewComment(id) {
        return this.reviewComments.find(c => c.id === id);
    }
    /** A completed workflow run with its jobs (each with its log text). */
    addRun(run, jobs) {
        const created = { id: this.id(), status: 'completed', conclusion: run.conclusion };
        this.runs.set(created.id, created);
        const made = jobs.map(j => {
            const job = {
                id: this.id(),
                run_id: created.id,
                status: 'completed',
                head_branch: run.head_branch,
                head_sha: run.head_sha,
                steps: j.steps ?? [{ name: 'Run tests', conclusion: j.conclusion }],
                ...j
            };
            this.jobs.push(job);
            return job;
        });
        return { run: created, jobs: made };
    }
    // ---- rendering, in the shape of GitHub's REST responses ----
    get repoApi() {
        return `${this.repo.apiUrl}/repos/${this.repo.owner}/${this.repo.repo}`;
    }
    get repoHtml() {
        return `${this.repo.serverUrl}/${this.repo.owner}/${this.repo.repo}`;
    }
    userJson(login, type) {
        let id = this.userIds.get(login);
        if (id === undefined)
            this.userIds.set(login, (id = 9000 + this.userIds.size));
        const url = `${this.repo.apiUrl}/users/${encodeURIComponent(login)}`;
        return {
            login,
            id,
            node_id: nodeId('U', id),
            avatar_url: `${this.repo.serverUrl}/${login}.png`,
            gravatar_id: '',
            url,
            html_url: `${this.repo.serverUrl}/${login}`,
            ...urlTemplates(url, USER_LINKS),
            type: type ?? (login.endsWith('[bot]') ? 'Bot' : 'User'),
            site_admin: false
        };
    }
    repoJson() {
        const { owner, repo, defaultBranch } = this.repo;
        const open = this.issues.filter(i => i.state === 'open').length;
        return {
            id: 4242,
            node_id: nodeId('R', 4242),
            name: repo,
            full_name: `${owner}/${repo}`,
            owner: this.userJson(owner, 'Organization'),
            private: false,
            visibility: 'public',
            fork: false,
            archived: false,
            disabled: false,
            description: null,
            html_url: this.repoHtml,
            url: this.repoApi,
            ...urlTemplates(this.repoApi, REPO_LINKS),
            clone_url: `${this.repoHtml}.git`,
            git_url: `${this.repoHtml.replace(/^https?:/, 'git:')}.git`,
            ssh_url: `git@${new URL(this.repo.serverUrl).host}:${owner}/${repo}.git`,
            svn_url: this.repoHtml,
            mirror_url: null,
            homepage: null,
            language: null,
            license: null,
            size: 0,
            default_branch: defaultBranch,
            has_issues: true,
            has_downloads: false,
            has_projects: false,
            has_wiki: false,
            has_pages: false,
            has_discussions: false,
            forks: 0,
            forks_count: 0,
            stargazers_count: 0,
            watchers: 0,
            watchers_count: 0,
            network_count: 0,
            subscribers_count: 0,
            open_issues: open,
            open_issues_count: open,
            permissions: { admin: false, maintain: false, push: true, triage: true, pull: true },
            created_at: '2020-01-01T00:00:00Z',
            updated_at: '2020-01-01T00:00:00Z',
            pushed_at: '2020-01-01T00:00:00Z'
        };
    }
    labelJson(label) {
        return {
            id: label.id,
            node_id: nodeId('LA', label.id),
            url: `${this.repoApi}/labels/${encodeURIComponent(label.name)}`,
            name: label.name,
            color: label.color,
            description: label.description,
            default: false
        };
    }
    labelsOf(issue) {
        return issue.labels.map(name => this.labelJson(this.ensureLabel(name)));
    }
    assigneesOf(issue) {
        return issue.assignees.map(login => this.userJson(login));
    }
    issueJson(issue) {
        const url = `${this.repoApi}/issues/${issue.number}`;
        const assignees = this.assigneesOf(issue);
        return {
            id: issue.id,
            node_id: nodeId('I', issue.id),
            url,
            repository_url: this.repoApi,
            labels_url: `${url}/labels{/name}`,
            comments_url: `${url}/comments`,
            events_url: `${url}/events`,
            html_url: `${this.repoHtml}/${issue.pull ? 'pull' : 'issues'}/${issue.number}`,
            number: issue.number,
            state: issue.state,
            state_reason: issue.state_reason,
            title: issue.title,
            body: issue.body,
            user: this.userJson(issue.user),
            labels: this.labelsOf(issue),
            assignee: assignees[0] ?? null,
            assignees,
            milestone: null,
            locked: false,
            active_lock_reason: null,
            comments: this.comments.filter(c => c.issue_number === issue.number).length,
            created_at: issue.created_at,
            updated_at: issue.updated_at,
            closed_at: issue.closed_at,
            author_association: this.association(issue.user),
            ...(issue.pull && {
                pull_request: {
                    url: `${this.repoApi}/pulls/${issue.number}`,
                    html_url: `${this.repoHtml}/pull/${issue.number}`,
                    diff_url: `${this.repoHtml}/pull/${issue.number}.diff`,
                    patch_url: `${this.repoHtml}/pull/${issue.number}.patch`,
                    merged_at: issue.pull.merged_at
                }
            })
        };
    }
    pullJson(pr) {
        const assignees = this.assigneesOf(pr);
        return {
            ...this.pullUrls(pr),
            ...PULL_UNMODELLED,
            id: pr.id,
            node_id: nodeId('PR', pr.id),
            number: pr.number,
            state: pr.state,
            title: pr.title,
            user: this.userJson(pr.user),
            body: pr.body,
            labels: this.labelsOf(pr),
            created_at: pr.created_at,
            updated_at: pr.updated_at,
            closed_at: pr.closed_at,
            merged_at: pr.pull.merged_at,
            assignee: assignees[0] ?? null,
            assignees,
            requested_reviewers: pr.pull.requested_reviewers.map(login => this.userJson(login)),
            head: this.refJson(pr.pull.head, pr.pull.head_sha),
            base: this.refJson(pr.pull.base, pr.pull.base_sha),
            author_association: this.association(pr.user),
            draft: pr.pull.draft,
            merged: pr.pull.merged_at !== null,
            comments: this.comments.filter(c => c.issue_number === pr.number).length,
            maintainer_can_modify: pr.pull.maintainer_can_modify
        };
    }
    /** A PR's API and web links, flat and again under `_links`. */
    pullUrls(pr) {
        const url = `${this.repoApi}/pulls/${pr.number}`;
        const html = `${this.repoHtml}/pull/${pr.number}`;
        const issueUrl = `${this.repoApi}/issues/${pr.number}`;
        const reviewComment = `${this.repoApi}/pulls/comments{/number}`;
        const statuses = `${this.repoApi}/statuses/${pr.pull.head_sha}`;
        return {
            url,
            html_url: html,
            diff_url: `${html}.diff`,
            patch_url: `${html}.patch`,
            issue_url: issueUrl,
            commits_url: `${url}/commits`,
            review_comments_url: `${url}/comments`,
            review_comment_url: reviewComment,
            comments_url: `${issueUrl}/comments`,
            statuses_url: statuses,
            _links: {
                self: { href: url },
                html: { href: html },
                issue: { href: issueUrl },
                comments: { href: `${issueUrl}/comments` },
                review_comments: { href: `${url}/comments` },
                review_comment: { href: reviewComment },
                commits: { href: `${url}/commits` },
                statuses: { href: statuses }
            }
        };
    }
    /** A PR's head or base: a branch of this repository. */
    refJson(branch, sha) {
        return {
            label: `${this.repo.owner}:${branch}`,
            ref: branch,
            sha,
            user: this.userJson(this.repo.owner, 'Organization'),
            repo: this.repoJson()
        };
    }
    commentJson(comment) {
        const issue = this.issue(comment.issue_number);
        const kind = issue?.pull ? 'pull' : 'issues';
        return {
            id: comment.id,
            node_id: nodeId('IC', comment.id),
            url: `${this.repoApi}/issues/comments/${comment.id}`,
            html_url: `${this.repoHtml}/${kind}/${comment.issue_number}#issuecomment-${comment.id}`,
            issue_url: `${this.repoApi}/issues/${comment.issue_number}`,
            body: comment.body,
            user: this.userJson(comment.user),
            // GitHub sets this on what an app's installation token wrote (GITHUB_TOKEN: github-actions).
            performed_via_github_app: comment.user.endsWith('[bot]') ? this.appJson(comment.user) : null,
            created_at: comment.created_at,
            updated_at: comment.updated_at,
            author_association: this.association(comment.user)
        };
    }
    reviewCommentJson(c) {
        const url = `${this.repoApi}/pulls/comments/${c.id}`;
        const html = `${this.repoHtml}/pull/${c.pull_number}#discussion_r${c.id}`;
        const pullUrl = `${this.repoApi}/pulls/${c.pull_number}`;
        return {
            url,
            pull_request_review_id: c.review_id,
            id: c.id,
            node_id: nodeId('PRRC', c.id),
            diff_hunk: c.diff_hunk,
            path: c.path,
            position: c.line,
            original_position: c.line,
            commit_id: c.commit_id,
            original_commit_id: c.commit_id,
            ...(c.in_reply_to_id !== undefined && { in_reply_to_id: c.in_reply_to_id }),
            user: this.userJson(c.user),
            body: c.body,
            created_at: c.created_at,
            updated_at: c.updated_at,
            html_url: html,
            pull_request_url: pullUrl,
            author_association: this.association(c.user),
            _links: { self: { href: url }, html: { href: html }, pull_request: { href: pullUrl } },
            line: c.line,
            original_line: c.line,
            side: 'RIGHT',
            subject_type: 'line'
        };
    }
    jobJson(job) {
        const at = '2026-01-01T00:00:00Z';
        return {
            id: job.id,
            run_id: job.run_id,
            run_url: `${this.repoApi}/actions/runs/${job.run_id}`,
            run_attempt: 1,
            node_id: nodeId('CR', job.id),
            head_sha: job.head_sha,
            url: `${this.repoApi}/actions/jobs/${job.id}`,
            html_url: `${this.repoHtml}/actions/runs/${job.run_id}/job/${job.id}`,
            status: job.status,
            conclusion: job.conclusion,
            created_at: at,
            started_at: at,
            completed_at: at,
            name: job.name,
            steps: job.steps.map((step, i) => ({
                name: step.name,
                status: 'completed',
                conclusion: step.conclusion,
                number: i + 1,
                started_at: at,
                completed_at: at
            })),
            check_run_url: `${this.repoApi}/check-runs/${job.id}`,
            labels: ['ubuntu-latest'],
            runner_id: 1,
            runner_name: 'GitHub Actions 1',
            runner_group_id: 1,
            runner_group_name: 'GitHub Actions',
            workflow_name: 'CI',
            head_branch: job.head_branch
        };
    }
    reactionJson(reaction) {
        return {
            id: reaction.id,
            node_id: nodeId('REA', reaction.id),
            user: this.userJson(reaction.user),
            content: reaction.content,
            created_at: reaction.created_at
        };
    }
    association(login) {
        if (login === this.repo.owner)
            return 'OWNER';
        const role = this.collaborators.get(login);
        return role && role !== 'none' ? 'COLLABORATOR' : 'NONE';
    }
}
// The hypermedia URLs GitHub puts on every user and repository; clients rarely read them, but
// GitHub's schema requires them.
const USER_LINKS = {
    events_url: '/events{/privacy}',
    followers_url: '/followers',
    following_url: '/following{/other_user}',
    gists_url: '/gists{/gist_id}',
    organizations_url: '/orgs',
    received_events_url: '/received_events',
    repos_url: '/repos',
    starred_url: '/starred{/owner}{/repo}',
    subscriptions_url: '/subscriptions'
};
const REPO_LINKS = Object.fromEntries(Object.entries({
    archive: '/{archive_format}{/ref}',
    assignees: '/assignees{/user}',
    blobs: '/git/blobs{/sha}',
    branches: '/branches{/branch}',
    collaborators: '/collaborators{/collaborator}',
    comments: '/comments{/number}',
    commits: '/commits{/sha}',
    compare: '/compare/{base}...{head}',
    contents: '/contents/{+path}',
    contributors: '/contributors',
    deployments: '/deployments',
    downloads: '/downloads',
    events: '/events',
    forks: '/forks',
    git_commits: '/git/commits{/sha}',
    git_refs: '/git/refs{/sha}',
    git_tags: '/git/tags{/sha}',
    hooks: '/hooks',
    issue_comment: '/issues/comments{/number}',
    issue_events: '/issues/events{/number}',
    issues: '/issues{/number}',
    keys: '/keys{/key_id}',
    labels: '/labels{/name}',
    languages: '/languages',
    merges: '/merges',
    milestones: '/milestones{/number}',
    notifications: '/notifications{?since,all,participating}',
    pulls: '/pulls{/number}',
    releases: '/releases{/id}',
    stargazers: '/stargazers',
    statuses: '/statuses/{sha}',
    subscribers: '/subscribers',
    subscription: '/subscription',
    tags: '/tags',
    teams: '/teams',
    trees: '/git/trees{/sha}'
}).map(([name, suffix]) => [`${name}_url`, suffix]));
const urlTemplates = (base, links) => Object.fromEntries(Object.entries(links).map(([key, suffix]) => [key, base + suffix]));
const nodeId = (kind, id) => Buffer.from(`${kind}_${id}`).toString('base64');

;// CONCATENATED MODULE: ./src/demo/github-routes.ts
// The REST routes the mock answers from its state. Request shapes are already checked against
// GitHub's OpenAPI description by Prism; these handlers add what a schema cannot: state, 404s for
// things that do not exist, and GitHub's own 422s.

const DOCS = 'https://docs.github.com/rest';
const notFound = () => ({
    status: 404,
    body: { message: 'Not Found', documentation_url: DOCS, status: '404' }
});
const validationFailed = (errors) => ({
    status: 422,
    body: { message: 'Validation Failed', errors, documentation_url: DOCS, status: '422' }
});
const record = (body) => body && typeof body === 'object' && !Array.isArray(body) ? body : {};
const github_routes_text = (value) => typeof value === 'string' ? value : typeof value === 'number' ? String(value) : '';
const strings = (value) => Array.isArray(value) ? value.map(v => (typeof v === 'string' ? v : github_routes_text(record(v).name))) : [];
/** One page of `items`, with the Link header GitHub sends (per_page defaults to 30, max 100). */
function page(req, items, render) {
    const perPage = Math.min(Number(req.query.get('per_page') ?? 30) || 30, 100);
    const current = Math.max(Number(req.query.get('page') ?? 1) || 1, 1);
    const last = Math.max(Math.ceil(items.length / perPage), 1);
    const link = (n, rel) => {
        const url = new URL(req.url);
        url.searchParams.set('per_page', String(perPage));
        url.searchParams.set('page', String(n));
        return `<${url.href}>; rel="${rel}"`;
    };
    const links = [
        ...(current > 1 ? [link(current - 1, 'prev')] : []),
        ...(current < last ? [link(current + 1, 'next'), link(last, 'last')] : []),
        ...(current > 1 ? [link(1, 'first')] : [])
    ];
    return {
        status: 200,
        body: items.slice((current - 1) * perPage, current * perPage).map(render),
        ...(links.length > 0 && { headers: { link: links.join(', ') } })
    };
}
function order(items, query) {
    const key = query.get('sort') === 'updated' ? 'updated_at' : 'created_at';
    const sign = query.get('direction') === 'asc' ? 1 : -1;
    return [...items].sort((a, b) => sign * (a[key].localeCompare(b[key]) || a.number - b.number));
}
const stateFilter = (query) => {
    const wanted = query.get('state') ?? 'open';
    return (i) => wanted === 'all' || i.state === wanted;
};
const setState = (issue, state, reason) => {
    if (state !== 'open' && state !== 'closed')
        return;
    if (state !== issue.state)
        issue.closed_at = state === 'closed' ? now() : null;
    issue.state = state;
    issue.state_reason =
        state === 'closed'
            ? typeof reason === 'string'
                ? reason
                : 'completed'
            : issue.pull
                ? null
                : 'reopened';
};
// ---- pulls ----
function duplicateOpenPull(s, head, base, except) {
    return s.pulls.find(p => p.state === 'open' && p.pull.head === head && p.pull.base === base && p.number !== except);
}
const pullExists = (s, head) => validationFailed([
    {
        resource: 'PullRequest',
        code: 'custom',
        message: `A pull request already exists for ${s.repo.owner}:${head}.`
    }
]);
const listPulls = (s, req) => {
    const head = req.query.get('head');
    const base = req.query.get('base');
    const matches = (p) => {
        // GitHub ignores a head filter without the owner prefix: the cause of many duplicate PRs.
        if (head?.includes(':')) {
            const [owner, branch] = head.split(/:(.*)/s);
            if (owner?.toLowerCase() !== s.repo.owner.toLowerCase() || p.pull.head !== branch)
                return false;
        }
        return base === null || p.pull.base === base;
    };
    const pulls = order(s.pulls.filter(stateFilter(req.query)).filter(matches), req.query);
    return page(req, pulls, p => s.pullJson(p));
};
const createPull = (s, req) => {
    const body = record(req.body);
    const head = github_routes_text(body.head).replace(new RegExp(`^${s.repo.owner}:`, 'i'), '');
    const base = github_routes_text(body.base);
    if (head === base)
        return validationFailed([
            { resource: 'PullRequest', code: 'custom', message: `No commits between ${base} and ${head}` }
        ]);
    if (duplicateOpenPull(s, head, base))
        return pullExists(s, head);
    const pr = s.addPull({
        head,
        base,
        title: github_routes_text(body.title) || head,
        user: req.caller,
        draft: body.draft === true,
        ...(typeof body.body === 'string' && { body: body.body })
    });
    pr.pull.maintainer_can_modify = body.maintainer_can_modify === true;
    return { status: 201, body: s.pullJson(pr) };
};
const getPull = (s, _req, [n]) => {
    const pr = s.pullByNumber(Number(n));
    return pr ? { status: 200, body: s.pullJson(pr) } : notFound();
};
const updatePull = (s, req, [n]) => {
    const pr = s.pullByNumber(Number(n));
    if (!pr)
        return notFound();
    const body = record(req.body);
    const base = typeof body.base === 'string' ? body.base : pr.pull.base;
    const reopening = body.state === 'open' && pr.state === 'closed';
    if ((reopening || base !== pr.pull.base) && duplicateOpenPull(s, pr.pull.head, base, pr.number))
        return pullExists(s, pr.pull.head);
    if (typeof body.title === 'string')
        pr.title = body.title;
    if (typeof body.body === 'string')
        pr.body = body.body;
    if (typeof body.maintainer_can_modify === 'boolean')
        pr.pull.maintainer_can_modify = body.maintainer_can_modify;
    pr.pull.base = base;
    setState(pr, body.state);
    pr.updated_at = now();
    return { status: 200, body: s.pullJson(pr) };
};
const requestReviewers = (s, req, [n]) => {
    const pr = s.pullByNumber(Number(n));
    if (!pr)
        return notFound();
    const reviewers = strings(record(req.body).reviewers);
    if (reviewers.includes(pr.user))
        return validationFailed([
            {
                resource: 'PullRequest',
                code: 'custom',
                message: 'Review cannot be requested from pull request author.'
            }
        ]);
    const outsider = reviewers.find(r => (s.collaborators.get(r) ?? 'none') === 'none');
    if (outsider !== undefined)
        return validationFailed([
            {
                resource: 'PullRequest',
                code: 'custom',
                message: `Reviews may only be requested from collaborators. One or more of the users or teams you specified is not a collaborator of the ${s.repo.owner}/${s.repo.repo} repository.`
            }
        ]);
    for (const r of reviewers)
        if (!pr.pull.requested_reviewers.includes(r))
            pr.pull.requested_reviewers.push(r);
    return { status: 201, body: s.pullJson(pr) };
};
// ---- issues ----
const listIssues = (s, req) => {
    const wanted = (req.query.get('labels') ?? '')
        .split(',')
        .map(l => l.trim().toLowerCase())
        .filter(Boolean);
    const creator = req.query.get('creator');
    const since = req.query.get('since');
    const issues = s.issues
        .filter(stateFilter(req.query))
        .filter(i => wanted.every(w => i.labels.some(l => l.toLowerCase() === w)))
        .filter(i => creator === null || i.user === creator)
        .filter(i => since === null || i.updated_at >= since);
    // Like GitHub, pull requests are listed too (they carry `pull_request`).
    return page(req, order(issues, req.query), i => s.issueJson(i));
};
const withIssue = (then) => (s, req, [n, ...rest]) => {
    const issue = s.issue(Number(n));
    return issue ? then(s, req, issue, rest) : notFound();
};
const updateIssue = withIssue((s, req, issue) => {
    const body = record(req.body);
    if (typeof body.title === 'string')
        issue.title = body.title;
    if (typeof body.body === 'string' || body.body === null)
        issue.body = body.body;
    if (Array.isArray(body.labels))
        issue.labels = strings(body.labels).map(l => s.ensureLabel(l).name);
    if (Array.isArray(body.assignees))
        issue.assignees = assignable(s, strings(body.assignees));
    setState(issue, body.state, body.state_reason);
    issue.updated_at = now();
    return { status: 200, body: s.issueJson(issue) };
});
const assignable = (s, logins) => logins.filter(l => (s.collaborators.get(l) ?? 'none') !== 'none');
const addAssignees = withIssue((s, req, issue) => {
    for (const login of assignable(s, strings(record(req.body).assignees)))
        if (!issue.assignees.includes(login))
            issue.assignees.push(login);
    return { status: 201, body: s.issueJson(issue) };
});
const addLabels = withIssue((s, req, issue) => {
    const names = Array.isArray(req.body) ? strings(req.body) : strings(record(req.body).labels);
    for (const name of names) {
        const label = s.ensureLabel(name);
        if (!issue.labels.some(l => l.toLowerCase() === label.name.toLowerCase())) {
            issue.labels.push(label.name);
            s.labelEvent(issue.number, 'labeled', label.name, req.caller);
        }
    }
    return { status: 200, body: issue.labels.map(l => s.labelJson(s.ensureLabel(l))) };
});
const removeLabel = withIssue((s, req, issue, [encoded]) => {
    const name = decodeURIComponent(encoded ?? '').toLowerCase();
    const at = issue.labels.findIndex(l => l.toLowerCase() === name);
    if (at < 0)
        return {
            status: 404,
            body: { message: 'Label does not exist', documentation_url: DOCS, status: '404' }
        };
    const [removed] = issue.labels.splice(at, 1);
    if (removed)
        s.labelEvent(issue.number, 'unlabeled', removed, req.caller);
    return { status: 200, body: issue.labels.map(l => s.labelJson(s.ensureLabel(l))) };
});
// ---- comments and reactions ----
const listComments = withIssue((s, req, issue) => {
    const since = req.query.get('since');
    const comments = s.comments.filter(c => c.issue_number === issue.number && (since === null || c.updated_at >= since));
    return page(req, comments, c => s.commentJson(c));
});
const createComment = withIssue((s, req, issue) => {
    const comment = s.addComment(issue.number, github_routes_text(record(req.body).body), req.caller);
    return { status: 201, body: s.commentJson(comment) };
});
const updateComment = (s, req, [id]) => {
    const comment = s.comment(Number(id));
    if (!comment)
        return notFound();
    comment.body = github_routes_text(record(req.body).body);
    comment.updated_at = now();
    return { status: 200, body: s.commentJson(comment) };
};
const createReaction = (s, req, [id]) => {
    const comment = s.comment(Number(id));
    if (!comment)
        return notFound();
    const content = github_routes_text(record(req.body).content);
    const existing = s.reactions.find(r => r.comment_id === comment.id && r.user === req.caller && r.content === content);
    if (existing)
        return { status: 200, body: s.reactionJson(existing) };
    const reaction = {
        id: s.id(),
        comment_id: comment.id,
        content,
        user: req.caller,
        created_at: now()
    };
    s.reactions.push(reaction);
    return { status: 201, body: s.reactionJson(reaction) };
};
// ---- review comments (inline, in threads) ----
const withPull = (then) => (s, req, [n, ...rest]) => {
    const pr = s.pullByNumber(Number(n));
    return pr ? then(s, req, pr, rest) : notFound();
};
const listReviewComments = withPull((s, req, pr) => page(req, s.reviewComments.filter(c => c.pull_number === pr.number), c => s.reviewCommentJson(c)));
const listCommentsOfReview = withPull((s, req, pr, [review]) => page(req, s.reviewComments.filter(c => c.pull_number === pr.number && c.review_id === Number(review)), c => s.reviewCommentJson(c)));
/** GitHub takes replies only to a thread's first comment ("Replies to replies are not supported"). */
const replyToReviewComment = withPull((s, req, pr, [id]) => {
    const target = s.reviewComment(Number(id));
    if (!target || target.pull_number !== pr.number)
        return notFound();
    if (target.in_reply_to_id !== undefined)
        return validationFailed([
            { resource: 'PullRequestReviewComment', code: 'custom', field: 'in_reply_to_id' }
        ]);
    const [reply] = s.addReviewComments(pr.number, req.caller, [
        {
            path: target.path,
            line: target.line ?? 1,
            body: github_routes_text(record(req.body).body),
            diff_hunk: target.diff_hunk,
            in_reply_to_id: target.id
        }
    ], null);
    return { status: 201, body: reply && s.reviewCommentJson(reply) };
});
const reactToReviewComment = (s, req, [id]) => {
    const comment = s.reviewComment(Number(id));
    if (!comment)
        return notFound();
    const reaction = {
        id: s.id(),
        comment_id: comment.id,
        content: github_routes_text(record(req.body).content),
        user: req.caller,
        created_at: now()
    };
    s.reactions.push(reaction);
    return { status: 201, body: s.reactionJson(reaction) };
};
// ---- workflow runs: jobs and their logs ----
const listJobs = (s, req, [id]) => {
    if (!s.runs.has(Number(id)))
        return notFound();
    const jobs = s.jobs.filter(j => j.run_id === Number(id));
    const one = page(req, jobs, j => s.jobJson(j));
    return { ...one, body: { total_count: jobs.length, jobs: one.body } };
};
/** As GitHub: a 302 to the log text on another (unauthenticated, signed) URL. */
const jobLogs = (s, _req, [id]) => {
    const job = s.jobs.find(j => j.id === Number(id));
    if (!job)
        return notFound();
    return { status: 302, headers: { location: `${s.repo.apiUrl}${JOB_LOG_PATH}${job.id}` } };
};
/** Where the mock serves a job's log text, outside the API (see github-mock.ts). */
const JOB_LOG_PATH = '/_blob/job-logs/';
// ---- repository, labels, permissions ----
/** GitHub's legacy `permission` field folds the finer roles into admin/write/read/none. */
const LEGACY_PERMISSION = {
    admin: 'admin',
    maintain: 'write',
    write: 'write',
    triage: 'read',
    read: 'read',
    none: 'none'
};
const permission = (s, _req, [encoded]) => {
    const login = decodeURIComponent(encoded ?? '');
    const role = s.collaborators.get(login) ?? 'none';
    return {
        status: 200,
        body: {
            permission: LEGACY_PERMISSION[role],
            role_name: role,
            user: { ...s.userJson(login), role_name: role }
        }
    };
};
const createLabel = (s, req) => {
    const body = record(req.body);
    const name = github_routes_text(body.name);
    if (s.label(name))
        return validationFailed([{ resource: 'Label', code: 'already_exists', field: 'name' }]);
    const color = typeof body.color === 'string' ? body.color.replace(/^#/, '') : 'ededed';
    const description = typeof body.description === 'string' ? body.description : null;
    return { status: 201, body: s.labelJson(s.ensureLabel(name, color, description)) };
};
const getLabel = (s, _req, [encoded]) => {
    const label = s.label(decodeURIComponent(encoded ?? ''));
    return label ? { status: 200, body: s.labelJson(label) } : notFound();
};
const listEvents = withIssue((s, req, issue) => page(req, s.events.filter(e => e.issue_number === issue.number), e => s.eventJson(e)));
const getRun = (s, _req, [id]) => {
    const run = s.runs.get(Number(id));
    return run ? { status: 200, body: s.runJson(run) } : notFound();
};
/** GET /user: an installation token (GITHUB_TOKEN, an app's) is not a user and gets 403. */
function authenticatedUser(s, req) {
    if (req.caller.endsWith('[bot]'))
        return {
            status: 403,
            body: {
                message: 'Resource not accessible by integration',
                documentation_url: `${DOCS}/users/users#get-the-authenticated-user`,
                status: '403'
            }
        };
    return { status: 200, body: s.userJson(req.caller) };
}
const ROUTES = [
    ['GET', /^$/, s => ({ status: 200, body: s.repoJson() })],
    ['GET', /^\/pulls$/, listPulls],
    ['POST', /^\/pulls$/, createPull],
    ['GET', /^\/pulls\/(\d+)$/, getPull],
    ['PATCH', /^\/pulls\/(\d+)$/, updatePull],
    ['POST', /^\/pulls\/(\d+)\/requested_reviewers$/, requestReviewers],
    ['GET', /^\/issues$/, listIssues],
    ['GET', /^\/issues\/(\d+)$/, withIssue((s, _r, i) => ({ status: 200, body: s.issueJson(i) }))],
    ['PATCH', /^\/issues\/(\d+)$/, updateIssue],
    ['GET', /^\/issues\/(\d+)\/comments$/, listComments],
    ['GET', /^\/issues\/(\d+)\/events$/, listEvents],
    ['GET', /^\/actions\/runs\/(\d+)$/, getRun],
    ['POST', /^\/issues\/(\d+)\/comments$/, createComment],
    ['PATCH', /^\/issues\/comments\/(\d+)$/, updateComment],
    ['POST', /^\/issues\/comments\/(\d+)\/reactions$/, createReaction],
    ['POST', /^\/issues\/(\d+)\/labels$/, addLabels],
    ['DELETE', /^\/issues\/(\d+)\/labels\/([^/]+)$/, removeLabel],
    ['POST', /^\/issues\/(\d+)\/assignees$/, addAssignees],
    ['GET', /^\/pulls\/(\d+)\/comments$/, listReviewComments],
    ['GET', /^\/pulls\/(\d+)\/reviews\/(\d+)\/comments$/, listCommentsOfReview],
    ['POST', /^\/pulls\/(\d+)\/comments\/(\d+)\/replies$/, replyToReviewComment],
    ['POST', /^\/pulls\/comments\/(\d+)\/reactions$/, reactToReviewComment],
    ['GET', /^\/actions\/runs\/(\d+)\/jobs$/, listJobs],
    ['GET', /^\/actions\/jobs\/(\d+)\/logs$/, jobLogs],
    ['GET', /^\/collaborators\/([^/]+)\/permission$/, permission],
    ['GET', /^\/labels$/, (s, req) => page(req, s.labels, l => s.labelJson(l))],
    ['POST', /^\/labels$/, createLabel],
    ['GET', /^\/labels\/([^/]+)$/, getLabel]
];
/** The state's answer, or undefined when the mock does not model the route (Prism's example then). */
function route(s, req) {
    if (req.method === 'GET' && req.path === '/user')
        return authenticatedUser(s, req);
    const repo = /^\/repos\/([^/]+)\/([^/]+)(\/.*)?$/.exec(req.path);
    if (!repo)
        return undefined;
    const [, owner = '', name = '', rest = ''] = repo;
    for (const [method, pattern, handler] of ROUTES) {
        const match = method === req.method ? pattern.exec(rest) : null;
        if (!match)
            continue;
        const sameRepo = decodeURIComponent(owner).toLowerCase() === s.repo.owner.toLowerCase() &&
            decodeURIComponent(name).toLowerCase() === s.repo.repo.toLowerCase();
        return sameRepo ? handler(s, req, match.slice(1)) : notFound();
    }
    return undefined;
}

;// CONCATENATED MODULE: ./src/demo/github-mock.ts
// A stateful stand-in for GitHub's REST API on loopback. Every request is first validated by Prism
// against GitHub's official OpenAPI description (trimmed: scripts/trim-github-spec.mjs); a request
// Prism rejects is answered with Prism's verdict and recorded in `invalid`. Valid requests are
// answered from in-memory state (github-state.ts, github-routes.ts), or with Prism's example for a
// valid route the mock does not model.





const github_mock_DOCS = 'https://docs.github.com/rest';
async function startGitHubMock(opts) {
    const prism = await acquirePrism();
    const firstUse = !started.has(prism);
    started.add(prism);
    // No request arrives before listen() resolves, so ctx is set by the time handle() reads it.
    const { server, url } = await listen((req, res) => github_mock_handle(ctx, req, res));
    const ctx = {
        opts,
        prism,
        state: seededState(opts, url),
        caller: opts.tokenUser ?? TOKEN_USER,
        requests: [],
        invalid: [],
        faults: []
    };
    const { state } = ctx;
    return {
        url,
        state,
        requests: ctx.requests,
        invalid: ctx.invalid,
        prismStartupMs: firstUse ? prism.startupMs : 0,
        fail: rule => void ctx.faults.push({ ...rule, left: rule.times ?? 1 }),
        addIssue: seed => state.addIssue(seed),
        addPull: seed => state.addPull(seed),
        addComment: (n, text, user) => state.addComment(n, text, user),
        close: async () => {
            server.closeAllConnections();
            await new Promise(resolve => server.close(() => resolve()));
            releasePrism();
        }
    };
}
/** A loopback server on a free port; a handler that throws answers 500 with its error. */
async function listen(handler) {
    const server = (0,external_node_http_.createServer)((req, res) => {
        handler(req, res).catch((error) => {
            res.writeHead(500, { 'content-type': 'application/json' });
            res.end(JSON.stringify({ message: `mock error: ${String(error)}` }));
        });
    });
    await new Promise(resolve => server.listen(0, '127.0.0.1', resolve));
    return { server, url: `http://127.0.0.1:${server.address().port}` };
}
function seededState(opts, url) {
    const state = new GitHubState({
        owner: opts.owner,
        repo: opts.repo,
        defaultBranch: opts.defaultBranch ?? 'main',
        apiUrl: url,
        serverUrl: opts.serverUrl ?? 'https://github.com'
    });
    for (const [login, role] of Object.entries(opts.collaborators ?? {}))
        state.collaborators.set(login, role);
    for (const seed of opts.issues ?? [])
        state.addIssue(seed);
    return state;
}
/** Answers one request and records it. */
async function github_mock_handle(ctx, req, res) {
    const raw = await readBody(req);
    const target = new URL(req.url ?? '/', ctx.state.repo.apiUrl);
    const method = (req.method ?? 'GET').toUpperCase();
    const body = parseJson(raw);
    const reply = await github_mock_answer(ctx, { req, method, target, raw, body });
    ctx.requests.push({
        method,
        path: target.pathname,
        query: Object.fromEntries(target.searchParams),
        status: reply.status,
        body
    });
    github_mock_send(res, reply);
}
/** In order: a job's log, the token check, an injected fault, Prism's verdict, the state. */
async function github_mock_answer(ctx, incoming) {
    const { req, method, target, raw, body } = incoming;
    // A job's log, behind the redirect of GET .../actions/jobs/{id}/logs: storage, not the API.
    if (method === 'GET' && target.pathname.startsWith(JOB_LOG_PATH))
        return jobLog(ctx.state, target.pathname);
    if (ctx.opts.token !== undefined && !authorised(req.headers.authorization, ctx.opts.token))
        return {
            status: 401,
            body: { message: 'Bad credentials', documentation_url: github_mock_DOCS, status: '401' }
        };
    const fault = takeFault(ctx.faults, method, target.pathname);
    if (fault)
        return fault;
    const verdict = await ctx.prism.forward(method, target.pathname + target.search, prismHeaders(req), raw);
    // Prism answers a valid request with a 2xx example; anything else is its rejection.
    if (verdict.status >= 400) {
        const problem = violations(verdict);
        ctx.invalid.push({ method, path: target.pathname, status: verdict.status, problem });
        return { status: verdict.status, body: rejection(problem) };
    }
    const modelled = route(ctx.state, {
        method,
        path: target.pathname,
        query: target.searchParams,
        body,
        caller: ctx.caller,
        url: target
    });
    return modelled ?? { status: verdict.status, body: parseJson(verdict.body) };
}
function jobLog(state, pathname) {
    const job = state.jobs.find(j => j.id === Number(pathname.slice(JOB_LOG_PATH.length)));
    return job ? { status: 200, text: job.log } : { status: 404, text: 'BlobNotFound' };
}
/** The first injected fault that matches, used once more; undefined when none does. */
function takeFault(faults, method, pathname) {
    const fault = faults.find(f => f.left > 0 && sameMethod(f.method, method) && f.path.test(pathname));
    if (!fault)
        return undefined;
    fault.left--;
    return {
        status: fault.status,
        body: fault.body ?? { message: `injected ${fault.status}`, documentation_url: github_mock_DOCS },
        ...(fault.headers && { headers: fault.headers })
    };
}
const started = new WeakSet();
const sameMethod = (rule, method) => rule === '*' || rule.toUpperCase() === method;
function authorised(header, token) {
    const match = /^(?:token|bearer)\s+(\S+)$/i.exec(header ?? '');
    return match?.[1] === token;
}
/** Prism answers 406 to GitHub's vendor media types, which Octokit always sends. */
function prismHeaders(req) {
    const headers = {};
    for (const [name, value] of Object.entries(req.headers)) {
        if (value === undefined || name === 'host' || name === 'connection')
            continue;
        headers[name] = Array.isArray(value) ? value.join(', ') : value;
    }
    if (/vnd\.github/i.test(headers.accept ?? ''))
        headers.accept = 'application/json';
    return headers;
}
function violations(verdict) {
    const header = verdict.headers['sl-violations'];
    if (typeof header === 'string') {
        const all = parseJson(Buffer.from(header));
        const onRequest = all?.filter(v => v.location?.[0] === 'request');
        if (onRequest && onRequest.length > 0)
            return onRequest;
    }
    return parseJson(verdict.body);
}
/** A GitHub-shaped error body that says why, so Octokit's error message names the violation. */
function rejection(problem) {
    const list = Array.isArray(problem) ? problem : undefined;
    const detail = list
        ? list.map(v => v.message).join('; ')
        : (problem?.detail ?? 'invalid request');
    return {
        message: `Request does not match GitHub's OpenAPI description: ${detail}`,
        documentation_url: github_mock_DOCS,
        ...(list && { errors: list })
    };
}
function github_mock_send(res, reply) {
    if (reply.text !== undefined) {
        res.writeHead(reply.status, { 'content-type': 'text/plain; charset=utf-8' });
        res.end(reply.text);
        return;
    }
    const payload = reply.body === undefined ? '' : JSON.stringify(reply.body);
    const reset = Math.floor(Date.now() / 1000) + 3600;
    res.writeHead(reply.status, {
        'content-type': 'application/json; charset=utf-8',
        'x-github-media-type': 'github.v3; format=json',
        'x-ratelimit-limit': '5000',
        'x-ratelimit-remaining': '4999',
        'x-ratelimit-reset': String(reset),
        'x-ratelimit-resource': 'core',
        ...reply.headers
    });
    res.end(payload);
}
function readBody(req) {
    return new Promise((resolve, reject) => {
        const chunks = [];
        req.on('data', (c) => chunks.push(c));
        req.on('end', () => resolve(Buffer.concat(chunks)));
        req.on('error', reject);
    });
}
function parseJson(raw) {
    if (raw.length === 0)
        return undefined;
    try {
        return JSON.parse(raw.toString('utf8'));
    }
    catch {
        return raw.toString('utf8');
    }
}

// EXTERNAL MODULE: ./src/process.ts
var src_process = __webpack_require__(34006);
;// CONCATENATED MODULE: ./src/demo/sandbox.ts
/**
 * Whether this machine can make the sandbox's namespaces (bubblewrap and socat installed, user
 * namespaces allowed). Where it cannot, the e2e stack runs its scenarios in isolation: process and
 * says why once, and the tests about the sandbox itself skip with that reason (docs/sandbox.md).
 */



let cached;
function probe(file, args) {
    return (0,src_process/* run */.eF)(file, args, { timeoutMs: 20_000 });
}
async function check() {
    if (process.platform !== 'linux')
        return { ok: false, reason: `${process.platform} is not Linux` };
    const socat = await probe('socat', ['-V']);
    if (socat.exitCode !== 0)
        return { ok: false, reason: 'socat is not installed' };
    const bwrap = await probe('bwrap', [
        '--unshare-user',
        '--unshare-pid',
        '--unshare-net',
        '--ro-bind',
        '/usr',
        '/usr',
        '--symlink',
        'usr/bin',
        '/bin',
        '--symlink',
        'usr/lib',
        '/lib',
        '--symlink',
        'usr/lib64',
        '/lib64',
        '--proc',
        '/proc',
        '--',
        '/usr/bin/true'
    ]);
    if (bwrap.exitCode === 127)
        return { ok: false, reason: 'bubblewrap (bwrap) is not installed' };
    if (bwrap.exitCode !== 0)
        return {
            ok: false,
            reason: `the kernel refuses bubblewrap's namespaces here (${bwrap.stderr.trim() || `exit ${bwrap.exitCode}`})`
        };
    return { ok: true };
}
function sandboxSupport() {
    cached ??= check();
    return cached;
}
/** Gives `dir` and everything in it to `user` (symlinks themselves, never what they point at). */
async function chownTree(dir, user) {
    await (0,src_process/* runOk */.uO)('chown', ['-R', '-h', `${user.uid}:${user.gid}`, '--', dir]);
}
/**
 * Lets another user reach `files` (the action's dist/, node, claude): adds traverse (o+x, never
 * read) to each ancestor directory that lacks it, as a checkout in a private dir (mktemp -d, a
 * root's home) has. Returns how to put the modes back.
 */
async function openPathsFor(files) {
    const changed = new Map();
    for (const file of files) {
        for (let dir = path.dirname(await realpath(file)); dir !== path.dirname(dir); dir = path.dirname(dir)) {
            if (changed.has(dir))
                continue;
            const mode = (await stat(dir)).mode & 0o7777;
            if ((mode & 0o001) !== 0)
                continue;
            await chmod(dir, mode | 0o001);
            changed.set(dir, mode);
        }
    }
    return async () => {
        for (const [dir, mode] of changed)
            await chmod(dir, mode).catch(() => undefined);
    };
}

;// CONCATENATED MODULE: ./src/demo/run-action.ts
// Runs the built action the way the Actions runner does: node on dist/index.js, no shell (dash
// drops variables with hyphens, such as INPUT_API-KEY), a clean environment, and the runner's
// file commands under RUNNER_TEMP.






/** The action's entry point, as action.yml's `runs.main` names it. */
const ACTION_ENTRY = (0,external_node_path_.resolve)(import.meta.dirname, '../../dist/index.js');
/** How @actions/core names an input's variable: spaces become '_', hyphens stay. */
function inputEnvName(name) {
    return `INPUT_${name.replace(/ /g, '_').toUpperCase()}`;
}
/**
 * Parses a file-command file (GITHUB_OUTPUT, GITHUB_ENV, GITHUB_STATE) by the runner's rules:
 * `name=value` when '=' comes before any '<<', otherwise `name<<DELIMITER` then lines up to a line
 * that is exactly DELIMITER. Blank lines are skipped; a later value replaces an earlier one.
 * Malformed content throws, as the runner fails the step on it.
 */
function parseFileCommand(content) {
    const result = {};
    const lines = content.split(/\r?\n/);
    for (let i = 0; i < lines.length; i++) {
        const line = lines[i] ?? '';
        if (line === '')
            continue;
        const equals = line.indexOf('=');
        const heredoc = line.indexOf('<<');
        if (equals >= 0 && (heredoc < 0 || equals < heredoc)) {
            const name = line.slice(0, equals);
            if (!name)
                throw new Error(`Invalid file command line ${i + 1}: empty name`);
            result[name] = line.slice(equals + 1);
            continue;
        }
        if (heredoc <= 0)
            throw new Error(`Invalid file command line ${i + 1}: '${line}'`);
        const name = line.slice(0, heredoc);
        const delimiter = line.slice(heredoc + 2);
        if (!delimiter)
            throw new Error(`Invalid file command line ${i + 1}: empty delimiter`);
        const end = lines.indexOf(delimiter, i + 1);
        if (end < 0)
            throw new Error(`Invalid file command for '${name}': no closing '${delimiter}'`);
        result[name] = lines.slice(i + 1, end).join('\n');
        i = end;
    }
    return result;
}
async function gitHead(workspace) {
    const git = async (args) => {
        const r = await (0,src_process/* run */.eF)('git', args, {
            cwd: workspace,
            env: { PATH: process.env.PATH, GIT_CONFIG_NOSYSTEM: '1', HOME: workspace }
        });
        return r.exitCode === 0 ? r.stdout.trim() : undefined;
    };
    const [sha, ref] = await Promise.all([
        git(['rev-parse', 'HEAD']),
        git(['symbolic-ref', '-q', 'HEAD'])
    ]);
    return { ...(sha ? { sha } : {}), ...(ref ? { ref } : {}) };
}
function senderOf(payload) {
    const sender = payload.sender;
    return typeof sender?.login === 'string' ? sender.login : undefined;
}
/** RUNNER_TEMP as the runner lays it out: the event file and the file-command files. */
async function runnerTemp(opts) {
    const dir = await (0,external_node_fs_promises_.mkdtemp)((0,external_node_path_.join)((0,external_node_os_.tmpdir)(), 'fleet-runner-temp-'));
    const commands = (0,external_node_path_.join)(dir, '_runner_file_commands');
    const workflowDir = (0,external_node_path_.join)(dir, '_github_workflow');
    await (0,external_node_fs_promises_.mkdir)(commands);
    await (0,external_node_fs_promises_.mkdir)(workflowDir);
    const eventPath = (0,external_node_path_.join)(workflowDir, 'event.json');
    await (0,external_node_fs_promises_.writeFile)(eventPath, JSON.stringify(opts.payload, null, 2));
    const files = {
        GITHUB_OUTPUT: (0,external_node_path_.join)(commands, 'set_output'),
        GITHUB_STEP_SUMMARY: (0,external_node_path_.join)(commands, 'step_summary'),
        GITHUB_ENV: (0,external_node_path_.join)(commands, 'set_env'),
        GITHUB_PATH: (0,external_node_path_.join)(commands, 'add_path'),
        GITHUB_STATE: (0,external_node_path_.join)(commands, 'save_state')
    };
    for (const file of Object.values(files))
        await (0,external_node_fs_promises_.writeFile)(file, '');
    if (opts.user)
        await chownTree(dir, opts.user);
    return { dir, eventPath, files };
}
/** The step's environment: the runner's variables, the inputs, then the caller's overrides. */
async function runnerEnv(opts, temp) {
    const head = await gitHead(opts.workspace);
    const env = {
        PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
        HOME: process.env.HOME ?? (0,external_node_os_.tmpdir)(),
        CI: 'true',
        GITHUB_ACTIONS: 'true',
        RUNNER_OS: 'Linux',
        RUNNER_ARCH: 'X64',
        RUNNER_TEMP: temp.dir,
        GITHUB_EVENT_NAME: opts.eventName,
        GITHUB_EVENT_PATH: temp.eventPath,
        GITHUB_REPOSITORY: opts.repository,
        GITHUB_REPOSITORY_OWNER: opts.repository.split('/')[0] ?? '',
        GITHUB_WORKSPACE: opts.workspace,
        GITHUB_SERVER_URL: opts.serverUrl,
        GITHUB_API_URL: opts.apiUrl,
        GITHUB_GRAPHQL_URL: `${opts.apiUrl.replace(/\/$/, '')}/graphql`,
        GITHUB_SHA: head.sha ?? '0'.repeat(40),
        GITHUB_REF: head.ref ?? 'refs/heads/main',
        GITHUB_ACTOR: senderOf(opts.payload) ?? 'octocat',
        GITHUB_RUN_ID: String(1_000_000 + Math.floor(Math.random() * 1_000_000)),
        GITHUB_RUN_NUMBER: '1',
        GITHUB_RUN_ATTEMPT: '1',
        GITHUB_WORKFLOW: 'Fleet',
        GITHUB_JOB: 'fleet',
        GITHUB_ACTION: '__run',
        ...temp.files
    };
    for (const [name, value] of Object.entries(opts.inputs))
        env[inputEnvName(name)] = value;
    return Object.assign(env, opts.env);
}
/** node on the entry, in its own process group, with the runner's cancel signal and timeout. */
async function runNode(opts, env) {
    // Its own process group, so a timeout can also reach the workers it started.
    const child = (0,external_node_child_process_.spawn)(process.execPath, [opts.entry ?? ACTION_ENTRY], {
        cwd: opts.workspace,
        env,
        ...(opts.user ?? {}),
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: true
    });
    const stdout = [];
    const stderr = [];
    child.stdout.on('data', (c) => stdout.push(c));
    child.stderr.on('data', (c) => stderr.push(c));
    const killGroup = (signal) => {
        try {
            if (child.pid)
                process.kill(-child.pid, signal);
        }
        catch {
            // The group is already gone.
        }
    };
    const timers = [];
    if (opts.signalAfterMs) {
        const { signal, ms } = opts.signalAfterMs;
        timers.push(setTimeout(() => child.kill(signal), ms));
    }
    timers.push(setTimeout(() => {
        child.kill('SIGTERM');
        timers.push(setTimeout(() => killGroup('SIGKILL'), 5000));
    }, opts.timeoutMs ?? 90_000));
    // Like the runner's orphan clean-up at job end: workers left behind must not outlive the run
    // (they would also hold stdout open, and 'close' would never come).
    child.on('exit', () => killGroup('SIGKILL'));
    const [exitCode, signal] = await new Promise((done, fail) => {
        child.on('error', fail);
        child.on('close', (code, sig) => done([code, sig]));
    });
    for (const timer of timers)
        clearTimeout(timer);
    const text = (chunks) => Buffer.concat(chunks).toString('utf8');
    return { exitCode, signal, stdout: text(stdout), stderr: text(stderr) };
}
async function runAction(opts) {
    const temp = await runnerTemp(opts);
    const env = await runnerEnv(opts, temp);
    const started = performance.now();
    const ran = await runNode(opts, env);
    const durationMs = performance.now() - started;
    return {
        ...ran,
        outputs: parseFileCommand(await (0,external_node_fs_promises_.readFile)(temp.files.GITHUB_OUTPUT, 'utf8')),
        summary: await (0,external_node_fs_promises_.readFile)(temp.files.GITHUB_STEP_SUMMARY, 'utf8'),
        runnerTemp: temp.dir,
        durationMs
    };
}

;// CONCATENATED MODULE: ./src/demo/leaks.ts





/** The secrets of every scenario, and the forms they could leak in. */
function secrets() {
    const header = extraheaderValue(GITHUB_TOKEN);
    return {
        'GitHub token': GITHUB_TOKEN,
        'GitHub token (base64 in basic auth)': Buffer.from(`x-access-token:${GITHUB_TOKEN}`).toString('base64'),
        'checkout extraheader': header,
        'model key': MODEL_KEY
    };
}
async function filesUnder(dir) {
    const entries = await (0,external_node_fs_promises_.readdir)(dir, { withFileTypes: true, recursive: true }).catch(() => []);
    return entries.filter(e => e.isFile()).map(e => external_node_path_default().join(e.parentPath, e.name));
}
/** Everything the outside world got from a run: what a leak would have to pass through. */
async function corpus(stack, run) {
    // `::add-mask::<secret>` is how the action tells the runner what to mask; the runner consumes
    // those lines, so they are the one place a secret is meant to appear.
    const stdout = run.stdout
        .split('\n')
        .filter(line => !line.startsWith('::add-mask::'))
        .join('\n');
    const out = [
        ['stdout', stdout],
        ['stderr', run.stderr],
        ['outputs', JSON.stringify(run.outputs)],
        ['step summary', run.summary],
        ['GitHub API requests', JSON.stringify(stack.github.requests)],
        ['GitHub API state', JSON.stringify(stack.github.state)]
    ];
    // Everything workers sent to the model, tool results included — except the auth headers, which
    // are where the model key belongs.
    for (const r of stack.model.requests)
        out.push([`model request ${r.key ?? ''} step ${r.step}`, JSON.stringify(r.body)]);
    // Transcripts and preserved bundles are what Actions would upload as artifacts.
    for (const file of await filesUnder(external_node_path_default().join(run.runnerTemp, 'fleet-worker'))) {
        if (/\/(transcripts|preserved)\//.test(file) && (await (0,external_node_fs_promises_.stat)(file)).size < 20_000_000) {
            out.push([file, await (0,external_node_fs_promises_.readFile)(file, 'latin1')]);
        }
    }
    // Every pushed commit: messages and content.
    const bare = stack.git.repoPath(`${OWNER}/${REPO}`);
    const { stdout: pushed } = await (0,src_process/* runOk */.uO)('git', ['-C', bare, 'log', '--all', '-p', '--format=%H %an %ae%n%B'], { maxBuffer: 256 * 1024 * 1024 });
    out.push(['pushed commits', pushed]);
    return out;
}
/** Zero hits of any secret anywhere the run's products went. Throws with where it was found. */
async function assertNoLeaks(stack, run) {
    const hits = [];
    const texts = await corpus(stack, run);
    for (const [name, secret] of Object.entries(secrets())) {
        for (const [where, text] of texts)
            if (text.includes(secret))
                hits.push(`${name} found in ${where}`);
    }
    if (hits.length)
        throw new Error(`secrets leaked:\n${hits.join('\n')}`);
}

;// CONCATENATED MODULE: ./src/demo/stack.ts
/**
 * The whole offline world of an end-to-end test: the scripted model server, a git remote that
 * checks the token, the GitHub API mock, and a workspace laid out as actions/checkout leaves it.
 * Every action run goes through `stack.run()`, which ends with the leak scan (src/demo/leaks.ts):
 * a scenario cannot run the action without it.
 */









const GITHUB_TOKEN = 'ghs_FleetE2eToken0123456789abcdef';
const MODEL_KEY = 'sk-fleet-e2e-model-key-0123456789';
const OWNER = 'acme';
const REPO = 'widgets';
let warned = false;
/** The stand-ins: the scripted model, the git remote with the repository, the GitHub mock. */
async function startServices(opts) {
    const model = await startModelServer({ acceptKeys: [MODEL_KEY], ...opts.model });
    const git = await startGitRemote({ token: GITHUB_TOKEN });
    const github = await startGitHubMock({
        owner: OWNER,
        repo: REPO,
        defaultBranch: 'main',
        token: GITHUB_TOKEN,
        ...opts.github
    });
    const cloneUrl = await git.createRepo(`${OWNER}/${REPO}`, {
        files: opts.files ?? {
            'README.md': '# widgets\n',
            'package.json': '{"name":"widgets","private":true}\n'
        }
    });
    const workspace = await makeWorkspace(cloneUrl, GITHUB_TOKEN);
    return { model, git, github, cloneUrl, workspace };
}
/** The sandbox where this machine can make one; else isolation: process, said once. */
async function scenarioIsolation() {
    const support = await sandboxSupport();
    if (!support.ok && !warned) {
        warned = true;
        console.warn(`e2e: no sandbox on this machine (${support.reason}); scenarios run in isolation: process`);
    }
    return support.ok ? 'sandbox' : 'process';
}
async function startStack(opts = {}) {
    const home = await (0,external_node_fs_promises_.mkdtemp)(external_node_path_default().join((0,external_node_os_.tmpdir)(), 'fleet-e2e-home-'));
    const { model, git, github, cloneUrl, workspace } = await startServices(opts);
    const isolation = await scenarioIsolation();
    const fallback = isolation === 'sandbox' ? {} : { isolation: 'process' };
    const runs = [];
    const stack = {
        model,
        git,
        github,
        workspace,
        cloneUrl,
        home,
        isolation,
        async run(r) {
            const result = await runAction({
                inputs: {
                    'github-token': GITHUB_TOKEN,
                    'api-key': MODEL_KEY,
                    'base-url': model.url,
                    'max-parallel': '2',
                    'retry-delay-seconds': '0.2',
                    ...fallback,
                    ...r.inputs
                },
                eventName: r.eventName ?? 'workflow_dispatch',
                payload: r.payload ?? {
                    inputs: {},
                    ref: 'refs/heads/main',
                    repository: { full_name: `${OWNER}/${REPO}` }
                },
                workspace,
                repository: `${OWNER}/${REPO}`,
                serverUrl: git.url.replace(/\/$/, ''),
                apiUrl: github.url,
                env: { ...gitTestEnv(home), ...r.env },
                timeoutMs: r.timeoutMs ?? 120_000,
                signalAfterMs: r.signalAfterMs,
                user: r.user
            });
            runs.push(result);
            await assertNoLeaks(stack, result);
            return result;
        },
        async close() {
            await Promise.allSettled([model.close(), git.close(), github.close()]);
            await (0,external_node_fs_promises_.rm)(home, { recursive: true, force: true });
            await (0,external_node_fs_promises_.rm)(workspace, { recursive: true, force: true });
            for (const r of runs)
                await (0,external_node_fs_promises_.rm)(r.runnerTemp, { recursive: true, force: true });
        }
    };
    return stack;
}
function results(run) {
    const raw = run.outputs.results;
    if (raw === undefined)
        throw new Error(`no results output; stderr: ${run.stderr}\nstdout: ${run.stdout.slice(-3000)}`);
    return JSON.parse(raw);
}
function byId(run) {
    return new Map(results(run).map(r => [r.id, r]));
}

;// CONCATENATED MODULE: ./src/demo/demo.ts
/**
 * `fleet-worker demo`: three tasks through the real action (node dist/index.js) and the real claude
 * CLI, against the test harness's scripted model, git remote and GitHub API mock, all on loopback.
 */


const DEMO_TASKS = [
    {
        id: 'add-contributing',
        title: 'Add CONTRIBUTING.md',
        file: 'CONTRIBUTING.md',
        content: '# Contributing\n\nOpen an issue first.\n'
    },
    {
        id: 'add-editorconfig',
        title: 'Add .editorconfig',
        file: '.editorconfig',
        content: 'root = true\n\n[*]\nindent_style = space\n'
    },
    {
        id: 'document-usage',
        title: 'Document usage',
        file: 'docs/usage.md',
        content: '# Usage\n\nRun `npm start`.\n'
    }
];
async function demo() {
    console.log('Starting the scripted model server, a git remote and the GitHub API mock on loopback...');
    const stack = await startStack();
    try {
        const tasks = DEMO_TASKS.map(t => ({
            id: t.id,
            title: t.title,
            prompt: `${t.title}.\n${script({ key: t.id, delayMs: 300, steps: [{ tool: 'Bash', input: { command: 'ls' } }, { tool: 'Write', input: { file_path: t.file, content: t.content } }, { text: `Added ${t.file}.` }] })}`
        }));
        console.log(`Running ${tasks.length} tasks through node dist/index.js, 2 workers at a time...`);
        const run = await stack.run({ inputs: { tasks: JSON.stringify(tasks), 'max-parallel': '2' } });
        const branches = await stack.git.branches(`${OWNER}/${REPO}`);
        console.log(`\nRemote branches: ${Object.keys(branches).sort().join(', ')}`);
        console.log('Pull requests in the API mock:');
        for (const pr of stack.github.state.pulls)
            console.log(`  #${pr.number} ${pr.pull.head} -> ${pr.pull.base}: ${pr.title}`);
        console.log('\nTasks:');
        for (const r of results(run)) {
            console.log(`  ${r.id.padEnd(18)} ${r.status.padEnd(11)} PR #${r['pr-number'] ?? '-'}  turns ${r.turns}  tokens in ${r.usage.input_tokens} out ${r.usage.output_tokens}  ${(r['duration-ms'] / 1000).toFixed(1)}s`);
        }
        console.log(`\nThe action exited ${run.exitCode}; no secret appeared in any output (leak scan passed).`);
        return run.exitCode ?? 1;
    }
    finally {
        await stack.close();
    }
}


/***/ }),

/***/ 51126:
/***/ ((module, __unused_webpack_exports, __webpack_require__) => {

module.exports = __webpack_require__.p + "74a91275bc3c814dc6d2.json";

/***/ })

};
