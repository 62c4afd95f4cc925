import { agent, read, report, say, scenario, shell, spawn, think, turn, waitFor } from '../lib/dsl.mjs';

export default scenario({
  name: 'parallel-wave',
  title: 'A parallel wave of four reviewers',
  story: `The user asks for a review of the parser crate from four angles. The main agent
launches four subagents of different types in one reply, all in the background: an Explore
agent maps the crate, a code-reviewer checks error handling, a general-purpose agent runs the
tests, and a Plan agent drafts a refactoring plan. Each reads files or runs commands for a few
seconds and reports a multi-line markdown report opening with "## Summary". The main agent
waits for all four and sums up.`,
  prompt: 'Review the parser-kit crate from four angles at once: structure, error handling, tests, and a refactoring plan.',
  main: [
    turn(
      think('Four independent reviews: launch them together so they run in parallel.'),
      say('I will run four reviews of parser-kit in parallel.'),
      spawn('map'),
      spawn('errors'),
      spawn('tests'),
      spawn('plan'),
    ),
    waitFor(['map', 'errors', 'tests', 'plan'], { interim: 'The reviewers are at work; I will sum up when all four have reported.' }),
    report(`## Summary

All four reviews are in. parser-kit is small and readable, but it panics on malformed numbers.

- **Structure:** three modules with one job each (lexer, parser, eval).
- **Errors:** \`lex\` unwraps \`f64::from_str\`; \`1..2\` panics instead of returning a \`ParseError\`.
- **Tests:** 2 tests pass; nothing covers errors.
- **Plan:** make the lexer fallible first, then add error tests.`),
  ],
  agents: {
    map: agent({
      type: 'Explore',
      description: 'Map the crate structure',
      prompt: 'Map the structure of parser-kit: list its modules, what each exports, and how they depend on each other. Report in markdown.',
      steps: [
        turn(read('README.md'), { after: 600 }),
        turn(read('src/lib.rs'), read('src/parser.rs'), { after: 900 }),
        report(`## Summary

parser-kit has three modules with one job each.

| module | exports | uses |
|---|---|---|
| \`lexer\` | \`Token\`, \`lex\` | – |
| \`parser\` | \`Expr\`, \`ParseError\`, \`parse\` | \`lexer\` |
| \`eval\` | \`eval\` | \`parser\`, \`lexer\` |

\`lib.rs\` re-exports \`parse\`, \`eval\`, \`Expr\` and \`ParseError\`.`, { after: 700 }),
      ],
    }),
    errors: agent({
      type: 'code-reviewer',
      description: 'Review error handling',
      prompt: 'Review how parser-kit handles malformed input: find every panic path in src/ and say which inputs reach it.',
      steps: [
        turn(shell('grep -n "unwrap\\|unreachable\\|panic" -r src', { description: 'Find panic paths in the sources' }), { after: 800 }),
        turn(read('src/lexer.rs'), { after: 1200 }),
        report(`## Summary

Two panic paths; one is reachable from user input.

1. \`src/lexer.rs:27\` — \`digits.parse().unwrap()\` panics on \`1..2\` or \`.\`: **reachable**.
2. \`src/eval.rs:16\` — \`unreachable!\` on a non-operator token: not reachable, the parser only builds binary nodes from operators.

Suggested fix: make \`lex\` return \`Result<Vec<Token>, ParseError>\`.`, { after: 600 }),
      ],
    }),
    tests: agent({
      type: 'general-purpose',
      description: 'Run and assess the tests',
      prompt: 'Run the parser-kit test suite if a toolchain is available, otherwise read the tests, and assess what they cover.',
      steps: [
        turn(shell('cargo test --offline 2>&1 | tail -5 || true', { description: 'Run the test suite' }), { after: 1500 }),
        turn(read('tests/parser_test.rs'), { after: 700 }),
        report(`## Summary

The suite has 2 tests, both on precedence and parentheses.

- Covered: \`+\`/\`*\` precedence, parentheses.
- Not covered: errors (\`ParseError::UnexpectedEnd\`, \`Unexpected\`), division, unary minus.

Add one test per \`ParseError\` variant before changing the lexer.`, { after: 500 }),
      ],
    }),
    plan: agent({
      type: 'Plan',
      description: 'Plan the lexer refactor',
      prompt: 'Draft a step-by-step plan to make the parser-kit lexer fallible without breaking the public API more than needed.',
      steps: [
        turn(read('src/lexer.rs'), read('src/parser.rs'), { after: 1000 }),
        report(`## Summary

A three-step plan; the public \`parse\` signature does not change.

1. Add \`ParseError::BadNumber(String)\`.
2. Make \`lex\` return \`Result<Vec<Token>, ParseError>\` and use \`?\` in \`parse\`.
3. Add tests for \`1..2\`, \`.\` and \`()\`.

Risk: low; \`lex\` is not re-exported.`, { after: 900 }),
      ],
    }),
  },
});
