export const id = 964;
export const ids = [964];
export const modules = {

/***/ 1964:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {


// EXPORTS
__webpack_require__.d(__webpack_exports__, {
  demo: () => (/* binding */ demo)
});

// EXTERNAL MODULE: external "node:crypto"
var external_node_crypto_ = __webpack_require__(7598);
// EXTERNAL MODULE: external "node:http"
var external_node_http_ = __webpack_require__(7067);
var external_node_http_default = /*#__PURE__*/__webpack_require__.n(external_node_http_);
// EXTERNAL MODULE: external "node:path"
var external_node_path_ = __webpack_require__(6760);
var external_node_path_default = /*#__PURE__*/__webpack_require__.n(external_node_path_);
// EXTERNAL MODULE: external "node:timers/promises"
var promises_ = __webpack_require__(8500);
// EXTERNAL MODULE: ./node_modules/zod/v4/classic/schemas.js + 15 modules
var schemas = __webpack_require__(9691);
;// CONCATENATED MODULE: ./test/support/model-server.ts
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
/** Faults first, in order, then drop, garbage, hang: each phase covers its next n requests. */
function misbehaviourAt(s, ordinal) {
    const count = (r) => r === true ? Infinity : r === false ? 0 : (r ?? 0);
    const phases = [
        ...(s.faults ?? []).map((f) => [
            f.times,
            { kind: 'fault', status: f.status, retryAfter: f.retryAfter }
        ]),
        [count(s.drop), { kind: 'drop' }],
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
// ---- the server --------------------------------------------------------------------------
async function startModelServer(opts = {}) {
    const requests = [];
    const ordinals = new Map();
    const closing = new AbortController();
    let ids = 0;
    function replyFor(s, step, cwd) {
        const usage = usageForStep(step);
        const planned = s.steps[step];
        if (planned && 'tool' in planned) {
            const id = `toolu_fleet_${String(++ids).padStart(6, '0')}`;
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
    async function handle(req, res, raw) {
        const pathname = new URL(req.url ?? '/', 'http://x').pathname;
        const headers = {};
        for (const [k, v] of Object.entries(req.headers)) {
            if (v !== undefined)
                headers[k] = Array.isArray(v) ? v.join(', ') : v;
        }
        if (req.method === 'HEAD' || req.method === 'GET')
            return void res.writeHead(200).end();
        if (pathname !== '/v1/messages' && pathname !== '/v1/messages/count_tokens') {
            return sendError(res, 404, `no route for ${pathname}`);
        }
        let body = {};
        let parseError;
        try {
            body = JSON.parse(raw.toString('utf8'));
        }
        catch (e) {
            parseError = `body is not JSON: ${String(e)}`;
        }
        if (pathname === '/v1/messages/count_tokens') {
            res.writeHead(200, { 'content-type': 'application/json' });
            return void res.end(JSON.stringify({ input_tokens: Math.ceil(raw.length / 4) }));
        }
        const messages = messagesOf(body);
        const first = messages.find(m => m.role === 'user');
        const last = messages.at(-1);
        const resolved = parseError ? { error: parseError } : resolveScript(first, opts);
        const hasTools = Array.isArray(body.tools) && body.tools.length > 0;
        const rec = {
            key: resolved && 'key' in resolved ? resolved.key : undefined,
            step: messages.filter(m => m.role === 'assistant').length,
            model: typeof body.model === 'string' ? body.model : undefined,
            path: req.url ?? '',
            headers,
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
        requests.push(rec);
        const fail = (outcome, status, message, retryAfter) => {
            Object.assign(rec, { outcome, status });
            sendError(res, status, message, retryAfter);
        };
        if (opts.acceptKeys && !opts.acceptKeys.includes(credential(req.headers) ?? '')) {
            return fail('unauthorized', 401, 'invalid x-api-key');
        }
        if (resolved && 'error' in resolved)
            return fail('bad-request', 400, resolved.error);
        const s = resolved?.script;
        await (0,promises_.setTimeout)(s?.delayMs ?? opts.delayMs ?? 0, undefined, { signal: closing.signal });
        // The client gave up while we held the answer (its own timeout): nothing to send.
        if (req.socket.destroyed)
            return;
        let reply;
        if (!s || !resolved || !hasTools) {
            rec.outcome = 'side';
            reply = {
                content: [{ type: 'text', text: 'OK.' }],
                stopReason: 'end_turn',
                usage: SIDE_USAGE
            };
        }
        else {
            const ordinal = ordinals.get(resolved.key) ?? 0;
            ordinals.set(resolved.key, ordinal + 1);
            const bad = misbehaviourAt(s, ordinal);
            if (bad?.kind === 'fault') {
                return fail('fault', bad.status, `scripted ${bad.status} (request ${ordinal + 1})`, bad.retryAfter);
            }
            if (bad?.kind === 'hang')
                return void (rec.outcome = 'hang');
            if (bad?.kind === 'garbage') {
                Object.assign(rec, { outcome: 'garbage', status: 200 });
                res.writeHead(200, { 'content-type': 'text/html' });
                return void res.end('<html><body>502 Bad Gateway (not really)</body></html>\n');
            }
            if (bad?.kind === 'drop') {
                // The CLI counts a dropped stream's message_start usage in its totals: record it too.
                const head = messageHead(`msg_drop_${++ids}`, rec.model, usageForStep(rec.step));
                Object.assign(rec, { outcome: 'drop', status: 200, usage: head.usage });
                res.writeHead(200, { 'content-type': 'text/event-stream' });
                sse(res, 'message_start', { message: head });
                // Cut only after the client has surely parsed message_start: cutting in the same tick
                // made the CLI count the partial usage in some runs and not in others.
                sse(res, 'content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
                sse(res, 'content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'Wor' } });
                await (0,promises_.setTimeout)(DROP_AFTER_MS, undefined, { signal: closing.signal });
                return void req.socket.destroy();
            }
            reply = replyFor(s, rec.step, rec.cwd);
        }
        Object.assign(rec, { status: 200, usage: reply.usage });
        const id = `msg_fleet_${String(++ids).padStart(6, '0')}`;
        if (rec.stream)
            streamReply(res, id, rec.model, reply);
        else
            jsonReply(res, id, rec.model, reply);
    }
    const server = external_node_http_default().createServer((req, res) => {
        const chunks = [];
        req.on('data', (c) => chunks.push(c));
        req.on('end', () => {
            handle(req, res, Buffer.concat(chunks)).catch((e) => {
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
        close,
        [Symbol.asyncDispose]: close
    };
}

// EXTERNAL MODULE: external "node:fs/promises"
var external_node_fs_promises_ = __webpack_require__(1455);
// EXTERNAL MODULE: external "node:os"
var external_node_os_ = __webpack_require__(8161);
// EXTERNAL MODULE: external "node:child_process"
var external_node_child_process_ = __webpack_require__(1421);
// EXTERNAL MODULE: external "node:fs"
var external_node_fs_ = __webpack_require__(3024);
;// CONCATENATED MODULE: ./test/support/git-remote.ts
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
async function startGitRemote(opts) {
    const base = await (0,external_node_fs_promises_.mkdtemp)((0,external_node_path_.join)((0,external_node_os_.tmpdir)(), 'fleet-git-remote-'));
    const root = (0,external_node_path_.join)(base, 'repos');
    await (0,external_node_fs_promises_.mkdir)(root);
    const env = gitTestEnv((0,external_node_path_.join)(base, 'home'));
    const requests = [];
    const backends = new Set();
    let down = false;
    const serveBackend = (req, res, url, authorized) => {
        const cgiEnv = {
            ...env,
            GIT_PROJECT_ROOT: root,
            GIT_HTTP_EXPORT_ALL: '1',
            GATEWAY_INTERFACE: 'CGI/1.1',
            REQUEST_METHOD: req.method ?? 'GET',
            PATH_INFO: decodeURIComponent(url.pathname),
            QUERY_STRING: url.search.replace(/^\?/, ''),
            CONTENT_TYPE: req.headers['content-type'] ?? '',
            REMOTE_ADDR: req.socket.remoteAddress ?? '127.0.0.1',
            ...(authorized ? { REMOTE_USER: 'x-access-token' } : {}),
            ...(req.headers['content-length'] ? { CONTENT_LENGTH: req.headers['content-length'] } : {}),
            ...(req.headers['content-encoding']
                ? { HTTP_CONTENT_ENCODING: req.headers['content-encoding'] }
                : {}),
            // Without this the backend speaks protocol v0 even when the client asked for v2.
            ...(typeof req.headers['git-protocol'] === 'string'
                ? { HTTP_GIT_PROTOCOL: req.headers['git-protocol'] }
                : {})
        };
        const child = (0,external_node_child_process_.spawn)('git', ['http-backend'], { env: cgiEnv, stdio: ['pipe', 'pipe', 'pipe'] });
        backends.add(child);
        child.on('close', () => backends.delete(child));
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
            const crlf = text.indexOf('\r\n\r\n');
            const lf = text.indexOf('\n\n');
            const end = crlf >= 0 && (lf < 0 || crlf < lf) ? crlf + 4 : lf >= 0 ? lf + 2 : -1;
            if (end < 0)
                return;
            let status = 200;
            for (const line of text.slice(0, end).split(/\r?\n/)) {
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
            res.writeHead(status);
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
    };
    const server = (0,external_node_http_.createServer)((req, res) => {
        const url = new URL(req.url ?? '/', 'http://127.0.0.1');
        const authorized = isAuthorized(req.headers.authorization, opts.token);
        const service = serviceOf(url.pathname, url.searchParams);
        requests.push({
            method: req.method ?? 'GET',
            path: url.pathname,
            authorized,
            ...(service ? { service } : {})
        });
        if (down) {
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
        serveBackend(req, res, url, authorized);
    });
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
            const branch = repoOpts.branch ?? 'main';
            const files = repoOpts.files ?? { 'README.md': `# ${name}\n` };
            const dir = bare(name);
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
            return `${url}${name.endsWith('.git') ? name : `${name}.git`}`;
        },
        repoPath: bare,
        async branches(name) {
            const out = await gitOk(['for-each-ref', '--format=%(refname:strip=2) %(objectname)', 'refs/heads'], bare(name), env);
            const result = {};
            for (const line of out.split('\n')) {
                const space = line.lastIndexOf(' ');
                if (space > 0)
                    result[line.slice(0, space)] = line.slice(space + 1);
            }
            return result;
        },
        async readFile(name, ref, path) {
            const r = await runGit(['cat-file', 'blob', `${ref}:${path}`], bare(name), env);
            return r.exitCode === 0 ? r.stdout : undefined;
        },
        async log(name, ref, n = 20) {
            const out = await gitOk(['log', `-n${n}`, '--format=%H%x1f%s%x1f%b%x1f%an <%ae>%x1e', ref, '--'], bare(name), env);
            return out
                .split('\x1e')
                .map(record => record.replace(/^\n/, ''))
                .filter(record => record.length > 0)
                .map(record => {
                const [sha = '', subject = '', body = '', author = ''] = record.split('\x1f');
                return { sha, subject, body: body.replace(/\n+$/, ''), author };
            });
        },
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
    const headerKey = `http.${new URL(cloneUrl).origin}/.extraheader`;
    if (opts.credentials === 'includeIf') {
        const credDir = opts.credentialsDir ?? (0,external_node_path_.join)(dir, '.git');
        const credFile = (0,external_node_path_.join)(credDir, `git-credentials-${(0,external_node_crypto_.randomUUID)()}.config`);
        await (0,external_node_fs_promises_.mkdir)(credDir, { recursive: true });
        await gitOk(['config', '--file', credFile, headerKey, extraheaderValue(token)], dir, env);
        const gitDir = (0,external_node_path_.join)(dir, '.git');
        await git('config', '--local', `includeIf.gitdir:${gitDir}.path`, credFile);
        await git('config', '--local', `includeIf.gitdir:${gitDir}/worktrees/*.path`, credFile);
    }
    else {
        await git('config', '--local', headerKey, extraheaderValue(token));
    }
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

// EXTERNAL MODULE: ./node_modules/@vercel/ncc/dist/ncc/@@notfound.js?../support/github-mock.js
var github_mock = __webpack_require__(1959);
;// CONCATENATED MODULE: ./test/support/run-action.ts
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
    const run = (args) => new Promise(done => {
        const child = (0,external_node_child_process_.spawn)('git', args, {
            cwd: workspace,
            env: { PATH: process.env.PATH, GIT_CONFIG_NOSYSTEM: '1', HOME: workspace },
            stdio: ['ignore', 'pipe', 'ignore']
        });
        let out = '';
        child.stdout.on('data', (c) => (out += c.toString()));
        child.on('error', () => done(undefined));
        child.on('close', code => done(code === 0 ? out.trim() : undefined));
    });
    const [sha, ref] = await Promise.all([
        run(['rev-parse', 'HEAD']),
        run(['symbolic-ref', '-q', 'HEAD'])
    ]);
    return { ...(sha ? { sha } : {}), ...(ref ? { ref } : {}) };
}
function senderOf(payload) {
    const sender = payload.sender;
    return typeof sender?.login === 'string' ? sender.login : undefined;
}
async function runAction(opts) {
    const runnerTemp = await (0,external_node_fs_promises_.mkdtemp)((0,external_node_path_.join)((0,external_node_os_.tmpdir)(), 'fleet-runner-temp-'));
    const commands = (0,external_node_path_.join)(runnerTemp, '_runner_file_commands');
    const workflowDir = (0,external_node_path_.join)(runnerTemp, '_github_workflow');
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
    const head = await gitHead(opts.workspace);
    const env = {
        PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
        HOME: process.env.HOME ?? (0,external_node_os_.tmpdir)(),
        CI: 'true',
        GITHUB_ACTIONS: 'true',
        RUNNER_OS: 'Linux',
        RUNNER_ARCH: 'X64',
        RUNNER_TEMP: runnerTemp,
        GITHUB_EVENT_NAME: opts.eventName,
        GITHUB_EVENT_PATH: eventPath,
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
        ...files
    };
    for (const [name, value] of Object.entries(opts.inputs))
        env[inputEnvName(name)] = value;
    Object.assign(env, opts.env);
    const started = performance.now();
    // Its own process group, so a timeout can also reach the workers it started.
    const child = (0,external_node_child_process_.spawn)(process.execPath, [opts.entry ?? ACTION_ENTRY], {
        cwd: opts.workspace,
        env,
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
    const durationMs = performance.now() - started;
    return {
        exitCode,
        signal,
        stdout: Buffer.concat(stdout).toString('utf8'),
        stderr: Buffer.concat(stderr).toString('utf8'),
        outputs: parseFileCommand(await (0,external_node_fs_promises_.readFile)(files.GITHUB_OUTPUT, 'utf8')),
        summary: await (0,external_node_fs_promises_.readFile)(files.GITHUB_STEP_SUMMARY, 'utf8'),
        runnerTemp,
        durationMs
    };
}

// EXTERNAL MODULE: external "node:util"
var external_node_util_ = __webpack_require__(7975);
;// CONCATENATED MODULE: ./test/e2e/leaks.ts






const exec = (0,external_node_util_.promisify)(external_node_child_process_.execFile);
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
    const out = [
        ['stdout', run.stdout],
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
    const bare = await bareRepoOf(stack);
    const { stdout } = await exec('git', ['-C', bare, 'log', '--all', '-p', '--format=%H %an %ae%n%B'], { maxBuffer: 256 * 1024 * 1024 });
    out.push(['pushed commits', stdout]);
    return out;
}
async function bareRepoOf(stack) {
    const branches = await stack.git.branches(`${OWNER}/${REPO}`);
    void branches;
    return stack.git.repoPath(`${OWNER}/${REPO}`);
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

;// CONCATENATED MODULE: ./test/e2e/stack.ts
/**
 * The whole offline world of an end-to-end test: the scripted model server, a git remote that
 * checks the token, the GitHub API mock, and a workspace laid out as actions/checkout leaves it.
 * Every action run goes through `stack.run()`, which ends with the leak scan (test/e2e/leaks.ts):
 * a scenario cannot run the action without it.
 */








const GITHUB_TOKEN = 'ghs_FleetE2eToken0123456789abcdef';
const MODEL_KEY = 'sk-fleet-e2e-model-key-0123456789';
const OWNER = 'acme';
const REPO = 'widgets';
async function startStack(opts = {}) {
    const home = await (0,external_node_fs_promises_.mkdtemp)(external_node_path_default().join((0,external_node_os_.tmpdir)(), 'fleet-e2e-home-'));
    const model = await startModelServer({ acceptKeys: [MODEL_KEY], ...opts.model });
    const git = await startGitRemote({ token: GITHUB_TOKEN });
    const github = await (0,github_mock.startGitHubMock)({ owner: OWNER, repo: REPO, defaultBranch: 'main', token: GITHUB_TOKEN, ...opts.github });
    const cloneUrl = await git.createRepo(`${OWNER}/${REPO}`, {
        files: opts.files ?? { 'README.md': '# widgets\n', 'package.json': '{"name":"widgets","private":true}\n' }
    });
    const workspace = await makeWorkspace(cloneUrl, GITHUB_TOKEN);
    const runs = [];
    const stack = {
        model,
        git,
        github,
        workspace,
        cloneUrl,
        async run(r) {
            const result = await runAction({
                inputs: {
                    'github-token': GITHUB_TOKEN,
                    'api-key': MODEL_KEY,
                    'base-url': model.url,
                    'max-parallel': '2',
                    'retry-delay-seconds': '0.2',
                    ...r.inputs
                },
                eventName: r.eventName ?? 'workflow_dispatch',
                payload: r.payload ?? { inputs: {}, ref: 'refs/heads/main', repository: { full_name: `${OWNER}/${REPO}` } },
                workspace,
                repository: `${OWNER}/${REPO}`,
                serverUrl: git.url.replace(/\/$/, ''),
                apiUrl: github.url,
                env: { ...gitTestEnv(home), ...r.env },
                timeoutMs: r.timeoutMs ?? 120_000,
                signalAfterMs: r.signalAfterMs
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

;// CONCATENATED MODULE: ./src/demo.ts
/**
 * `fleet-worker demo`: three tasks through the real action (node dist/index.js) and the real claude
 * CLI, against the test harness's scripted model, git remote and GitHub API mock, all on loopback.
 */


const DEMO_TASKS = [
    { id: 'add-contributing', title: 'Add CONTRIBUTING.md', file: 'CONTRIBUTING.md', content: '# Contributing\n\nOpen an issue first.\n' },
    { id: 'add-editorconfig', title: 'Add .editorconfig', file: '.editorconfig', content: 'root = true\n\n[*]\nindent_style = space\n' },
    { id: 'document-usage', title: 'Document usage', file: 'docs/usage.md', content: '# Usage\n\nRun `npm start`.\n' }
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
            console.log(`  #${pr.number} ${pr.head.ref} -> ${pr.base.ref}: ${pr.title}`);
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

/***/ 1959:
/***/ ((module) => {

module.exports = eval("require")("../support/github-mock.js");


/***/ })

};
