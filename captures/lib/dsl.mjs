// The scenario language: a scenario is a story told as scripts, one per agent.
// Each script is a list of steps; each step is one model reply (a turn), a wait
// for subagents to report, or a failure. Actions (spawn, shell, read, ...) are
// neutral: each CLI's dialect (lib/clis/*.mjs) turns them into its own tools.

/** Milliseconds a step waits before its reply is sent, unless it says otherwise. */
const DEFAULT_AFTER_MS = 150;

/** Assistant text. */
export const say = (text) => ({ say: text });

/** Model reasoning, sent as a thinking block where the API has one. */
export const think = (text) => ({ think: text });

/** Launch the subagent declared under `key` in the scenario's `agents`. */
export const spawn = (key) => ({ action: 'spawn', key });

/**
 * Run a shell command; `background: true` detaches it (a background task, not
 * a subagent). A `key` names the task so that waitFor() can wait for it.
 */
export const shell = (command, { description, background = false, key } = {}) => ({
  action: 'shell',
  command,
  description: description ?? command,
  background,
  ...(key ? { task: key } : {}),
});

/** Read a file of the workspace (a path relative to the working directory). */
export const read = (path) => ({ action: 'read', path });

/** Send a message to the running subagent `key`. */
export const send = (key, message) => ({ action: 'send', key, message });

/** Stop the running subagent `key`. */
export const stop = (key) => ({ action: 'stop', key });

/** Call `tool` of the scenario's MCP server `server` with `args` (see `mcpServers` in scenario()). */
export const mcp = (server, tool, args = {}) => ({ action: 'mcp', server, tool, args });

/**
 * Run a workflow whose agents are scenario agents, in phases (`phases: [{
 * title, keys: [...] }]`, each phase's agents in parallel); the CLI runs them
 * itself. `key` names the run so that waitFor() can wait for it.
 */
export const workflow = ({ key, name, description, phases }) => ({ action: 'workflow', task: key, name, description, phases });

function stepOptions(parts) {
  const last = parts[parts.length - 1];
  const isOptions = last && typeof last === 'object' && !('say' in last) && !('think' in last) && !('action' in last);
  return isOptions ? [parts.slice(0, -1), last] : [parts, {}];
}

/** One model reply made of text, thinking and actions; a trailing `{ after }` sets its delay. */
export function turn(...parts) {
  const [body, { after = DEFAULT_AFTER_MS } = {}] = stepOptions(parts);
  for (const part of body) {
    if (typeof part !== 'object' || part === null) throw new Error(`turn: not a part: ${JSON.stringify(part)}`);
  }
  return { kind: 'turn', parts: body, after };
}

/** The final reply: a markdown report, no tool calls. */
export const report = (markdown, { after = DEFAULT_AFTER_MS } = {}) => turn(say(markdown), { after });

/**
 * Wait until every subagent in `keys` has reported to this agent. While one is
 * still out, each reply is `interim` (a short text that ends the turn).
 */
export function waitFor(keys, { interim = defaultInterim } = {}) {
  return { kind: 'wait', keys: [...keys], interim };
}

/** What an agent says while it waits: how many reports are in, and who it waits for. */
function defaultInterim(missing, all, scenario) {
  const names = missing.map((k) => scenario.agents.get(k)?.description ?? k);
  return `${all.length - missing.length} of ${all.length} reports are in; waiting for: ${names.join(', ')}.`;
}

/** Steps that make a request fail. */
export const fail = {
  /**
   * An HTTP error status (500, 529 ...) with the API's error body; not retried
   * by default. With `times`, only the first `times` requests at that place
   * fail: the next one (the CLI's retry) gets the agent's next step, so the
   * agent recovers.
   */
  http: (status, { type = status === 529 ? 'overloaded_error' : 'api_error', message, retry = false, times, after = DEFAULT_AFTER_MS } = {}) => ({
    kind: 'fail',
    mode: 'http',
    status,
    errorType: type,
    message: message ?? (status === 529 ? 'Overloaded' : 'Internal server error'),
    retry,
    ...(times ? { times } : {}),
    after,
  }),
  /** A stream that starts, then ends in an SSE `error` event. */
  stream: ({ type = 'overloaded_error', message = 'Overloaded', after = DEFAULT_AFTER_MS } = {}) => ({
    kind: 'fail',
    mode: 'stream',
    status: 200,
    errorType: type,
    message,
    after,
  }),
};

