import { agent, read, report, say, scenario, shell, spawn, turn, waitFor } from '../lib/dsl.mjs';

export default scenario({
  name: 'interrupted',
  title: 'The CLI interrupted mid-wave',
  story: `The main agent launches two subagents in one reply: one profiles the lexer, one audits the
tests. Both read a file, then start a step the model takes a minute to answer. Two seconds after both
made their first request the user presses Ctrl-C (the harness sends the CLI SIGINT): nobody reports,
and the files just stop (Claude Code exits at once and writes no trace of it; qwen-code dies and its
sidecars still say "running").`,
  prompt: 'Profile the parser-kit lexer and audit its tests, in parallel.',
  interrupt: { whileRunning: ['profile', 'audit'], after: 2000 },
  main: [
    turn(say('Profiling and auditing in parallel.'), spawn('profile'), spawn('audit')),
    waitFor(['profile', 'audit']),
    report('## Summary\n\nNever reached: the CLI is interrupted first.'),
  ],
  agents: {
    profile: agent({
      type: 'general-purpose',
      description: 'Profile the lexer',
      prompt: 'Profile the parser-kit lexer on a long input and name the slowest function.',
      steps: [
        turn(read('src/lexer.rs'), { after: 300 }),
        turn(shell('echo profiling the lexer', { description: 'Profile the lexer' }), { after: 60_000 }),
        report('## Summary\n\nNever reached.', { after: 300 }),
      ],
    }),
    audit: agent({
      type: 'general-purpose',
      description: 'Audit the tests',
      prompt: 'Audit the parser-kit tests and list what they do not cover.',
      steps: [
        turn(read('tests/parser_test.rs'), { after: 300 }),
        turn(read('src/parser.rs'), { after: 60_000 }),
        report('## Summary\n\nNever reached.', { after: 300 }),
      ],
    }),
  },
});
