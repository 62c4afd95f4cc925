// The scenario engine: given one request (a conversation, already parsed from
// its API's wire format), it finds which agent of the scenario is asking and
// answers with that agent's next step. The prompts the scenario chose identify
// the agents; the number of replies already in the conversation says where the
// agent is in its script.
import { idFor } from './ids.mjs';

/** The texts of a message's text parts. */
const textsOf = (message) => message.parts.filter((p) => p.type === 'text').map((p) => p.text);

/**
 * Which agent a conversation belongs to: the agent whose prompt appears in the
 * latest user message that holds any scenario prompt (a fork's history holds
 * its parent's prompt first, then its own directive). When one message holds
 * several, the one that comes last wins (a workflow agent's first message
 * relays the user's request before its own task). Returns `{ key, index }`
 * (the message's index) or null.
 */
export function identify(scenario, messages) {
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i].role !== 'user') continue;
    const text = textsOf(messages[i]).join('\n');
    let best = null;
    for (const [key, def] of scenario.agents) {
      const at = text.lastIndexOf(def.prompt);
      if (at >= 0 && (!best || at > best.at)) best = { key, at };
    }
    if (best) return { key: best.key, index: i };
  }
  return null;
}

/** Replies (assistant messages) after message `index`: the agent's turn number. */
export const repliesAfter = (messages, index) => messages.slice(index + 1).filter((m) => m.role === 'assistant').length;

/** The text of the result part answering call `id`, or null. */
function resultOf(messages, id) {
  for (const message of messages) {
    for (const part of message.parts) if (part.type === 'result' && part.id === id) return part.text;
  }
  return null;
}

/** Rough token count of a text (4 characters a token), at least 1. */
export const tokens = (text) => Math.max(1, Math.ceil(text.length / 4));

/**
 * Runs one scenario for one CLI. `dialect` maps actions to the CLI's tools and
 * reads its launch results (see lib/clis/*.mjs); `cwd` is the agent's working
 * directory; `clock` returns milliseconds (injectable for tests).
 */
export class Engine {
  constructor(scenario, dialect, { cwd = '/', clock = () => Date.now() } = {}) {
    this.scenario = scenario;
    this.dialect = dialect;
    this.cwd = cwd;
    this.clock = clock;
    this.start = clock();
    this.state = new Map([...scenario.agents.keys()].map((k) => [k, { next: 0, answers: new Map(), closed: new Set() }]));
    this.spawnCalls = new Map(); // agent or task key -> the call id that launched it
  }

  /**
   * The answer to one request: `{ agent, turn, answer, replay }` where answer is
   * `{ kind: 'turn', text, thinking, calls, after }`, `{ kind: 'fail', ... }`,
   * `{ kind: 'side' }` for a request the dialect knows as a CLI's own side
   * request (a title, a prompt suggestion ...; `dialect.side()` gives its
   * reply), or `{ kind: 'unmatched' }` for a request of no scenario agent.
   */
  respond(conversation) {
    const side = this.dialect.side?.(conversation, this.scenario);
    if (side != null) {
      return { agent: null, answer: { kind: 'side', text: side, calls: [], after: 0 } };
    }
    const who = identify(this.scenario, conversation.messages);
    if (!who) {
      return { agent: null, answer: { kind: 'unmatched', text: 'OK.', calls: [], after: 0 } };
    }
    const n = repliesAfter(conversation.messages, who.index);
    const state = this.state.get(who.key);
    let answer = state.answers.get(n);
    // A failure meant for `times` requests has had them: this retry gets the next step.
    if (answer?.kind === 'fail' && answer.times && answer.sent >= answer.times) answer = null;
    const replay = Boolean(answer);
    if (!answer) {
      answer = this.next(who.key, state, conversation, n);
      state.answers.set(n, answer);
    }
    if (answer.kind === 'fail') answer.sent = (answer.sent ?? 0) + 1;
    return { agent: who.key, turn: n, answer, replay };
  }

  /** Notes that an answer reached its agent (the server sent it whole). */
  delivered(agent, answer) {
    if (agent === 'main' && answer.final) this.mainDelivered = true;
    if (answer.final) (this.deliveredLast ??= new Set()).add(agent);
  }

  /** Has agent `key` (a later run's main agent, say) received the last step of its script? */
  finishedAgent(key) {
    return Boolean(this.deliveredLast?.has(key));
  }

  /** Has the main agent received the last step of its script? */
  get finished() {
    return Boolean(this.mainDelivered);
  }

