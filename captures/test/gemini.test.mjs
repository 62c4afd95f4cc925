import assert from 'node:assert/strict';
import { test } from 'node:test';
import { dialect } from '../lib/clis/gemini-cli.mjs';
import { answer, encodeTurn, parseRequest } from '../lib/wire/gemini.mjs';

const request = {
  systemInstruction: { parts: [{ text: 'You are a CLI agent.' }] },
  tools: [{ functionDeclarations: [{ name: 'invoke_agent', parametersJsonSchema: { type: 'object' } }, { name: 'complete_task', parametersJsonSchema: { type: 'object', properties: { result: { type: 'object', properties: { response: { type: 'string' } } }, wait_for_previous: { type: 'boolean' } } } }] }],
  contents: [
    { role: 'user', parts: [{ text: 'Review it.' }] },
    { role: 'model', parts: [{ text: 'hmm', thought: true }, { functionCall: { id: 'call_1', name: 'read_file', args: { file_path: '/w/a.rs' } } }, { functionCall: { name: 'glob', args: { pattern: '*.rs' } } }] },
    { role: 'user', parts: [{ functionResponse: { id: 'call_1', name: 'read_file', response: { output: 'fn main() {}' } } }, { functionResponse: { name: 'glob', response: { error: 'no match' } } }] },
  ],
};
const route = { api: 'gemini', model: 'gemini-2.5-pro', stream: true };

test('a generateContent request reads as a conversation: system instruction, declared tools with their schemas, thoughts, calls and responses', () => {
  const c = parseRequest(request, route);
  assert.equal(c.model, 'gemini-2.5-pro');
  assert.equal(c.system, 'You are a CLI agent.');
  assert.deepEqual(c.tools, ['invoke_agent', 'complete_task']);
  assert.ok(c.schemas.complete_task.properties.result);
  assert.deepEqual(c.messages[1].parts[0], { type: 'thinking', text: 'hmm' });
  assert.deepEqual(c.messages[2].parts[0], { type: 'result', id: 'call_1', name: 'read_file', text: 'fn main() {}', isError: false });
});

test('a call without an id gets one, and the response to it (same name, in order) gets the same one', () => {
  const c = parseRequest(request, route);
  const glob = c.messages[1].parts[2];
  assert.ok(glob.id);
  assert.deepEqual(c.messages[2].parts[1], { type: 'result', id: glob.id, name: 'glob', text: 'no match', isError: true });
});

test('a turn streams as GenerateContentResponse chunks: thought, text pieces, whole function calls with ids, STOP and usage last', () => {
  const chunks = encodeTurn({ thinking: 'Plan.', text: 'Two agents.', calls: [{ id: 'call_a', name: 'invoke_agent', input: { agent_name: 'generalist', prompt: 'x' } }] }, { model: 'gemini-2.5-pro', seed: 's', inputTokens: 30 });
  const parts = chunks.flatMap((c) => c.candidates[0].content.parts);
  assert.deepEqual(parts[0], { text: 'Plan.', thought: true });
  assert.equal(parts.filter((p) => typeof p.text === 'string' && !p.thought).map((p) => p.text).join(''), 'Two agents.');
  assert.deepEqual(parts.at(-1), { functionCall: { id: 'call_a', name: 'invoke_agent', args: { agent_name: 'generalist', prompt: 'x' } } });
  const last = chunks.at(-1);
  assert.equal(last.candidates[0].finishReason, 'STOP');
  assert.equal(last.usageMetadata.promptTokenCount, 30);
  assert.ok(chunks.slice(0, -1).every((c) => !c.candidates[0].finishReason));
});

test('the SSE body is data frames; a failure is the google.rpc status body, or a stream ending in an error frame', () => {
  const c = parseRequest(request, route);
  const ok = answer({ kind: 'turn', text: 'Hi', calls: [] }, c, { seed: 's' });
  assert.ok(ok.pieces.every((p) => p.startsWith('data: {') && p.endsWith('\r\n\r\n')));
  const http = answer({ kind: 'fail', mode: 'http', status: 500, message: 'boom' }, c, { seed: 's' });
  assert.equal(http.status, 500);
  assert.deepEqual(JSON.parse(http.pieces[0]), { error: { code: 500, message: 'boom', status: 'INTERNAL' } });
  const stream = answer({ kind: 'fail', mode: 'stream', message: 'Overloaded' }, c, { seed: 's' });
  assert.equal(JSON.parse(stream.pieces.at(-1).slice(6)).error.status, 'UNAVAILABLE');
});

test('gemini: a subagent\'s report becomes its complete_task call, shaped by the schema its request offers', () => {
  const c = parseRequest(request, route);
  assert.deepEqual(dialect.finish('## Summary\n\nDone.', c), { name: 'complete_task', input: { result: { response: '## Summary\n\nDone.' } } });
  const investigator = { ...c, schemas: { complete_task: { properties: { report: { properties: { SummaryOfFindings: {}, ExplorationTrace: {}, RelevantLocations: {} } } } } } };
  const call = dialect.finish('Found it.', investigator);
  assert.equal(call.input.report.SummaryOfFindings, 'Found it.');
  assert.deepEqual(call.input.report.ExplorationTrace, ['read_file {"file_path":"/w/a.rs"}', 'glob {"pattern":"*.rs"}']);
  assert.equal(dialect.finish('x', { ...c, schemas: {} }), null);
});

test('gemini: scenario types map to Gemini\'s agents and the workspace\'s project agents', () => {
  assert.equal(dialect.typeOf('Explore'), 'codebase_investigator');
  assert.equal(dialect.typeOf('general-purpose'), 'generalist');
  assert.equal(dialect.typeOf('Plan'), 'planner');
  assert.equal(dialect.typeOf('code-reviewer'), 'code-reviewer');
});
