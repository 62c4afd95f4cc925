import { agent, read, report, say, scenario, spawn, turn, waitFor } from '../lib/dsl.mjs';

export default scenario({
  name: 'session-fork',
  title: 'A session forked into a new one',
  story: `Run 1 (a new session with a chosen id): the main agent launches a reviewer in the
background and sums up its report. Run 2 resumes it by id as a fork (\`--fork-session\`): a new
session that starts with a copy of run 1's records, where the main agent asks a foreground helper
about the evaluator and answers. The first session is left as it was.`,
  prompt: 'Review the parser-kit lexer with one background reviewer.',
  main: [
    turn(say('One reviewer for the lexer, in the background.'), spawn('lexer-review')),
    waitFor(['lexer-review']),
    report('## Summary\n\nThe lexer review is in: `lex` unwraps number parsing.'),
  ],
  then: [
    {
      how: 'fork',
      prompt: 'In a fork of this review, also ask a helper whether the evaluator can divide by zero.',
      main: [
        turn(say('A helper for the evaluator.'), spawn('evaluator-helper')),
        waitFor(['evaluator-helper']),
        report('## Summary\n\nIn this fork: the evaluator divides by zero without a check; the lexer finding stands.'),
      ],
    },
  ],
  agents: {
    'lexer-review': agent({
      type: 'general-purpose',
      description: 'Review the lexer',
      prompt: 'Review src/lexer.rs of parser-kit for panics and report in one paragraph.',
      background: true,
      steps: [turn(read('src/lexer.rs'), { after: 500 }), report('`lex` unwraps `f64::from_str`: `1..2` panics.', { after: 300 })],
    }),
    'evaluator-helper': agent({
      type: 'Explore',
      description: 'Check division by zero',
      prompt: 'Check whether src/eval.rs of parser-kit can divide by zero.',
      background: false,
      steps: [turn(read('src/eval.rs'), { after: 400 }), report('`eval` divides without checking the divisor: `1/0` is `inf`.', { after: 200 })],
    }),
  },
});
