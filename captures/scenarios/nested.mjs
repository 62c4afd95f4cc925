import { agent, read, report, say, scenario, spawn, turn, waitFor } from '../lib/dsl.mjs';

export default scenario({
  name: 'nested',
  title: 'Subagents nested three deep',
  story: `The main agent hands an audit to a lead agent (depth 1, background). The lead splits it
between two workers it launches itself (depth 2), one for the lexer and one for the parser. The
lexer worker delegates a narrow question to a checker of its own (depth 3). Each level waits for
the level below and reports up; the main agent sums up when the lead reports.`,
  prompt: 'Audit parser-kit for panics; delegate it to a lead agent who splits the work as needed.',
  main: [
    turn(say('I will hand the audit to a lead agent.'), spawn('lead')),
    waitFor(['lead']),
    report(`## Summary

The audit found one reachable panic: \`lex\` unwraps the number parse (\`1..2\`). The parser
itself returns errors for every malformed token sequence.`),
  ],
  agents: {
    lead: agent({
      type: 'general-purpose',
      description: 'Lead the panic audit',
      prompt: 'Lead a panic audit of parser-kit: split it between a lexer worker and a parser worker, then merge their findings.',
      steps: [
        turn(say('Two workers: one for the lexer, one for the parser.'), spawn('lexer-worker'), spawn('parser-worker'), { after: 500 }),
        waitFor(['lexer-worker', 'parser-worker']),
        report(`## Summary

Merged findings of both workers:

1. **Lexer** — one reachable panic, \`digits.parse().unwrap()\` on \`1..2\` (confirmed by the checker).
2. **Parser** — no panics; every bad sequence becomes \`ParseError\`.`, { after: 600 }),
      ],
    }),
    'lexer-worker': agent({
      type: 'general-purpose',
      description: 'Audit the lexer',
      prompt: 'Audit src/lexer.rs of parser-kit for panics; get a checker to confirm any panic you suspect.',
      steps: [
        turn(read('src/lexer.rs'), { after: 700 }),
        turn(say('`unwrap` on the number parse looks reachable; asking a checker to confirm.'), spawn('checker'), { after: 400 }),
        waitFor(['checker']),
        report(`## Summary

One panic: \`digits.parse().unwrap()\` (line 27) on inputs like \`1..2\` — confirmed.`, { after: 500 }),
      ],
    }),
    'parser-worker': agent({
      type: 'general-purpose',
      description: 'Audit the parser',
      prompt: 'Audit src/parser.rs of parser-kit for panics and report each path with its input.',
      steps: [
        turn(read('src/parser.rs'), { after: 1100 }),
        report(`## Summary

No panics in \`src/parser.rs\`: \`atom\` maps a missing token to \`UnexpectedEnd\` and any other
stray token to \`Unexpected\`.`, { after: 600 }),
      ],
    }),
    checker: agent({
      type: 'Explore',
      description: 'Confirm the lexer panic',
      prompt: 'Confirm whether "1..2".parse::<f64>() fails in Rust, and so whether the parser-kit lexer panics on it.',
      steps: [
        turn(read('src/lexer.rs'), { after: 800 }),
        report(`## Summary

Confirmed: \`"1..2".parse::<f64>()\` is an \`Err\`, so \`unwrap\` at \`src/lexer.rs:27\` panics.`, { after: 400 }),
      ],
    }),
  },
});
