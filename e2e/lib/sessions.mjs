// Generated kandev sessions for benchmarks: turns of a prompt, tool calls, a
// wave of parallel subagents whose children interleave, and an agent answer.

const stamp = (n) => new Date(Date.UTC(2026, 7, 3, 10) + n * 1000).toISOString();

function message(id, n, turn, type, content, metadata = {}, author = 'agent') {
  return { id, session_id: 'sess-bench', task_id: 'task-bench', turn_id: turn, author_type: author,
    type, content, metadata, created_at: stamp(n), updated_at: stamp(n) };
}

/**
 * `count` messages (exactly), laid out in turns with subagent waves, ids
 * `<prefix><n>`, one second apart from `start` seconds after 10:00.
 */
export function session(count, prefix = 'm', start = 0) {
  const out = [];
  let n = start;
  let turn = 0;
  const push = (m) => { if (out.length < count) out.push(m); };
  while (out.length < count) {
    turn++;
    const t = `turn-${prefix}${turn}`;
    const id = () => `${prefix}${n}`;
    push(message(id(), n++, t, 'message', `Prompt ${turn}: review the change.`, {}, 'user'));
    for (let k = 0; k < 3; k++) {
      push(message(id(), n, t, 'tool_execute', `git diff --stat HEAD~${k}`, {
        tool_call_id: `tc-${prefix}${n}`, title: `git diff --stat HEAD~${k}`, status: 'complete',
        normalized: { kind: 'shell_exec', shell_exec: { command: 'git diff', output: { exit_code: 0 } } } }));
      n++;
    }
    const wave = [];
    for (let s = 0; s < 3; s++) {
      const tc = `tc-${prefix}${n}`;
      wave.push(tc);
      push(message(id(), n++, t, 'tool_call', `Reviewer ${s}`, {
        tool_call_id: tc, title: `Reviewer ${s}`, status: 'complete',
        normalized: { kind: 'subagent_task', subagent_task: {
          subagent_type: ['code-reviewer', 'test-supervisor', 'explorer'][s],
          description: `pass ${turn}.${s} over the diff`, prompt: 'Review it.', status: 'completed',
          result_text: `VERDICT: ${s === 1 ? 'REQUEST_CHANGES' : 'APPROVE'}\nDetails for pass ${turn}.${s}.`,
          duration_ms: 1000 * (30 + s), total_tokens: 12000 + s, tool_use_count: 4, model: 'claude-opus-4-8' } } }));
    }
    for (let c = 0; c < 12; c++) {
      const parent = wave[c % 3];
      push(message(id(), n, t, 'tool_read', `Read src/file${c}.rs`, {
        tool_call_id: `tc-${prefix}${n}`, parent_tool_call_id: parent, title: `Read src/file${c}.rs`, status: 'complete',
        normalized: { kind: 'read_file', read_file: { file_path: `src/file${c}.rs` } } }));
      n++;
    }
    push(message(id(), n++, t, 'message', `Turn ${turn} done: two approvals, one change request.`));
  }
  return out;
}
