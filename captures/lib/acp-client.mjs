// A minimal ACP client (Agent Client Protocol: JSON-RPC 2.0, one message a
// line, over the agent's stdio). It initializes, opens a session, sends the
// scenario's prompt, allows every permission request, and records every frame
// in both directions, as sent, one JSON object a line.
import { createInterface } from 'node:readline';

/** The ACP protocol version the client asks for. */
const PROTOCOL_VERSION = 1;

/** What a turn's race yields when the harness interrupts it. */
const INTERRUPTED = Symbol('interrupted');

/**
 * The option a permission request is answered with: allow once (so every
 * later call asks again, and no rule is saved), else allow always, else the first.
 */
export function allowOption(options = []) {
  return options.find((o) => o.kind === 'allow_once') ?? options.find((o) => o.kind === 'allow_always') ?? options[0];
}

/**
 * Drives an ACP agent over `child`'s stdio through one prompt turn of
 * `prompt` in `cwd`, first switching the session to `mode` if given
 * (`session/set_mode`). The agent may go on after the prompt's response (a
 * background result starts a turn of its own), so the client waits until
 * `finished()` says the story is over (or nothing came for `idleMs`), then
 * for `settleMs` of quiet. Resolves to `{ outcome, frames, sessionId }`:
 * the recorded frames (JSONL) and the session's id; the agent is then asked
 * to exit (stdin closed). `onFrame(direction, frame)` sees each.
 *
 * `open` says which session the turn runs in (a client restarted after a
 * run goes on with an earlier session): `{ how: 'new' }` (`session/new`),
 * `{ how: 'resume', sessionId }` (`session/resume`: the agent restores the
 * session and replays nothing, as kandev does when the agent offers it),
 * `{ how: 'load', sessionId }` (`session/load`: the agent replays the
 * session's history as `session/update`s first), or `{ how: 'latest' }`
 * (`session/list` in `cwd`, then `session/load` of the newest, as a client
 * reopening its latest conversation). `needsCommand` names a command the
 * agent must offer (`available_commands_update`) before the prompt is sent.
 *
 * `interrupt` (a promise) interrupts the turn when it resolves, as a client
 * does: the `session/cancel` notification, then the prompt's answer awaited
 * for at most `cancelWaitMs` and `settleMs` of quiet for the updates the
 * agent had queued. The outcome is `done` only when the prompt was answered
 * `stopReason: "cancelled"`.
 */
