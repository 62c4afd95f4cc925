import { agent, read, report, say, scenario, spawn, turn, waitFor } from '../lib/dsl.mjs';

export default scenario({
  name: 'deep-wave',
  title: 'A depth-3 tree with background launches inside subagents',
  story: `The main agent launches two leads in the background: one for the lexer, one for the
parser. The lexer lead launches two background checkers of its own and one foreground worker;
the worker delegates a narrow question to a foreground helper (depth 3). The parser lead runs a
foreground worker and a background checker, which launches a background prober of its own
(depth 3). Every background result reaches the agent that launched it; each level
waits for the level below and reports up; the main agent sums up when both leads report.`,
  prompt: 'Audit parser-kit for panics with two leads, lexer and parser, who delegate as deep as they need.',
  main: [
    turn(say('Two leads, one per module, both in the background.'), spawn('lexer-lead'), spawn('parser-lead')),
    waitFor(['lexer-lead', 'parser-lead'], { interim: 'Both leads are at work; I will sum up when they report.' }),
    report(`## Summary

Both leads reported: one reachable panic in the lexer (\`1..2\`), none in the parser.`),
  ],
  agents: {
    'lexer-lead': agent({
      type: 'general-purpose',
      description: 'Lead the lexer audit',
      prompt: 'Lead the panic audit of src/lexer.rs: two background checkers and one foreground worker.',
      background: true,
      steps: [
        turn(say('Two checkers in the background, one worker in the foreground.'), spawn('number-checker'), spawn('ident-checker'), spawn('lexer-worker'), { after: 300 }),
        waitFor(['number-checker', 'ident-checker', 'lexer-worker'], { interim: 'Waiting for the checkers.' }),
        report(`Lexer lead: one panic, \`digits.parse().unwrap()\` on \`1..2\`.

Identifiers are safe; the worker and its helper agree.`, { after: 300 }),
      ],
    }),
    'number-checker': agent({
      type: 'Explore',
      description: 'Check number lexing',
      prompt: 'Check whether number lexing in src/lexer.rs can panic.',
      background: true,
      steps: [turn(read('src/lexer.rs'), { after: 600 }), report('Number lexing panics on `1..2`: `unwrap` at line 27.', { after: 300 })],
    }),
    'ident-checker': agent({
      type: 'Explore',
      description: 'Check identifier lexing',
      prompt: 'Check whether identifier lexing in src/lexer.rs can panic.',
      background: true,
      steps: [turn(read('src/lexer.rs'), { after: 900 }), report('Identifier lexing cannot panic.', { after: 300 })],
    }),
    'lexer-worker': agent({
      type: 'general-purpose',
      description: 'Trace the lexer entry points',
      prompt: 'Trace every entry point of src/lexer.rs; ask a helper about the standard library.',
      background: false,
      steps: [
        turn(read('src/lib.rs'), { after: 300 }),
        turn(say('One question for a helper.'), spawn('std-helper'), { after: 200 }),
        waitFor(['std-helper'], { interim: 'Waiting for the helper.' }),
        report('Lexer worker: `lex` is the only entry point; it reaches the `unwrap`.', { after: 300 }),
      ],
    }),
    'std-helper': agent({
      type: 'Explore',
      description: 'Confirm the float parse error',
      prompt: 'Confirm that "1..2".parse::<f64>() is an Err in Rust.',
      background: false,
      steps: [turn(read('src/lexer.rs'), { after: 400 }), report('Confirmed: `"1..2".parse::<f64>()` is an `Err`.', { after: 200 })],
    }),
    'parser-lead': agent({
      type: 'general-purpose',
      description: 'Lead the parser audit',
      prompt: 'Lead the panic audit of src/parser.rs: one foreground worker and one background checker.',
      background: true,
      steps: [
        turn(say('A worker in the foreground, a checker in the background.'), spawn('parser-worker'), spawn('error-checker'), { after: 300 }),
        turn(say('Reading the parser while the checker works.'), read('src/parser.rs'), { after: 3500 }),
        waitFor(['parser-worker', 'error-checker'], { interim: 'Waiting for the checker.' }),
        report('Parser lead: no panics; every bad sequence becomes `ParseError`.', { after: 300 }),
      ],
    }),
    'parser-worker': agent({
      type: 'Explore',
      description: 'Walk the parser paths',
      prompt: 'Walk every path of src/parser.rs and say whether each returns a Result.',
      background: false,
      steps: [turn(read('src/parser.rs'), { after: 400 }), report('Parser worker: every path returns a `Result`.', { after: 300 })],
    }),
    'error-checker': agent({
      type: 'general-purpose',
      description: 'Check the error type',
      prompt: 'Check that ParseError covers every failure of src/parser.rs; launch a background prober for the atom rule.',
      background: true,
      steps: [
        turn(read('src/parser.rs'), spawn('atom-prober'), { after: 300 }),
        // A background agent whose turn ends is done: it keeps working (a
        // slow read) until the prober's notification is queued for it.
        turn(say('Reading the error type while the prober works.'), read('src/lib.rs'), { after: 1500 }),
        waitFor(['atom-prober'], { interim: 'Waiting for the prober.' }),
        report('`ParseError` covers every failure; the prober agrees.', { after: 200 }),
      ],
    }),
    'atom-prober': agent({
      type: 'Explore',
      description: 'Probe the atom rule',
      prompt: 'Probe the atom rule of src/parser.rs with a missing token.',
      background: true,
      steps: [turn(read('src/parser.rs'), { after: 500 }), report('The atom rule maps a missing token to `UnexpectedEnd`.', { after: 200 })],
    }),
  },
});
