import { agent, read, report, say, scenario, shell, spawn, turn, waitFor } from '../lib/dsl.mjs';

export default scenario({
  name: 'foreground',
  title: 'Foreground subagents the main agent waits on',
  story: `The main agent needs each answer before it can go on, so it runs its subagents in the
foreground: first an Explore agent finds where numbers are lexed; with that answer it launches
two foreground agents in one reply, one writing a failing test and one checking the docs, and
waits for both; then it sums up. Nothing runs in the background. (A CLI whose subagents always
run in the background launches them there and waits for each at once.)`,
  prompt: 'Find where parser-kit lexes numbers, then in parallel write a failing test for malformed numbers and check the README example; wait for each answer before going on.',
  main: [
    turn(say('First I need to know where numbers are lexed.'), spawn('locate')),
    waitFor(['locate']),
    turn(say('Numbers are lexed in `src/lexer.rs`. Now a failing test and a docs check, side by side.'), spawn('failing-test'), spawn('docs')),
    waitFor(['failing-test', 'docs']),
    report(`## Summary

- Numbers are lexed in \`src/lexer.rs\` (\`lex\`, the \`'0'..='9' | '.'\` arm).
- A failing test now pins the panic on \`1..2\`.
- The README example is right: \`1 + 2 * (3 - 4)\` is \`-1\`.`),
  ],
  agents: {
    locate: agent({
      type: 'Explore',
      description: 'Find the number lexing',
      prompt: 'Find the function in parser-kit that turns digit characters into number tokens; answer with file, function and line.',
      background: false,
      steps: [
        turn(read('src/lexer.rs'), { after: 700 }),
        report(`## Summary

Numbers are lexed by \`lex\` in \`src/lexer.rs\`, lines 18–30: the \`'0'..='9' | '.'\` arm collects
digits and dots, then calls \`digits.parse().unwrap()\`.`, { after: 500 }),
      ],
    }),
    'failing-test': agent({
      type: 'general-purpose',
      description: 'Write a failing test',
      prompt: 'Add a test to tests/parser_test.rs that shows parser-kit panicking on the input "1..2", and report the exact test you added.',
      background: false,
      steps: [
        turn(read('tests/parser_test.rs'), { after: 600 }),
        turn(shell('printf \'\\n#[test]\\n#[should_panic]\\nfn malformed_number() {\\n    parser_kit::parse("1..2").ok();\\n}\\n\' >> tests/parser_test.rs', { description: 'Append a failing test for malformed numbers' }), { after: 800 }),
        report(`## Summary

Added \`malformed_number\` to \`tests/parser_test.rs\`:

\`\`\`rust
#[test]
#[should_panic]
fn malformed_number() {
    parser_kit::parse("1..2").ok();
}
\`\`\`

It passes today because the lexer panics; flip it to an \`is_err()\` check once the lexer is fallible.`, { after: 400 }),
      ],
    }),
    docs: agent({
      type: 'general-purpose',
      description: 'Check the README example',
      prompt: 'Check that the example in the parser-kit README computes what it claims, by reading the evaluator.',
      background: false,
      steps: [
        turn(read('README.md'), read('src/eval.rs'), { after: 900 }),
        report(`## Summary

The README example is right: \`1 + 2 * (3 - 4)\` = \`1 + 2 * -1\` = \`-1\`, and \`eval\` applies
\`*\` before \`+\` because the parser nests products inside sums.`, { after: 600 }),
      ],
    }),
  },
});