/**
 * A subagent: its type, the description and prompt its parent launches it
 * with, whether it runs in the background (undefined: the CLI's default), and
 * its script. `fork: true` launches it as a fork of its parent;
 * `isolation: 'worktree'` isolates it in a git worktree; `launchFails`
 * (why) says every CLI refuses the launch itself (a type it does not have):
 * it fails at once, runs nothing and writes no transcript.
 */
export function agent({ type, description, prompt, background, fork = false, isolation, launchFails, steps }) {
  if (!prompt) throw new Error('agent: a prompt is required (it identifies the agent)');
  if (prompt.includes('\n')) throw new Error(`agent "${description}": a prompt is one line (CLIs indent relayed lines)`);
  if (!Array.isArray(steps) || steps.length === 0) throw new Error(`agent "${description}": steps are required`);
  if (isolation !== undefined && isolation !== 'worktree') throw new Error(`agent "${description}": the only isolation is "worktree"`);
  return { type, description, prompt, background, fork, ...(isolation ? { isolation } : {}), ...(launchFails ? { launchFails } : {}), steps };
}

/** Every action of a script, in order. */
export function actionsOf(steps) {
  return steps.flatMap((step) => (step.kind === 'turn' ? step.parts.filter((p) => p.action) : []));
}

function checkPrompts(prompts) {
  for (const [a, pa] of prompts) {
    for (const [b, pb] of prompts) {
      if (a !== b && pa.includes(pb)) throw new Error(`scenario: the prompt of "${b}" is inside the prompt of "${a}"`);
    }
  }
}

/**
 * How a later run goes on with the session: resumed by id with a new prompt,
 * continued (the latest session) with one, compacted, or forked (resumed by
 * id into a new session that copies the first one's records).
 */
const RUN_KINDS = ['resume', 'continue', 'compact', 'fork'];

/**
 * What a scenario sets up around the CLI, each turned into the CLI's own
 * configuration by its dialect: `git` (the workspace is a git repository with
 * one commit), `hooks` (`[{ pattern, reason }]`: a hook run before every tool
 * call blocks a shell command containing `pattern`, giving `reason`), `deny`
 * (`[{ read: path }]`: a permission rule refuses reading `path`),
 * `mcpServers` (names of MCP servers the harness provides, `notes`) and
 * `agentFiles` (`{ name: { description, tools, model, body } }`: custom agent
 * definitions the user keeps in their home folder).
 */
const SETUP_KEYS = ['git', 'hooks', 'deny', 'mcpServers', 'agentFiles'];

/**
 * A scenario: `name`, a `title`, the `story` it tells, the user `prompt`, the
 * main agent's `main` steps and the subagents in `agents` (key → agent()).
 * Checks that every spawned key exists, each is spawned once, and no prompt
 * contains another (prompts identify conversations). `maxRetries` caps a
 * CLI's retries of a failed request where the CLI lets an environment
 * variable say so (Claude Code's `CLAUDE_CODE_MAX_RETRIES`). `interrupt:
 * { whileRunning: [keys], after }` has the harness send the CLI SIGINT
 * `after` ms once every agent of `keys` has made its first request: those
 * agents and the main agent never finish their scripts.
 */
