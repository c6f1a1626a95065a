export const id = 316;
export const ids = [316];
export const modules = {

/***/ 94316:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   doctor: () => (/* binding */ doctor)
/* harmony export */ });
/* unused harmony export endpointVerdict */
/* harmony import */ var node_os__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(48161);
/* harmony import */ var node_os__WEBPACK_IMPORTED_MODULE_0___default = /*#__PURE__*/__webpack_require__.n(node_os__WEBPACK_IMPORTED_MODULE_0__);
/* harmony import */ var node_path__WEBPACK_IMPORTED_MODULE_1__ = __webpack_require__(76760);
/* harmony import */ var node_path__WEBPACK_IMPORTED_MODULE_1___default = /*#__PURE__*/__webpack_require__.n(node_path__WEBPACK_IMPORTED_MODULE_1__);
/* harmony import */ var _config_js__WEBPACK_IMPORTED_MODULE_2__ = __webpack_require__(22973);
/* harmony import */ var _gateway_gateway_js__WEBPACK_IMPORTED_MODULE_3__ = __webpack_require__(36955);
/* harmony import */ var _inputs_js__WEBPACK_IMPORTED_MODULE_4__ = __webpack_require__(38422);
/* harmony import */ var _worker_env_js__WEBPACK_IMPORTED_MODULE_6__ = __webpack_require__(97705);
/* harmony import */ var _worker_install_js__WEBPACK_IMPORTED_MODULE_5__ = __webpack_require__(67901);
/**
 * `fleet-worker doctor`: offline checks (claude present and its version, inputs coherent, a key
 * present) and one live request to the model endpoint, each with a verdict a person can act on.
 */







/** What one tiny request to the endpoint says about the setup. */
function endpointVerdict(status, error) {
    const name = 'model endpoint';
    if (error)
        return { name, ok: false, detail: `unreachable: ${error}; check --base-url and the network` };
    if (status === undefined)
        return { name, ok: false, detail: 'no answer' };
    if (status >= 200 && status < 300)
        return { name, ok: true, detail: `answered ${status}` };
    if (status === 401 || status === 403)
        return {
            name,
            ok: false,
            detail: `rejected the key (${status}); check ANTHROPIC_API_KEY / ANTHROPIC_AUTH_TOKEN and --auth-header`
        };
    if (status === 404)
        return {
            name,
            ok: false,
            detail: 'answered 404: wrong --base-url (give the root, without /v1) or unknown --model'
        };
    if (status === 429 || status === 529)
        return {
            name,
            ok: true,
            detail: `reachable but busy (${status}); workers will back off and retry`
        };
    return { name, ok: false, detail: `answered ${status}` };
}
/**
 * One tiny request, sent the way workers send theirs: through the model gateway, which puts the
 * key on it. So a pass here also proves the gateway's key swap and headers for this endpoint.
 */
async function probe(config, key) {
    const gateway = await (0,_gateway_gateway_js__WEBPACK_IMPORTED_MODULE_3__/* .startGateway */ .z)({
        upstream: config.baseUrl ?? 'https://api.anthropic.com',
        key,
        authHeader: (0,_worker_env_js__WEBPACK_IMPORTED_MODULE_6__/* .keyVariable */ .OE)(config) === 'ANTHROPIC_AUTH_TOKEN' ? 'bearer' : 'x-api-key',
        concurrency: 1,
        maxAttempts: 1
    });
    try {
        const pass = gateway.register('doctor');
        const response = await fetch(`${gateway.url}/v1/messages`, {
            method: 'POST',
            headers: {
                'content-type': 'application/json',
                'anthropic-version': '2023-06-01',
                'x-api-key': pass.token
            },
            body: JSON.stringify({
                model: config.model ?? 'claude-sonnet-4-5',
                max_tokens: 1,
                messages: [{ role: 'user', content: 'ping' }]
            }),
            signal: AbortSignal.timeout(15_000)
        });
        const text = await response.text();
        // The gateway's own 502 when the endpoint could not be reached names the socket error.
        const unreachable = /could not reach the model endpoint: ([^"]+)/.exec(text)?.[1];
        return response.status === 502 && unreachable
            ? endpointVerdict(undefined, unreachable)
            : endpointVerdict(response.status);
    }
    catch (error) {
        return endpointVerdict(undefined, error instanceof Error ? error.message : String(error));
    }
    finally {
        await gateway.close();
    }
}
async function doctor(env, opts) {
    const checks = [];
    let config;
    try {
        const read = (0,_config_js__WEBPACK_IMPORTED_MODULE_2__/* .readConfig */ .Xg)(env);
        config = read.config;
        const old = read.deprecations.length ? ` (${read.deprecations.join(' ')})` : '';
        checks.push({ name: 'inputs', ok: true, detail: `coherent${old}` });
    }
    catch (error) {
        checks.push({
            name: 'inputs',
            ok: false,
            detail: error instanceof Error ? error.message : String(error)
        });
    }
    const onPath = config?.claudePath ?? (await (0,_worker_install_js__WEBPACK_IMPORTED_MODULE_5__/* .findOnPath */ .aY)('claude', env.PATH));
    if (onPath) {
        try {
            const claude = await (0,_worker_install_js__WEBPACK_IMPORTED_MODULE_5__/* .resolveClaude */ .rZ)({
                claudePath: onPath,
                pathVar: env.PATH,
                host: env,
                installDir: node_path__WEBPACK_IMPORTED_MODULE_1___default().join(node_os__WEBPACK_IMPORTED_MODULE_0___default().tmpdir(), 'fleet-claude'),
                log: () => undefined
            });
            const pinned = claude.version === _worker_install_js__WEBPACK_IMPORTED_MODULE_5__/* .CLAUDE_CODE_VERSION */ ._3;
            checks.push({
                name: 'claude',
                ok: true,
                detail: `${claude.version} at ${claude.file}${pinned ? '' : ` (tested with ${_worker_install_js__WEBPACK_IMPORTED_MODULE_5__/* .CLAUDE_CODE_VERSION */ ._3})`}`
            });
        }
        catch (error) {
            checks.push({
                name: 'claude',
                ok: false,
                detail: error instanceof Error ? error.message : String(error)
            });
        }
    }
    else {
        checks.push({
            name: 'claude',
            ok: true,
            detail: `not on PATH: the action installs ${_worker_install_js__WEBPACK_IMPORTED_MODULE_5__/* .CLAUDE_CODE_VERSION */ ._3} when it runs`
        });
    }
    // Read on its own, not from the parsed config: a bad --base-url must not make the key look missing.
    const key = env[(0,_inputs_js__WEBPACK_IMPORTED_MODULE_4__/* .inputEnvName */ .d_)('api-key')] || env.ANTHROPIC_API_KEY || env.ANTHROPIC_AUTH_TOKEN || undefined;
    checks.push(key
        ? { name: 'model key', ok: true, detail: 'present' }
        : {
            name: 'model key',
            ok: false,
            detail: 'missing: set ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN) in the environment'
        });
    if (!opts.offline && config && key)
        checks.push(await probe(config, key));
    return checks;
}


/***/ })

};
