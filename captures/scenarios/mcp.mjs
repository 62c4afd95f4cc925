import { agent, mcp, read, report, say, scenario, spawn, turn, waitFor } from '../lib/dsl.mjs';

export default scenario({
  name: 'mcp',
  title: 'Tools of an MCP server, in the main agent and a subagent',
  story: `The user has an MCP server, \`notes\`, with one tool, \`lookup_note\`. The main agent looks
up the team's note on precedence, then launches a background agent that looks up the note on
errors and checks it against the parser. The main agent sums up.`,
  prompt: 'Check the team notes on parser-kit against the code.',
  setup: { mcpServers: ['notes'] },
  main: [
    turn(say('The team note on precedence first.'), mcp('notes', 'lookup_note', { topic: 'precedence' })),
    turn(say('An agent to check the note on errors.'), spawn('notes-check')),
    waitFor(['notes-check']),
    report('## Summary\n\nBoth notes hold: products bind tighter than sums, and parser failures are `ParseError`s.'),
  ],
  agents: {
    'notes-check': agent({
      type: 'general-purpose',
      description: 'Check the errors note',
      prompt: 'Look up the team note on errors in parser-kit and check it against src/parser.rs.',
      background: true,
      steps: [
        turn(mcp('notes', 'lookup_note', { topic: 'errors' }), { after: 300 }),
        turn(read('src/parser.rs'), { after: 400 }),
        report('The note holds: every parser failure is a `ParseError`.', { after: 300 }),
      ],
    }),
  },
});
