// Small builders shared by the tests: conversations in the engine's shape.
export const user = (...texts) => ({ role: 'user', parts: texts.map((text) => ({ type: 'text', text })) });
export const assistant = (text, calls = []) => ({ role: 'assistant', parts: [{ type: 'text', text }, ...calls.map((c) => ({ type: 'call', ...c }))] });
export const results = (...rs) => ({ role: 'user', parts: rs.map(([id, text, isError = false]) => ({ type: 'result', id, text, isError })) });
/** A conversation as a wire parses it; agents' requests offer tools (a tool-less one is a Claude Code side request). */
export const conversation = (messages, tools = ['Agent', 'Bash']) => ({ model: 'claude-opus-5-5', system: '', tools, messages, stream: true, size: 100 });
