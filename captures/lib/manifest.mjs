// The manifest of a capture: what the scenario scripted (agents, types,
// background or foreground, nesting, outcomes, durations, a timeline), what
// the server observed, how the CLI was run, and the files it wrote.
import { lstatSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { actionsOf } from './dsl.mjs';

const sum = (xs) => xs.reduce((a, b) => a + b, 0);

/** Keys of the agents that `key` stops. */
const stoppedBy = (def) => actionsOf(def.steps).filter((a) => a.action === 'stop').map((a) => a.key);

/**
 * How a subagent's script ends: completed, failed (and how), cancelled
 * (stopped by its parent) or interrupted (the CLI got SIGINT while it ran,
 * or the client driving it `interruptWith`, such as ACP's session/cancel).
 */
function outcome(def, stopped, interrupted, interruptWith) {
  if (stopped.has(def.key)) return { status: 'cancelled', how: 'stopped by its parent' };
  if (interrupted.has(def.key)) return { status: 'interrupted', how: interruptWith ? `the client sent ${interruptWith} while it ran; no result` : 'the CLI got SIGINT while it ran; no result' };
  const last = def.steps.at(-1);
  if (last.kind === 'fail') return { status: 'failed', how: last.mode === 'http' ? `HTTP ${last.status} ${last.errorType}` : `stream error event ${last.errorType}` };
  return { status: 'completed' };
}

/** How a subagent runs, and why: the CLI's default, as asked, or not as asked (a CLI that cannot). */
function launchOf(def, background) {
  const runs = background ? 'background' : 'foreground';
  if (def.background === undefined) return `${runs} (the CLI's default)`;
  return def.background === background ? `${runs} (asked)` : `${runs} (asked for the ${def.background ? 'background' : 'foreground'}; this CLI cannot)`;
}

/** The tools an agent's script calls, by action name (before the CLI's own naming). */
const actionCounts = (def) => {
  const counts = {};
  for (const a of actionsOf(def.steps)) counts[a.action] = (counts[a.action] ?? 0) + 1;
  return counts;
};

/**
 * What a scenario holds, from its script alone: one entry per subagent
 * (type, description, depth, parent, how it is launched, fork, workflow,
 * outcome, scripted duration) and counts over them, types named as the CLI
 * names them (`typeOf`). `isBackground(def)` says
 * how the CLI runs a launch that does not choose (Claude Code: background at
 * depth 1, foreground when nested).
 */
export function holds(scenario, { isBackground, typeOf = (t) => t, refuses = () => null, interruptWith = null }) {
  const defs = [...scenario.agents.values()];
  const stopped = new Set(defs.flatMap(stoppedBy));
  // Launches the CLI refuses (an error result, no run), and the agents only
  // a refused one would have launched: they never exist for this CLI.
  const asked = new Map(defs.filter((d) => d.type !== 'main' && refuses(d)).map((d) => [d.key, refuses(d)]));
  const underRefused = (d) => {
    for (let p = scenario.agents.get(d.parent); p && p.type !== 'main'; p = scenario.agents.get(p.parent)) if (asked.has(p.key)) return true;
    return false;
  };
  const notLaunched = defs.filter((d) => d.type !== 'main' && underRefused(d)).map((d) => d.key);
  const refusal = new Map([...asked].filter(([key]) => !notLaunched.includes(key)));
  const interrupted = new Set(scenario.interrupt?.whileRunning ?? []);
  const sent = defs.flatMap((d) => actionsOf(d.steps).filter((a) => a.action === 'send').map((a) => ({ from: d.key, to: a.key, message: a.message })));
  const shells = defs.flatMap((d) => actionsOf(d.steps).filter((a) => a.action === 'shell' && a.background).map((a) => ({ by: d.key, command: a.command })));
  const agents = defs
    .filter((d) => d.type !== 'main' && !notLaunched.includes(d.key))
    .map((d) => ({
      key: d.key,
      type: d.fork ? 'fork' : d.type ? typeOf(d.type) : null,
      description: d.description,
      depth: d.depth,
      // A later run's main agent is the main agent too.
      parent: scenario.agents.get(d.parent)?.type === 'main' ? 'main' : d.parent,
      launch: d.inWorkflow ? 'workflow' : launchOf(d, isBackground(d)),
      fork: Boolean(d.fork),
      ...(refusal.has(d.key) ? { status: 'failed', how: `refused at launch: ${refusal.get(d.key)}` } : outcome(d, stopped, interrupted, interruptWith)),
      steps: refusal.has(d.key) ? 0 : d.steps.length,
      actions: refusal.has(d.key) ? {} : actionCounts(d),
      scriptedMs: refusal.has(d.key) ? 0 : sum(d.steps.map((s) => s.after ?? 0)),
    }));
  const count = (pred) => agents.filter(pred).map((a) => a.key);
  const byType = {};
  for (const a of agents) byType[a.type] = (byType[a.type] ?? 0) + 1;
  return {
    subagents: agents.length,
    byType,
    background: count((a) => a.launch.startsWith('background')),
    foreground: count((a) => a.launch.startsWith('foreground')),
    inWorkflow: count((a) => a.launch === 'workflow'),
    nested: count((a) => a.depth > 1),
    maxDepth: Math.max(0, ...agents.map((a) => a.depth)),
    forks: count((a) => a.fork),
    refused: [...refusal.keys()],
    notLaunched,
    failed: count((a) => a.status === 'failed'),
    cancelled: count((a) => a.status === 'cancelled'),
    ...(interrupted.size ? { interrupted: count((a) => a.status === 'interrupted') } : {}),
    messagesSent: sent,
    backgroundShells: shells,
    agents,
  };
}

/**
 * The scripted timeline: when each subagent starts and ends, in ms after the
 * main agent's first reply, counting only the scripted delays (the CLI's own
 * overhead comes on top). Launches after a wait, or in a workflow, start when
 * what they wait for ends. Null where the script does not fix a time.
 */
export function scriptedTimeline(scenario, { isBackground }) {
  const spans = {};
  const ends = {};
  const run = (key, start) => {
    const def = scenario.agents.get(key);
    let t = start;
    for (const step of def.steps) {
      if (step.kind === 'wait') {
        const known = step.keys.map((k) => ends[k]);
        t = known.every((e) => e != null) ? Math.max(t, ...known) : null;
        if (t == null) return null;
        continue;
      }
      t += step.after ?? 0;
      if (step.kind !== 'turn') continue;
      const blocking = [];
      for (const action of step.parts.filter((p) => p.action)) {
        if (action.action === 'spawn') {
          const child = scenario.agents.get(action.key);
          const end = run(action.key, t);
          spans[action.key] = { start: t, end };
          ends[action.key] = end;
          if (!isBackground(child)) blocking.push(end);
        }
        if (action.action === 'workflow') {
          let phaseStart = t;
          for (const phase of action.phases) {
            const phaseEnds = phase.keys.map((k) => {
              const end = run(k, phaseStart);
              spans[k] = { start: phaseStart, end };
              return end;
            });
            phaseStart = phaseEnds.every((e) => e != null) ? Math.max(...phaseEnds) : null;
            if (phaseStart == null) break;
          }
          ends[action.task] = phaseStart;
        }
      }
      if (blocking.length) t = blocking.every((e) => e != null) ? Math.max(t, ...blocking) : null;
      if (t == null) return null;
    }
    return t;
  };
  const mainEnd = run('main', 0);
  return { main: { start: 0, end: mainEnd }, ...spans };
}

/**
 * The observed timeline from the server log: for each agent, when its launch
 * reply was sent, when its first request came, when its last scripted reply
 * was sent (`ended`), and when a request of it was cut off (`cutOff`: the
 * client hung up, as when an agent is stopped), in ms after the server started.
 */
export function observedTimeline(log) {
  const out = {};
  const at = (key) => (out[key] ??= { launched: null, firstRequest: null, ended: null });
  for (const e of log) {
    for (const k of e.launches ?? []) at(k).launched ??= e.sent ?? null;
    if (!e.agent) continue;
    const a = at(e.agent);
    a.firstRequest ??= e.t;
    if (e.final && !e.aborted) a.ended = e.sent ?? e.t;
    if (e.aborted) a.cutOff = e.sent ?? e.t;
  }
  return out;
}

/**
 * The tool calls the server sent each agent, by the CLI's tool names:
 * delivered answers only (not cut off), a retried request's answer once.
 * Scripted actions plus what a CLI needs around them (loading a deferred
 * tool, waiting for or closing subagents, polling a shell, finishing).
 */
export function sentCalls(log) {
  const out = {};
  for (const e of log) {
    if (!e.agent || e.aborted || e.replay || !e.calls) continue;
    const calls = (out[e.agent] ??= {});
    for (const name of e.calls) calls[name] = (calls[name] ?? 0) + 1;
  }
  return out;
}

/** What the server saw: requests by API, unmatched and side requests, failures, tool errors, egress attempts. */
export function serverSummary(log) {
  const byApi = {};
  for (const e of log) byApi[e.api ?? e.method] = (byApi[e.api ?? e.method] ?? 0) + 1;
  const toolErrors = new Map();
  for (const e of log) for (const id of e.toolErrors ?? []) toolErrors.set(id, e.agent);
  const unknown = log.filter((e) => e.unknown).map((e) => `${e.method} ${e.path}`);
  return {
    requests: log.length,
    byApi,
    unmatched: log.filter((e) => e.api && !e.agent && e.kind === 'unmatched').length,
    side: log.filter((e) => e.kind === 'side').length,
    aborted: log.filter((e) => e.aborted).map((e) => e.agent),
    failures: log.filter((e) => e.kind === 'fail').map((e) => ({ agent: e.agent, status: e.status })),
    toolErrors: [...toolErrors].map(([id, agent]) => ({ agent, callId: id })),
    unknownRoutes: [...new Set(unknown)],
    egressAttempts: log.filter((e) => e.egress).map((e) => e.path),
  };
}

/** The tools offered on the first request of each kind of agent (`main`, or a subagent type as the CLI names it). */
export function toolsOffered(log, scenario, typeOf = (t) => t) {
  const out = {};
  for (const e of log) {
    if (!e.agent || !e.tools) continue;
    const def = scenario.agents.get(e.agent);
    const kind = e.agent === 'main' ? 'main' : def.fork ? 'fork' : (def.type && typeOf(def.type)) ?? 'default';
    out[kind] ??= e.tools;
  }
  return out;
}

/** Every file under `dir` (links not followed): `{ path, bytes, link }`, path relative to `dir`, sorted. */
export function listFiles(dir) {
  const out = [];
  const walk = (d) => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const path = join(d, entry.name);
      if (entry.isDirectory()) walk(path);
      else out.push({ path: relative(dir, path), bytes: lstatSync(path).size, link: entry.isSymbolicLink() });
    }
  };
  walk(dir);
  return out.sort((a, b) => a.path.localeCompare(b.path));
}
