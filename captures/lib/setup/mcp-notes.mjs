#!/usr/bin/env node
// The `notes` MCP server the `mcp` scenario gives every CLI: a stdio server
// (newline-delimited JSON-RPC 2.0, the MCP stdio transport) with one tool,
// `lookup_note`, that answers from a fixed set of notes. Runs inside the
// capture's network namespace like the CLI that starts it; it opens no
// socket.
import { realpathSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

/** The notes, by topic. */
export const NOTES = {
  precedence: 'Products bind tighter than sums: `sum` calls `product`, which calls `atom`.',
  errors: 'Every failure of the parser is a `ParseError`; the lexer still unwraps numbers.',
};

/** The one tool, as `tools/list` describes it. */
export const LOOKUP_NOTE = {
  name: 'lookup_note',
  description: 'Look up the team note on a topic of parser-kit (precedence, errors).',
  inputSchema: { type: 'object', properties: { topic: { type: 'string', description: 'The topic' } }, required: ['topic'] },
};

/** The answer to one request (null for a notification, which gets none). */
export function answer(request) {
  const { id, method, params } = request;
  if (id === undefined || id === null) return null;
  const ok = (result) => ({ jsonrpc: '2.0', id, result });
  switch (method) {
    case 'initialize':
      return ok({ protocolVersion: params?.protocolVersion ?? '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'notes', version: '1.0.0' } });
    case 'ping':
      return ok({});
    case 'tools/list':
      return ok({ tools: [LOOKUP_NOTE] });
    case 'tools/call': {
      const topic = String(params?.arguments?.topic ?? '');
      const note = NOTES[topic];
      return ok(note ? { content: [{ type: 'text', text: note }] } : { content: [{ type: 'text', text: `No note on "${topic}".` }], isError: true });
    }
    default:
      return { jsonrpc: '2.0', id, error: { code: -32601, message: `Method not found: ${method}` } };
  }
}

/** Serves stdin to stdout until stdin closes. */
function serve() {
  const lines = createInterface({ input: process.stdin });
  lines.on('line', (line) => {
    if (!line.trim()) return;
    let request;
    try {
      request = JSON.parse(line);
    } catch {
      process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } })}\n`);
      return;
    }
    const reply = answer(request);
    if (reply) process.stdout.write(`${JSON.stringify(reply)}\n`);
  });
}

if (process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) serve();
