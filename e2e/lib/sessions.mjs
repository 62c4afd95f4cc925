// Generated kandev sessions for benchmarks: turns of a prompt, tool calls, a
// wave of parallel subagents whose children interleave, and an agent answer;
// a fan-out (docs/behaviour.md §8); one of every row kind (the XSS corpus, axe checks).

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

/**
 * A fan-out of exactly `count` messages (docs/behaviour.md §8): a prompt, `subagents`
 * subagents started in parallel (ids `sa<i>`), `nested` of them (every 13th,
 * from the 5th) with a nested subagent `nested<k>`, and children (`c<j>`)
 * interleaved among them, each child's text unique (`needle <parent> <j>`).
 * Subagent `i` is running when `i % 9 == 4` (status `running`, so it runs in
 * a static file), failed when `i % 7 == 3`, else complete, with
 * `10000 + 500 i` tokens. Returns `{messages, subagents: [{id, parent,
 * status, tokens}] in start order}`.
 */
export function fanOut(count, subagents = 40, nested = 3) {
  const messages = [message('u', 0, 't1', 'message', 'Fan out over the codebase.', {}, 'user')];
  const roster = [];
  const statusOf = (i) => (i % 9 === 4 ? 'running' : i % 7 === 3 ? 'failed' : 'completed');
  const parents = Array.from({ length: nested }, (_, k) => 5 + 13 * k);
  for (let i = 0; i < subagents; i++) {
    const status = statusOf(i);
    const done = status !== 'running';
    const tokens = done ? 10000 + 500 * i : undefined;
    messages.push(message(`sa${i}`, 1 + i, 't1', 'tool_call', `Reviewer ${i}`, {
      tool_call_id: `tc-sa${i}`, title: `Reviewer ${i}`,
      status: { running: 'running', failed: 'error', completed: 'complete' }[status],
      normalized: { kind: 'subagent_task', subagent_task: {
        subagent_type: i % 2 ? 'researcher' : 'code-reviewer', description: `part ${i} of the codebase`,
        prompt: `Look at part ${i}.`, status: done ? status : 'started',
        ...(done ? { result_text: `Verdict for part ${i}`, duration_ms: 60000 + 1000 * i, total_tokens: tokens,
          model: 'claude-opus-4-8' } : {}) } } }));
    roster.push({ id: `sa${i}`, parent: null, status, tokens });
    const k = parents.indexOf(i);
    if (k >= 0) {
      messages.push(message(`nested${k}`, 1 + i, 't1', 'tool_call', `Explorer ${k}`, {
        tool_call_id: `tc-nested${k}`, parent_tool_call_id: `tc-sa${i}`, title: `Explorer ${k}`, status: 'complete',
        normalized: { kind: 'subagent_task', subagent_task: { subagent_type: 'explorer', description: `dig ${k}`,
          status: 'completed', total_tokens: 1000 * (k + 1), result_text: 'found it' } } }));
      roster.push({ id: `nested${k}`, parent: `sa${i}`, status: 'completed', tokens: 1000 * (k + 1) });
    }
  }
  const parentsOfChildren = [...roster.map((r) => r.id)];
  for (let j = 0; messages.length < count; j++) {
    const parent = parentsOfChildren[j % parentsOfChildren.length];
    messages.push(message(`c${j}`, 100 + j, 't1', 'tool_read', `needle ${parent} ${j}: Read src/part${j}.rs`, {
      tool_call_id: `tc-c${j}`, parent_tool_call_id: `tc-${parent}`, title: `Read src/part${j}.rs`, status: 'complete',
      normalized: { kind: 'read_file', read_file: { file_path: `src/part${j}.rs` } } }));
  }
  return { messages, subagents: roster };
}

