#!/usr/bin/env node
// The PreToolUse hook the `hooks` scenario installs: `hook-guard.mjs
// <pattern> <reason>` reads the hook's input (JSON on stdin, the tool call the
// CLI is about to make) and, when it contains `pattern`, blocks the call the
// way Claude Code, qwen-code and Codex all read a hook's refusal: the reason
// on stderr and exit status 2. Anything else passes (exit 0).
const [pattern, reason] = process.argv.slice(2);
let input = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => (input += chunk));
process.stdin.on('end', () => {
  if (pattern && input.includes(pattern)) {
    process.stderr.write(`${reason}\n`);
    process.exit(2);
  }
  process.exit(0);
});
