export const id = 118;
export const ids = [118];
export const modules = {

/***/ 94118:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {


// EXPORTS
__webpack_require__.d(__webpack_exports__, {
  usePlanner: () => (/* binding */ usePlanner)
});

// EXTERNAL MODULE: external "node:path"
var external_node_path_ = __webpack_require__(76760);
var external_node_path_default = /*#__PURE__*/__webpack_require__.n(external_node_path_);
// EXTERNAL MODULE: ./src/context.ts
var context = __webpack_require__(40788);
// EXTERNAL MODULE: ./src/modes/plan.ts
var modes_plan = __webpack_require__(12317);
// EXTERNAL MODULE: ./src/domain.ts
var domain = __webpack_require__(89375);
// EXTERNAL MODULE: ./src/tasks/ids.ts
var ids = __webpack_require__(43356);
// EXTERNAL MODULE: ./src/tasks/plan-section.ts
var plan_section = __webpack_require__(32969);
// EXTERNAL MODULE: ./src/tasks/parse.ts
var parse = __webpack_require__(42649);
// EXTERNAL MODULE: ./src/github/live-comment.ts
var live_comment = __webpack_require__(96745);
// EXTERNAL MODULE: ./src/report/markdown.ts
var markdown = __webpack_require__(54285);
// EXTERNAL MODULE: ./src/report/worker-text.ts
var worker_text = __webpack_require__(7748);
// EXTERNAL MODULE: ./src/fleet/engine.ts + 3 modules
var engine = __webpack_require__(76947);
// EXTERNAL MODULE: ./src/git/repo.ts + 8 modules
var git_repo = __webpack_require__(92732);
// EXTERNAL MODULE: ./src/worker/run.ts + 1 modules
var run = __webpack_require__(96823);
// EXTERNAL MODULE: ./src/tasks/invisible.ts
var invisible = __webpack_require__(40773);
// EXTERNAL MODULE: ./node_modules/zod/v4/classic/schemas.js + 11 modules
var schemas = __webpack_require__(92857);
;// CONCATENATED MODULE: ./src/planner/schema.ts

/** What the planner answers, checked again after the CLI's own check against the JSON schema. */
const AnswerSchema = schemas/* object */.Ikc({
    tasks: schemas/* array */.YOg(schemas/* looseObject */._H3({
        title: schemas/* string */.YjP(),
        prompt: schemas/* string */.YjP(),
        model: schemas/* string */.YjP().optional(),
        verify: schemas/* string */.YjP().optional()
    }))
});
/**
 * The `--json-schema` the planner answers with (through the CLI's StructuredOutput tool). The CLI
 * checks an answer against it and asks the model to fix a mismatch, so the bounds here spare a
 * rerun; duplicate titles cannot be said in JSON schema and are checked after.
 */
function answerJsonSchema(maxTasks) {
    const text = { type: 'string', minLength: 1 };
    return {
        type: 'object',
        additionalProperties: false,
        required: ['tasks'],
        properties: {
            tasks: {
                type: 'array',
                minItems: 1,
                maxItems: maxTasks,
                items: {
                    type: 'object',
                    additionalProperties: false,
                    required: ['title', 'prompt'],
                    properties: {
                        title: { ...text, maxLength: 100, description: 'Short, imperative, unique.' },
                        prompt: { ...text, description: 'Self-contained instructions for one worker.' },
                        model: { ...text, description: 'Only if the request names a model.' },
                        verify: { ...text, description: 'A shell command that checks this task, if any.' }
                    }
                }
            }
        }
    };
}

;// CONCATENATED MODULE: ./src/planner/answer.ts



const fail = (error) => ({ ok: false, error });
function fromStructured(value) {
    const parsed = AnswerSchema.safeParse(value);
    if (!parsed.success) {
        const issue = parsed.error.issues[0];
        const at = issue?.path.length ? ` at ${issue.path.join('.')}` : '';
        return `the planner's structured output is not a task list (${issue?.message ?? 'invalid'}${at})`;
    }
    return parsed.data.tasks.map(t => ({
        title: (0,invisible/* cleanText */.X)(t.title).replace(/\s+/g, ' '),
        prompt: (0,invisible/* cleanText */.X)(t.prompt),
        ...(t.model?.trim() ? { model: t.model.trim() } : {}),
        ...(t.verify?.trim() ? { verify: t.verify.trim() } : {})
    }));
}
/** Nothing usable, too many, duplicate titles, empty prompts: each one sentence a person can act on. */
function checkTasks(tasks, maxTasks) {
    if (tasks.length === 0)
        return 'the planner proposed no tasks';
    if (tasks.length > maxTasks)
        return `the planner proposed ${tasks.length} tasks, more than max-tasks (${maxTasks}); ask for a smaller split or raise max-tasks`;
    const untitled = tasks.findIndex(t => t.title === '');
    if (untitled >= 0)
        return `the planner's task ${untitled + 1} has no title`;
    const seen = new Set();
    for (const t of tasks) {
        const key = (0,plan_section/* titleKey */.kz)(t.title);
        if (seen.has(key))
            return `the planner gave two tasks the title '${t.title}'; each task needs its own title (its id comes from it)`;
        seen.add(key);
    }
    const empty = tasks.find(t => t.prompt.trim() === '');
    if (empty)
        return `the planner's task '${empty.title}' has an empty prompt`;
    return undefined;
}
/**
 * The planner's answer: its structured output when the CLI has one, else the `- [ ]` checklist of
 * its final message (each item's indented lines are its prompt).
 */
function readAnswer(answer, maxTasks) {
    let tasks;
    let via = 'structured output';
    if (answer.structured !== undefined && answer.structured !== null) {
        const read = fromStructured(answer.structured);
        if (typeof read === 'string')
            return fail(read);
        tasks = read;
    }
    else {
        via = 'checklist';
        tasks = (0,plan_section/* checklistItems */.V_)(answer.finalMessage ?? '').map(i => ({
            title: i.title,
            prompt: i.prompt
        }));
        if (tasks.length === 0)
            return fail('the planner answered without a plan: no structured output, and no `- [ ]` checklist in its final message');
    }
    const problem = checkTasks(tasks, maxTasks);
    return problem ? fail(problem) : { ok: true, tasks, via };
}

// EXTERNAL MODULE: ./src/tasks/visible.ts
var visible = __webpack_require__(23028);
;// CONCATENATED MODULE: ./src/planner/prompt.ts


function currentPlan(items) {
    if (items.length === 0)
        return [];
    return [
        '',
        'The issue already has a plan (below). This request replaces it. Keep the exact title of every item you keep, even if you change its prompt: the title decides the task id, branch and pull request. Items marked done are finished: plan them again only if the request asks.',
        '<current-plan>',
        ...items.map(i => `- ${i.checked ? '[done] ' : ''}${i.title}`),
        '</current-plan>'
    ];
}
/**
 * The planner's prompt. Issue and goal text is data to plan from, framed once; the rules say what
 * a good task is for a fleet: independent, one worker's size, self-contained.
 */
function plannerPrompt(ask, maxTasks) {
    const request = ask.kind === 'goal'
        ? ['<request>', (0,invisible/* cleanText */.X)(ask.goal), '</request>']
        : [
            ...(ask.text ? ['<request>', (0,visible/* visibleText */.Q)(ask.text).text, '</request>', ''] : []),
            `<issue number="${ask.issue.number}">`,
            `# ${(0,invisible/* cleanText */.X)(ask.issue.title)}`,
            '',
            (0,visible/* visibleText */.Q)(ask.issue.body).text,
            '</issue>',
            ...currentPlan(ask.current)
        ];
    return [
        'You are the planner of Fleet Worker. Read this repository (you can read and search files; you cannot change them or run commands) and the request below, then split the request into independent coding tasks for a fleet of workers.',
        '',
        'Rules:',
        `- At most ${maxTasks} tasks; fewer is better when the work is small. One task is fine.`,
        "- Each task is done by a separate worker on its own branch from the same starting point, at the same time as the others: no task may depend on another task's changes, and two tasks should not edit the same lines.",
        '- Size each task for one worker: one focused change a reviewer can read as one pull request.',
        '- title: a short imperative line, unique among the tasks.',
        '- prompt: self-contained instructions. The worker sees only its prompt and the repository: say what to change, in which files, and how to check it.',
        '- verify (optional): a shell command that checks the task, when the repository has one (e.g. its test command).',
        '- model: leave it out unless the request names a model.',
        '',
        'Answer by calling the StructuredOutput tool once, with {"tasks": [{"title", "prompt", "verify"?}]}. If you cannot call it, end your answer with a markdown checklist instead: one "- [ ] title" line per task, with its prompt indented by two spaces on the lines below.',
        '',
        ...request
    ].join('\n');
}

;// CONCATENATED MODULE: ./src/planner/run.ts
var __addDisposableResource = (undefined && undefined.__addDisposableResource) || function (env, value, async) {
    if (value !== null && value !== void 0) {
        if (typeof value !== "object" && typeof value !== "function") throw new TypeError("Object expected.");
        var dispose, inner;
        if (async) {
            if (!Symbol.asyncDispose) throw new TypeError("Symbol.asyncDispose is not defined.");
            dispose = value[Symbol.asyncDispose];
        }
        if (dispose === void 0) {
            if (!Symbol.dispose) throw new TypeError("Symbol.dispose is not defined.");
            dispose = value[Symbol.dispose];
            if (async) inner = dispose;
        }
        if (typeof dispose !== "function") throw new TypeError("Object not disposable.");
        if (inner) dispose = function() { try { inner.call(this); } catch (e) { return Promise.reject(e); } };
        env.stack.push({ value: value, dispose: dispose, async: async });
    }
    else if (async) {
        env.stack.push({ async: true });
    }
    return value;
};
var __disposeResources = (undefined && undefined.__disposeResources) || (function (SuppressedError) {
    return function (env) {
        function fail(e) {
            env.error = env.hasError ? new SuppressedError(e, env.error, "An error was suppressed during disposal.") : e;
            env.hasError = true;
        }
        var r, s = 0;
        function next() {
            while (r = env.stack.pop()) {
                try {
                    if (!r.async && s === 1) return s = 0, env.stack.push(r), Promise.resolve().then(next);
                    if (r.dispose) {
                        var result = r.dispose.call(r.value);
                        if (r.async) return s |= 2, Promise.resolve(result).then(next, function(e) { fail(e); return next(); });
                    }
                    else s |= 1;
                }
                catch (e) {
                    fail(e);
                }
            }
            if (s === 1) return env.hasError ? Promise.reject(env.error) : Promise.resolve();
            if (env.hasError) throw env.error;
        }
        return next();
    };
})(typeof SuppressedError === "function" ? SuppressedError : function (error, suppressed, message) {
    var e = new Error(message);
    return e.name = "SuppressedError", e.error = error, e.suppressed = suppressed, e;
});







/**
 * The planner reads and searches the repository, nothing more: no Write, Edit or Bash, and the
 * default permission mode, which (measured with claude 2.1.332) refuses reads outside the working
 * directory, through symlinks too. Plan mode let Read open any file of the runner, and ended a run
 * with exit 1 after refusing a Bash write. Its answer comes back through --json-schema.
 */
function plannerConfig(config) {
    return {
        ...config,
        permissionMode: 'default',
        tools: ['Read', 'Glob', 'Grep'],
        allowedTools: [],
        disallowedTools: [],
        claudeArgs: [
            ...config.claudeArgs,
            '--json-schema',
            JSON.stringify(answerJsonSchema(config.maxTasks))
        ]
    };
}
/** A plan is posted on the issue: one that quotes a secret of the run (a prompt injection's aim) is not. */
function holdsSecret(tasks, secrets) {
    const text = JSON.stringify(tasks);
    return secrets.some(s => s.length >= 8 && text.includes(s));
}
/**
 * The planner's own clone and a worktree of the base branch, on a local branch never pushed. The
 * planner reads the base's files and nothing of its history (Read, Glob, Grep; no git): the base
 * is fetched at depth 1, borrowing the workspace's checkout as the fleet's clone does.
 */
async function plannerTree(deps, id) {
    const { repo, base } = await git_repo/* FleetRepo */.t7.clone({
        dir: external_node_path_default().join(deps.root, 'repo'),
        remoteUrl: deps.remoteUrl,
        token: deps.gitToken,
        base: deps.config.baseBranch,
        branches: [],
        checkout: deps.host.GITHUB_WORKSPACE,
        tipsOnly: true
    });
    const tree = await repo.worktree(id, `fleet-planner/${id}`, `refs/remotes/origin/${base}`);
    return { tree, base };
}
function plannerTask(ask, id, maxTasks) {
    return {
        id,
        title: 'plan',
        prompt: plannerPrompt(ask, maxTasks),
        branch: `fleet-planner/${id}`,
        source: ask.kind === 'issue' ? { kind: 'issue', issue: ask.issue.number } : { kind: 'input' }
    };
}
/** The planner's answer, if its worker finished and the answer is sound and holds no secret. */
function answerOf(worker, deps) {
    if (worker.verdict.kind !== 'ok')
        return { ok: false, error: `the planner did not finish: ${worker.verdict.error}` };
    const answer = readAnswer({ structured: worker.structuredOutput, finalMessage: worker.finalMessage }, deps.config.maxTasks);
    if (answer.ok && holdsSecret(answer.tasks, deps.secrets))
        return {
            ok: false,
            error: "the planner's answer held a secret of this run (the GitHub token or the model key), so it was not used"
        };
    return answer;
}
/** The planner as one worker, through the workers' own path (cage, isolation, retries), in a worktree of the base branch. */
async function runPlanner(deps, ask) {
    const env_1 = { stack: [], error: void 0, hasError: false };
    try {
        const { config } = deps;
        const id = ask.kind === 'issue' ? `issue-${ask.issue.number}-plan` : 'plan';
        const { tree: made, base } = await plannerTree(deps, id);
        const tree = __addDisposableResource(env_1, made, true);
        const task = plannerTask(ask, id, config.maxTasks);
        deps.log(`[${id}] planning on ${base}`);
        // The planner talks to the model through a gateway of its own, as every worker does.
        const model = __addDisposableResource(env_1, await (0,engine/* openGateway */.JA)({
            config,
            apiKey: deps.apiKey,
            hostEnv: deps.host,
            log: deps.log,
            isolation: deps.isolation
        }), true);
        const caged = plannerConfig(config);
        const worker = await (0,run/* runWorker */.WY)({
            config: caged,
            isolation: deps.isolation,
            claude: deps.claude,
            model,
            root: deps.root,
            host: deps.host,
            isRoot: process.getuid?.() === 0,
            log: deps.log,
            onProgress: deps.onProgress,
            signal: deps.signal,
            prompt: t => t.prompt
        }, task, tree.dir);
        return { worker, answer: answerOf(worker, deps) };
    }
    catch (e_1) {
        env_1.error = e_1;
        env_1.hasError = true;
    }
    finally {
        const result_1 = __disposeResources(env_1);
        if (result_1)
            await result_1;
    }
}

;// CONCATENATED MODULE: ./src/planner/issue.ts






/**
 * On an issue, a plan is a title and a prompt per item: issue text never becomes a command the
 * action runs or a model it pays for, so a suggested verify command becomes a line of the prompt
 * (the worker may run it in its cage) and the workflow's own `verify` and `model` apply.
 */
function toItem(t, done) {
    const prompt = t.verify ? `${t.prompt}\n\nWhen done, check it with: \`${t.verify}\`` : t.prompt;
    return { title: t.title, prompt, checked: done.has((0,plan_section/* titleKey */.kz)(t.title)) };
}
function planTable(items, tasks, phrase) {
    const open = new Map(tasks.map(t => [t.source.kind === 'issue' ? t.source.item : 0, t]));
    const rows = items.map((item, i) => {
        const task = open.get(i + 1);
        return `| ${(0,markdown/* cell */.Hn)(item.title)}${task ? ` (\`${task.id}\`)` : ''} | ${task ? 'planned' : 'done'} |`;
    });
    return [
        `Planned ${items.length} task${items.length === 1 ? '' : 's'}, added to the issue's description under **Plan**. Review and edit them there, then comment \`${phrase}\` to run the unchecked ones (\`${phrase} plan\` plans again). Nothing has run yet.`,
        '',
        '| task | state |',
        '|---|---|',
        ...rows
    ].join('\n');
}
/** What the planner cost, for the summary: a plan that worked has no outcome of its own. */
function plannerSpent(o) {
    const u = o.usage;
    const input = u.input_tokens + u.cache_read_input_tokens + u.cache_creation_input_tokens;
    return `The planner used ${o.turns} turns, ${(0,markdown/* tokens */.LU)(input)} input and ${(0,markdown/* tokens */.LU)(u.output_tokens)} output tokens.`;
}
function plannerOutcome(issue, run) {
    const task = {
        id: `issue-${issue}-plan`,
        title: `plan for #${issue}`,
        prompt: '',
        branch: '',
        source: { kind: 'issue', issue }
    };
    const error = run.answer.ok ? undefined : run.answer.error;
    return {
        ...(0,domain/* emptyOutcome */.we)(task, { status: 'failed', error }),
        turns: run.worker?.turns ?? 0,
        usage: run.worker?.usage ?? (0,domain/* emptyOutcome */.we)(task, { status: 'failed' }).usage,
        attempts: run.worker?.attempts ?? 0,
        model: run.worker?.model,
        finalMessage: run.worker?.finalMessage
    };
}
/** The plan section into the description as it is now (a person may have edited it meanwhile). */
async function writePlan(deps, issue, section, live) {
    const latest = (await deps.github.getIssue(issue)).body ?? '';
    await deps.github
        .setIssueBody(issue, (0,plan_section/* replacePlanSection */.Vt)(latest, section))
        .catch(async (error) => {
        const why = error instanceof Error ? error.message : String(error);
        await live.say(`Could not write the plan into the description: ${(0,worker_text/* inertProse */.CH)(why)}.`);
        throw new Error(`could not write the plan into the description of #${issue} (the token needs issues: write): ${why}`, { cause: error });
    });
    return section;
}
/**
 * `/fleet plan [text]` on an issue: the live comment says "planning", the planner runs, and its
 * plan replaces the plan section of the issue's description (or is appended). Nothing is
 * committed or pushed. A bad answer leaves the description as it was and says why.
 */
async function planOnIssue(deps, ask) {
    const github = deps.github;
    const read = () => github.getIssue(ask.number);
    const issue = await read();
    const live = github.liveComment(ask.number, [], deps.runUrl, deps.log);
    await live.say('Planning: a planner is reading the repository and this issue. The plan will appear here and in the description.');
    const body = issue.body ?? '';
    const current = (0,plan_section/* readPlanSection */.tE)(body) ?? [];
    const run = await runPlanner(deps, {
        kind: 'issue',
        issue: { number: ask.number, title: issue.title, body: (0,plan_section/* withoutPlanSection */.v6)(body) },
        text: ask.text,
        current
    });
    const usage = plannerOutcome(ask.number, run);
    const spent = plannerSpent(usage);
    if (!run.answer.ok) {
        await live.say(`Could not plan: ${(0,worker_text/* inertProse */.CH)(run.answer.error)}. The description was not changed and nothing ran.`);
        return { outcomes: [usage], note: `Planning #${ask.number} failed. ${spent}` };
    }
    const done = new Set(current.filter(i => i.checked).map(i => (0,plan_section/* titleKey */.kz)(i.title)));
    const items = run.answer.tasks.map(t => toItem(t, done));
    const section = await writePlan(deps, ask.number, (0,plan_section/* renderPlanSection */.JQ)(items, ask.phrase), live);
    // The ids a later `/fleet` run reads from the description, where a foreign link shows as code.
    const tasks = (0,plan_section/* tasksFromPlan */.mJ)(issue, (0,plan_section/* readPlanSection */.tE)(section) ?? items, ask.prefix);
    await live.say(planTable(items, tasks, ask.phrase));
    const outcomes = tasks.map(t => ({
        ...(0,domain/* emptyOutcome */.we)(t, {
            status: 'not-started',
            error: `planned, not run: comment ${ask.phrase} on #${ask.number} to run it`
        }),
        branch: t.branch
    }));
    return {
        outcomes,
        note: `Planned ${items.length} tasks on #${ask.number} (from the planner's ${run.answer.via}); comment \`${ask.phrase}\` there to run them. ${spent}`
    };
}

;// CONCATENATED MODULE: ./src/planner/goal.ts







/** Goal tasks get ids from their titles (slug + hash), like prompts do, so a re-plan keeps them. */
function goalTasks(planned, prefix) {
    return planned.map(t => {
        const id = (0,plan_section/* planItemId */.ao)(t.title);
        return {
            id,
            title: (0,parse/* titleOf */.Gg)(t.title),
            prompt: t.prompt,
            branch: (0,ids/* branchFor */.yC)(prefix, id),
            source: { kind: 'input' },
            ...(t.model ? { model: t.model } : {}),
            ...(t.verify ? { verify: t.verify } : {})
        };
    });
}
/** The `goal` input through the planner: its tasks, or the one failed outcome saying why not. */
async function planGoal(deps, goal) {
    const run = await runPlanner(deps, { kind: 'goal', goal });
    const turns = run.worker?.turns ?? 0;
    if (run.answer.ok) {
        const tasks = goalTasks(run.answer.tasks, deps.config.branchPrefix);
        const spent = plannerSpent({ turns, usage: run.worker?.usage ?? domain/* ZERO_USAGE */.fI });
        return {
            tasks,
            note: `The planner split the goal into ${tasks.length} tasks (from its ${run.answer.via}). ${spent}`
        };
    }
    const task = {
        id: 'plan',
        title: 'plan the goal',
        prompt: '',
        branch: '',
        source: { kind: 'input' }
    };
    const failed = (0,domain/* emptyOutcome */.we)(task, { status: 'failed', error: run.answer.error });
    return {
        failed: {
            ...failed,
            turns,
            usage: run.worker?.usage ?? failed.usage,
            attempts: run.worker?.attempts ?? 0,
            model: run.worker?.model
        }
    };
}

// EXTERNAL MODULE: ./src/report/artifacts.ts
var artifacts = __webpack_require__(5825);
;// CONCATENATED MODULE: ./src/run/planning.ts
// The planner's turn in a run, as the action takes it: read the run's context and the asked-for
// plan, hand the planner (planner/) plain options, keep its transcript, shape its answer for the
// run. It is band 6 (docs/architecture.md), so planner/ only plans.






/**
 * The planner's turn in a run: `/fleet plan` ends here with the plan on the issue; a goal's tasks
 * go on as the run's plan. A bad answer is one failed outcome saying why.
 */
async function usePlanner(run, ask) {
    const { config, ctx, io } = run;
    // A shard re-reading the comment must not plan (and edit the issue) once per shard.
    if (ask.kind === 'issue' && config.mode === 'run' && config.shard !== 0)
        return { outcomes: [] };
    const apiKey = run.prepare.apiKey(' for the planner');
    const root = external_node_path_default().join(ctx.runnerTemp, 'fleet-worker', `${ctx.runId ?? process.pid}-planner`);
    // The cage before any model request, as for workers.
    const isolation = await run.prepare.isolation();
    const deps = {
        config,
        isolation,
        claude: await run.prepare.claude(),
        apiKey,
        remoteUrl: await run.prepare.remoteUrl(),
        gitToken: config.githubToken,
        root,
        host: run.env,
        secrets: [config.githubToken ?? '', apiKey],
        log: io.info,
        onProgress: io.onProgress,
        signal: run.signal
    };
    // The planner's transcript is kept as the workers' are.
    const kept = async (note) => [note, await (0,artifacts/* keepWork */.r)(root, `fleet-plan-${ctx.runId ?? process.pid}`, run.env)]
        .filter(Boolean)
        .join(' ');
    if (ask.kind === 'issue') {
        if (!run.github)
            throw new Error("'/fleet plan' needs 'github-token' to read and edit the issue");
        const done = await planOnIssue({ ...deps, github: run.github, runUrl: (0,context/* runUrl */.V)(ctx) }, {
            number: ask.issue,
            text: ask.text,
            phrase: config.triggerPhrase,
            prefix: config.branchPrefix
        });
        return { outcomes: done.outcomes, note: await kept(done.note) };
    }
    const goal = await planGoal(deps, ask.goal);
    if ('failed' in goal)
        return { outcomes: [goal.failed], note: await kept('Planning the goal failed.') };
    const plan = {
        version: 1,
        shards: (0,modes_plan/* shardCount */.o4)(goal.tasks.length, config.maxJobs),
        tasks: goal.tasks,
        refused: []
    };
    return { plan, note: await kept(goal.note) };
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