export function scenario({ name, title, story, prompt, main, agents = {}, maxRetries, interrupt, then = [], setup = {} }) {
  for (const key of Object.keys(setup)) if (!SETUP_KEYS.includes(key)) throw new Error(`scenario ${name}: unknown setup "${key}"`);
  const all = new Map([['main', { key: 'main', type: 'main', description: title, prompt, steps: main, parent: null, depth: 0 }]]);
  const runs = then.map((run, at) => {
    if (!RUN_KINDS.includes(run.how)) throw new Error(`scenario ${name}: a later run is one of ${RUN_KINDS.join(', ')}`);
    if (run.how === 'compact') return { how: run.how };
    const key = `main-${at + 2}`;
    all.set(key, { key, type: 'main', description: `${title} (run ${at + 2})`, prompt: run.prompt, steps: run.main, parent: null, depth: 0 });
    return { how: run.how, key, prompt: run.prompt };
  });
  for (const [key, def] of Object.entries(agents)) all.set(key, { ...def, key, parent: null, depth: 0 });
  const launchedBy = new Map();
  const tasks = new Map(); // task key -> the action that starts it (shell, workflow)
  for (const [key, def] of all) {
    for (const action of actionsOf(def.steps)) {
      const targets = action.action === 'workflow' ? action.phases.flatMap((p) => p.keys) : action.key ? [action.key] : [];
      if (action.task) tasks.set(action.task, action.action);
      for (const target of targets) {
        if (!all.has(target)) throw new Error(`scenario ${name}: ${key} refers to unknown agent "${target}"`);
        if (action.action !== 'spawn' && action.action !== 'workflow') continue;
        if (launchedBy.has(target)) throw new Error(`scenario ${name}: "${target}" is launched twice`);
        launchedBy.set(target, { parent: key, via: action.action });
      }
    }
  }
  for (const [key, def] of all) {
    if (def.type === 'main') continue;
    const launch = launchedBy.get(key);
    if (!launch) throw new Error(`scenario ${name}: agent "${key}" is never launched`);
    def.parent = launch.parent;
    def.inWorkflow = launch.via === 'workflow';
  }
  for (const def of all.values()) {
    let depth = 0;
    for (let p = def.parent; p; p = all.get(p).parent) depth++;
    def.depth = depth;
  }
  for (const def of all.values()) {
    for (const step of def.steps) {
      for (const k of step.kind === 'wait' ? step.keys : []) {
        if (!all.has(k) && !tasks.has(k)) throw new Error(`scenario ${name}: ${def.key} waits for unknown "${k}"`);
      }
    }
  }
  checkPrompts([...all].map(([k, d]) => [k, d.prompt]));
  for (const k of interrupt?.whileRunning ?? []) {
    if (!all.has(k)) throw new Error(`scenario ${name}: interrupts while unknown "${k}" runs`);
  }
  for (const def of all.values()) {
    for (const a of actionsOf(def.steps).filter((a) => a.action === 'mcp')) {
      if (!setup.mcpServers?.includes(a.server)) throw new Error(`scenario ${name}: ${def.key} calls MCP server "${a.server}", which setup.mcpServers does not name`);
    }
  }
  return { name, title, story, prompt, agents: all, tasks, setup, ...(maxRetries ? { maxRetries } : {}), ...(interrupt ? { interrupt } : {}), ...(runs.length ? { runs } : {}) };
}

/**
 * What a scenario needs from a CLI: `fork`, `send`, `stop`, `workflow`,
 * `background-shell`, `nested`, `foreground-agents`, `background-agents`,
 * `api-errors`, `interrupt` (SIGINT while subagents run), `mcp`, `hooks`,
 * `deny`, `worktree` (a subagent isolated in a git worktree),
 * `custom-agents` (agent definitions of the user's), `wide-fan-out` (more
 * than eight subagents launched at once), and the later runs of one session:
 * `resume`, `continue`, `compact`, `session-fork`. A CLI lists what it cannot
 * do (with the reason) and the scenarios that need it are recorded as not
 * supported.
 */
export function needsOf(scenario) {
  const needs = new Set(scenario.interrupt ? ['interrupt'] : []);
  for (const run of scenario.runs ?? []) needs.add(run.how === 'fork' ? 'session-fork' : run.how);
  const setup = scenario.setup ?? {};
  if (setup.hooks?.length) needs.add('hooks');
  if (setup.deny?.length) needs.add('deny');
  if (setup.mcpServers?.length) needs.add('mcp');
  if (setup.agentFiles && Object.keys(setup.agentFiles).length) needs.add('custom-agents');
  for (const def of scenario.agents.values()) {
    if (def.fork) needs.add('fork');
    if (def.depth > 1 && !def.inWorkflow) needs.add('nested');
    if (def.type !== 'main' && !def.inWorkflow && def.background === false) needs.add('foreground-agents');
    if (def.type !== 'main' && !def.inWorkflow && def.background === true) needs.add('background-agents');
    if (def.steps.some((s) => s.kind === 'fail')) needs.add('api-errors');
    if (def.isolation === 'worktree') needs.add('worktree');
    if (def.steps.some((s) => s.kind === 'turn' && s.parts.filter((p) => p.action === 'spawn').length > 8)) needs.add('wide-fan-out');
    for (const a of actionsOf(def.steps)) {
      if (a.action === 'send' || a.action === 'stop' || a.action === 'workflow') needs.add(a.action);
      if (a.action === 'shell' && a.background) needs.add('background-shell');
    }
  }
  return [...needs].sort();
}
