import { agent, read, report, say, scenario, shell, spawn, turn, waitFor } from '../lib/dsl.mjs';

export default scenario({
  name: 'fork',
  title: 'Forks of the main agent',
  story: `The main agent reads the parser itself, then forks twice: each fork inherits the whole
conversation so far and takes one follow-up (one checks operator precedence against the tests,
one drafts the doc comment for \`parse\`). Each fork runs a tool and reports; the main agent
waits for both and sums up.`,
  prompt: 'Read the parser of parser-kit, then fork yourself to check precedence and to draft the parse doc comment.',
  main: [
    turn(say('Reading the parser first, so the forks inherit it.'), read('src/parser.rs')),
    turn(say('Forking twice.'), spawn('precedence'), spawn('doc-comment')),
    waitFor(['precedence', 'doc-comment']),
    report(`## Summary

- Precedence is right and tested: products nest inside sums.
- Drafted doc comment for \`parse\`: "Parses \`text\` into an expression tree; the whole input must be consumed."`),
  ],
  agents: {
    precedence: agent({
      fork: true,
      description: 'Check precedence',
      prompt: 'Fork task: check that the precedence in the parser you just read matches the tests in tests/parser_test.rs.',
      steps: [
        turn(read('tests/parser_test.rs'), { after: 700 }),
        report(`## Summary

Precedence matches the tests: \`sum\` calls \`product\`, so \`1 + 2 * 3\` is \`7\` as \`precedence\` expects.`, { after: 500 }),
      ],
    }),
    'doc-comment': agent({
      fork: true,
      description: 'Draft the parse doc comment',
      prompt: 'Fork task: draft a better doc comment for the parse function you just read, covering errors.',
      steps: [
        turn(shell('grep -n "pub fn parse" src/parser.rs', { description: 'Find the parse function' }), { after: 600 }),
        report(`## Summary

Proposed:

\`\`\`rust
/// Parses \`text\` into an expression tree; the whole input must be consumed.
/// Fails with \`UnexpectedEnd\` or \`Unexpected(token)\`.
\`\`\``, { after: 500 }),
      ],
    }),
  },
});