/**
 * Messages of every row kind, with text `v` in every field (index `i` keeps
 * ids apart; the XSS corpus and the accessibility checks use it). Top-level rows, in
 * order: user text; one group (two thoughts and five tool calls); agent text;
 * three subagent cards (markdown result with a generic child, a thinking child
 * and a nested subagent; a typed conclusion; a `found: false` conclusion); a
 * todo list; a permission request; a clarification request; a status line; an
 * error line; an unknown type; an unreadable element; an orphan card (whose
 * message id and missing parent id hold the vector).
 */
export function everyRowKind(i, v) {
  const turn = `turn-${i}`;
  const at = new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString();
  const base = (id, type, author, extra = {}) => ({
    id: `x${i}-${id}`, session_id: 'sess-xss', task_id: 'task-xss', turn_id: turn, author_type: author, type,
    created_at: at, updated_at: at, ...extra,
  });
  const tool = (id, type, metadata) => base(id, type, 'agent', {
    content: v, metadata: { tool_call_id: `tc-x${i}-${id}`, title: v, status: 'complete', result: v, ...metadata },
  });
  const subagent = (id, resultText, extra = {}) => tool(id, 'tool_call', {
    normalized: { kind: 'subagent_task', subagent_task: {
      subagent_type: v, description: `Review ${v}`, prompt: v, status: 'completed', agent_id: v, model: v,
      child_session_id: v, duration_ms: 1500, total_tokens: 1234, tool_use_count: 7, result_text: resultText,
    } },
    ...extra,
  });
  const card = `tc-x${i}-card`;
  const nested = `tc-x${i}-nested`;
  return [
    base('user', 'message', 'user', { content: v }),
    base('think-long', 'thinking', 'agent', { content: `${v}\n${v}`, metadata: { thinking: `${v}\n${v}` } }),
    base('think-short', 'thinking', 'agent', { content: v }),
    tool('tool', 'tool_call', {}),
    tool('exec', 'tool_execute', { status: 'error', normalized: { kind: 'shell_exec', shell_exec: {
      command: v, description: v, output: { exit_code: 1, stdout: v, stderr: v } } } }),
    tool('read', 'tool_read', { normalized: { kind: 'read_file', read_file: { file_path: v, output: { content: v } } } }),
    tool('edit', 'tool_edit', { normalized: { kind: 'modify_file', modify_file: {
      file_path: v, mutations: [{ type: 'patch', file_path: v, diff: v }] } } }),
    tool('search', 'tool_search', { normalized: { kind: 'code_search', code_search: { query: v, pattern: v } } }),
    base('agent', 'message', 'agent', { content: v }),
    subagent('card', v),
    tool('card-child', 'tool_call', { parent_tool_call_id: card }),
    base('card-thought', 'thinking', 'agent', { content: v, metadata: { parent_tool_call_id: card } }),
    subagent('nested', v, { parent_tool_call_id: card }),
    tool('nested-child', 'tool_execute', { parent_tool_call_id: nested, normalized: { kind: 'shell_exec',
      shell_exec: { command: v, output: { exit_code: 0, stdout: v } } } }),
    subagent('conclusion', JSON.stringify({ verdict: v, [v]: v, details: { note: v, list: [v] } })),
    subagent('no-conclusion', JSON.stringify({ found: false, reason: v })),
    base('todo', 'todo', 'agent', { content: v, metadata: { todos: [{ text: v, status: 'completed' },
      { content: v, status: 'pending' }, v] } }),
    base('permission', 'permission_request', 'agent', { content: v, metadata: {
      title: v, status: v, action_details: { description: v }, options: [v, { name: v }, { label: v }] } }),
    base('question', 'clarification_request', 'agent', { content: v, metadata: { question: v, options: [v] } }),
    base('status', 'status', 'agent', { content: v }),
    base('error', 'error', 'agent', { content: v }),
    base('unknown', `custom_${i}`, 'agent', { content: v }),
    v, // an element that is not a message: an unreadable row showing its raw text
    // ids are text too: the orphan's own id and its missing parent's id hold the vector
    { ...tool('orphan', 'tool_call', { parent_tool_call_id: `x${i}-gone-${v}` }), id: `x${i}-orphan-${v}` },
  ];
}
