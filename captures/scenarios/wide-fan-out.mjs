import { agent, read, report, say, scenario, spawn, turn, waitFor } from '../lib/dsl.mjs';

/** The twelve lint rules checked at once, one agent each. */
const RULES = [
  ['unwrap', 'src/lexer.rs'],
  ['expect', 'src/parser.rs'],
  ['panic', 'src/eval.rs'],
  ['index', 'src/lexer.rs'],
  ['overflow', 'src/eval.rs'],
  ['division', 'src/eval.rs'],
  ['recursion', 'src/parser.rs'],
  ['clone', 'src/parser.rs'],
  ['naming', 'src/lib.rs'],
  ['docs', 'src/lib.rs'],
  ['tests', 'tests/parser_test.rs'],
  ['errors', 'src/parser.rs'],
];

const keyOf = (rule) => `rule-${rule}`;

const agents = Object.fromEntries(
  RULES.map(([rule, file], i) => [
    keyOf(rule),
    agent({
      type: i % 2 ? 'general-purpose' : 'Explore',
      description: `Check the ${rule} rule`,
      prompt: `Check parser-kit against the ${rule} lint rule (start with ${file}) and report what breaks it.`,
      background: true,
      steps: [
        turn(read(file), { after: 2500 + i * 150 }),
        report(`The ${rule} rule: ${i % 3 ? 'no finding' : `one finding in \`${file}\``}.`, { after: 300 }),
      ],
    }),
  ]),
);

export default scenario({
  name: 'wide-fan-out',
  title: 'Twelve checks launched at once',
  story: `The main agent launches twelve background checks in one reply, one per lint rule; each
reads a file for two to four seconds and reports one line. A CLI that runs fewer at once (qwen-code
runs ten background agents at a time) starts the eleventh and twelfth when two others end: their
launch and their start are apart. The main agent waits for all twelve and sums up.`,
  prompt: 'Check parser-kit against all twelve lint rules at once, one agent per rule.',
  main: [
    turn(say('Twelve checks at once, one per rule.'), ...RULES.map(([rule]) => spawn(keyOf(rule)))),
    waitFor(RULES.map(([rule]) => keyOf(rule)), { interim: 'The checks are at work; I will sum up when all twelve have reported.' }),
    report('## Summary\n\nAll twelve rules checked: findings for `unwrap`, `index`, `recursion` and `docs`, the rest clean.'),
  ],
  agents,
});
