// A minimal ACP client (Agent Client Protocol: JSON-RPC 2.0, one message a
// line, over the agent's stdio). It initializes, opens a session, sends the
// scenario's prompt, allows every permission request, and records every frame
// in both directions, as sent, one JSON object a line.
import { createInterface } from 'node:readline';

/** The ACP protocol version the client asks for. */
const PROTOCOL_VERSION = 1;

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
 * for `settleMs` of quiet. Resolves to the recorded frames (JSONL); the agent
 * is then asked to exit (stdin closed). `onFrame(direction, frame)` sees each.
 */
export function driveAcp(child, { prompt, cwd, mode = null, finished = () => true, settleMs = 1500, idleMs = 60_000, onFrame = () => {} }) {
  const frames = [];
  let nextId = 0;
  const pending = new Map();
  const record = (direction, frame) => {
    frames.push(JSON.stringify(frame));
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
  const quiet = async () => {
    const idle = () => Date.now() - lastFrameAt;
    while (!(finished() && idle() >= settleMs) && idle() < idleMs) await new Promise((r) => setTimeout(r, 100));
  };
  const turn = (async () => {
    await request('initialize', {
      protocolVersion: PROTOCOL_VERSION,
      clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
      clientInfo: { name: 'taskview-captures', version: '1' },
    });
    const session = await request('session/new', { cwd, mcpServers: [] });
    if (mode) await request('session/set_mode', { sessionId: session.sessionId, modeId: mode });
    const result = await request('session/prompt', { sessionId: session.sessionId, prompt: [{ type: 'text', text: prompt }] });
    await quiet();
    return result;
  })();
  return Promise.race([turn.then(() => 'done', (err) => `failed: ${err.message}`), exited.then(() => 'exited')]).then((outcome) => {
    child.stdin.end();
    return { outcome, frames: `${frames.join('\n')}\n` };
  });
}