  /** The agent's next step, turned into an answer; advances its script. */
  next(key, state, conversation, n) {
    const def = this.scenario.agents.get(key);
    const step = def.steps[state.next];
    const seed = `${this.scenario.name}|${key}|${n}`;
    if (!step) return { kind: 'turn', step: null, text: 'Done.', calls: [], after: 0, exhausted: true };
    if (step.kind === 'wait') {
      const waiting = this.waitAnswer(step, state, conversation, seed);
      if (waiting) return waiting;
      state.next++;
      return this.next(key, state, conversation, n);
    }
    if (step.kind === 'fail') {
      state.next++;
      return { ...step, step: state.next - 1, final: state.next === def.steps.length };
    }
    const loader = this.dialect.loadTools?.(step, conversation.tools, conversation.messages);
    if (loader) return { kind: 'turn', text: '', calls: [{ ...loader, id: idFor(this.dialect.callPrefix, `${seed}|load`) }], after: 50, step: state.next, loading: true };
    state.next++;
    const final = state.next === def.steps.length;
    const answer = this.build(step, seed, conversation);
    const finish = final && def.type !== 'main' && this.dialect.finish?.(answer.text, conversation);
    if (finish) Object.assign(answer, { text: '', calls: [...answer.calls, { ...finish, id: idFor(this.dialect.callPrefix, `${seed}|finish`) }] });
    return { ...answer, step: state.next - 1, final };
  }

  /**
   * The answer while a wait step holds: an interim text (with the CLI's
   * waiting calls, if it has any) while an awaited agent or task is out, then
   * once the CLI's closing calls for them, if it has any; null when the wait
   * is over.
   */
  waitAnswer(step, state, conversation, seed) {
    const tasks = step.keys.map((k) => {
      const launch = resultOf(conversation.messages, this.spawnCalls.get(k)) ?? '';
      return { key: k, kind: this.scenario.tasks.get(k) ?? 'agent', launch, agentId: this.dialect.agentIdFromLaunch(launch) };
    });
    const ids = (calls, tag) => calls.map((call, i) => ({ ...call, id: idFor(this.dialect.callPrefix, `${seed}|${tag}|${i}`) }));
    const missing = step.keys.filter((k) => !this.reported(k, conversation.messages));
    if (missing.length) {
      const text = typeof step.interim === 'function' ? step.interim(missing, step.keys, this.scenario) : step.interim;
      const calls = ids(this.dialect.waitCalls?.(tasks.filter((t) => missing.includes(t.key))) ?? [], 'wait');
      return { kind: 'turn', text, thinking: '', calls, after: 50, step: state.next, waiting: missing };
    }
    const closing = state.closed.has(state.next) ? [] : this.dialect.closeCalls?.(tasks) ?? [];
    if (!closing.length) return null;
    state.closed.add(state.next);
    return { kind: 'turn', text: '', thinking: '', calls: ids(closing, 'close'), after: 50, step: state.next, closing: true };
  }

  /** A turn step as an answer: text, thinking and the CLI's tool calls. */
  build(step, seed, conversation) {
    const say = step.parts.filter((p) => 'say' in p).map((p) => p.say).join('\n\n');
    const thinking = step.parts.filter((p) => 'think' in p).map((p) => p.think).join('\n\n');
    const ctx = {
      cwd: this.cwd,
      scenario: this.scenario,
      agentIdOf: (k) => this.agentIdOf(k, conversation.messages),
    };
    const launches = [];
    const calls = step.parts
      .filter((p) => p.action)
      .map((action, i) => {
        const id = idFor(this.dialect.callPrefix, `${seed}|${i}`);
        for (const key of [action.action === 'spawn' && action.key, action.task].filter(Boolean)) {
          this.spawnCalls.set(key, id);
          launches.push(key);
        }
        return { id, ...this.dialect.call(action, ctx) };
      });
    return { kind: 'turn', text: say, thinking, calls, after: step.after, ...(launches.length ? { launches } : {}) };
  }

  /** The CLI's id for subagent `key`, read from its launch result in `messages`. */
  agentIdOf(key, messages) {
    const call = this.spawnCalls.get(key);
    const text = call && resultOf(messages, call);
    return text ? this.dialect.agentIdFromLaunch(text) : null;
  }

  /** Has subagent `key` reported (finished, failed or been stopped) in `messages`? */
  reported(key, messages) {
    const call = this.spawnCalls.get(key);
    if (!call) return false;
    const launch = resultOf(messages, call);
    if (launch === null) return false;
    return this.dialect.settled({ launch, agentId: this.dialect.agentIdFromLaunch(launch), messages, def: this.scenario.agents.get(key) });
  }
}