export function driveAcp(child, { prompt, cwd, mode = null, open = { how: 'new' }, needsCommand = null, finished = () => true, interrupt = null, settleMs = 1500, idleMs = 60_000, commandWaitMs = 15_000, cancelWaitMs = 30_000, onFrame = () => {} }) {
  const frames = [];
  let nextId = 0;
  const pending = new Map();
  const offered = new Set();
  const record = (direction, frame) => {
    frames.push(JSON.stringify(frame));
    const update = frame.method === 'session/update' ? frame.params?.update : null;
    if (update?.sessionUpdate === 'available_commands_update') for (const c of update.availableCommands ?? []) offered.add(c.name);
    onFrame(direction, frame);
  };
  const send = (frame) => {
    record('out', frame);
    child.stdin.write(`${JSON.stringify(frame)}\n`);
  };
  const request = (method, params) =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve, reject });
      send({ jsonrpc: '2.0', id, method, params });
    });
  let lastFrameAt = Date.now();
  const answer = (frame) => {
    if (frame.method === 'session/request_permission') {
      const option = allowOption(frame.params?.options);
      send({ jsonrpc: '2.0', id: frame.id, result: { outcome: option ? { outcome: 'selected', optionId: option.optionId } : { outcome: 'cancelled' } } });
    } else {
      send({ jsonrpc: '2.0', id: frame.id, error: { code: -32601, message: `the capture client does not implement ${frame.method}` } });
    }
  };
  createInterface({ input: child.stdout }).on('line', (line) => {
    if (!line.trim()) return;
    let frame;
    try {
      frame = JSON.parse(line);
    } catch {
      frames.push(JSON.stringify({ unparsed: line }));
      return;
    }
    lastFrameAt = Date.now();
    record('in', frame);
    if (frame.method && frame.id !== undefined) answer(frame);
    else if (frame.id !== undefined && pending.has(frame.id)) {
      const { resolve, reject } = pending.get(frame.id);
      pending.delete(frame.id);
      if (frame.error) reject(Object.assign(new Error(frame.error.message), { rpc: frame.error }));
      else resolve(frame.result);
    }
  });
  const exited = new Promise((resolve) => child.on('exit', resolve));
  const quiet = async (done = finished) => {
    const idle = () => Date.now() - lastFrameAt;
    while (!(done() && idle() >= settleMs) && idle() < idleMs) await new Promise((r) => setTimeout(r, 100));
  };
  // Resolves to INTERRUPTED once the harness interrupts (never without `interrupt`).
  const interrupted = interrupt ? interrupt.then(() => INTERRUPTED) : new Promise(() => {});
  let sessionId = open.sessionId ?? null;
  /** Sends `session/cancel`, awaits the prompt's answer (bounded), then quiet for the updates still queued. */
  const cancelTurn = async (answered) => {
    send({ jsonrpc: '2.0', method: 'session/cancel', params: { sessionId } });
    let timer;
    const late = new Promise((resolve) => (timer = setTimeout(resolve, cancelWaitMs, null)));
    const result = await Promise.race([answered, late]).finally(() => clearTimeout(timer));
    if (!result) throw new Error(`the prompt was not answered within ${cancelWaitMs} ms of session/cancel`);
    await quiet(() => true);
    if (result.stopReason !== 'cancelled') throw new Error(`the prompt was answered "${result.stopReason}" after session/cancel`);
  };
  const turn = (async () => {
    await request('initialize', {
      protocolVersion: PROTOCOL_VERSION,
      clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
      clientInfo: { name: 'taskview-captures', version: '1' },
    });
    sessionId = await openSession(request, open, cwd);
    if (mode) await request('session/set_mode', { sessionId, modeId: mode });
    if (needsCommand) {
      const asked = Date.now();
      while (!offered.has(needsCommand) && Date.now() - asked < commandWaitMs) await new Promise((r) => setTimeout(r, 100));
      if (!offered.has(needsCommand)) throw new Error(`the agent offers no "${needsCommand}" command (offered: ${[...offered].join(', ') || 'none'})`);
    }
    const answered = request('session/prompt', { sessionId, prompt: [{ type: 'text', text: prompt }] });
    if ((await Promise.race([answered, interrupted])) === INTERRUPTED) return cancelTurn(answered);
    if ((await Promise.race([quiet(), interrupted])) === INTERRUPTED) throw new Error('interrupted after the prompt had been answered');
  })();
  return Promise.race([turn.then(() => 'done', (err) => `failed: ${err.message}`), exited.then(() => 'exited')]).then((outcome) => {
    child.stdin.end();
    return { outcome, frames: `${frames.join('\n')}\n`, sessionId };
  });
}

/** Opens the session a turn runs in (see driveAcp's `open`); resolves to its id. */
async function openSession(request, open, cwd) {
  if (open.how === 'new') return (await request('session/new', { cwd, mcpServers: [] })).sessionId;
  if (open.how === 'resume') {
    await request('session/resume', { sessionId: open.sessionId, cwd, mcpServers: [] });
    return open.sessionId;
  }
  let sessionId = open.sessionId;
  if (open.how === 'latest') {
    const { sessions = [] } = await request('session/list', { cwd });
    const newest = [...sessions].sort((a, b) => String(b.updatedAt ?? '').localeCompare(String(a.updatedAt ?? '')))[0];
    if (!newest) throw new Error(`session/list found no session in ${cwd}`);
    sessionId = newest.sessionId;
  } else if (open.how !== 'load') throw new Error(`unknown way to open a session: ${open.how}`);
  await request('session/load', { sessionId, cwd, mcpServers: [] });
  return sessionId;
}
