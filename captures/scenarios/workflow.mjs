import { agent, report, say, scenario, turn, waitFor, workflow, read } from '../lib/dsl.mjs';

export default scenario({
  name: 'workflow',
  title: 'A workflow of two phases',
  story: `The user asks for a workflow. The main agent runs one with two phases: three reviewers in
parallel (lexer, parser, evaluator), then one verifier that checks their findings. The CLI runs
the workflow's agents itself; the main agent waits for the workflow's notification and sums up.`,
  prompt: 'Use a workflow: review the lexer, parser and evaluator of parser-kit in parallel, then verify the findings.',
  main: [
    turn(
      say('Running a two-phase review workflow.'),
      workflow({
        key: 'review',
        name: 'parser-kit-review',
        description: 'Review the three modules of parser-kit, then verify the findings',
        phases: [
          { title: 'Review', keys: ['review-lexer', 'review-parser', 'review-eval'] },
          { title: 'Verify', keys: ['verify'] },
        ],
      }),
    ),
    waitFor(['review']),
    report(`## Summary

The workflow reviewed the three modules and verified the findings: one confirmed panic in the
lexer (\`1..2\`), nothing in the parser or evaluator.`),
  ],
  agents: {
    'review-lexer': agent({
      type: 'general-purpose',
      description: 'Review the lexer',
      prompt: 'Review src/lexer.rs of parser-kit for bugs; return your findings as a short list.',
      steps: [turn(read('src/lexer.rs'), { after: 600 }), report('- `src/lexer.rs:27`: `unwrap` on the number parse panics on `1..2`.', { after: 400 })],
    }),
    'review-parser': agent({
      type: 'general-purpose',
      description: 'Review the parser',
      prompt: 'Review src/parser.rs of parser-kit for bugs; return your findings as a short list.',
      steps: [turn(read('src/parser.rs'), { after: 800 }), report('- No bugs found in `src/parser.rs`.', { after: 300 })],
    }),
    'review-eval': agent({
      type: 'general-purpose',
      description: 'Review the evaluator',
      prompt: 'Review src/eval.rs of parser-kit for bugs; return your findings as a short list.',
      steps: [turn(read('src/eval.rs'), { after: 500 }), report('- No bugs found in `src/eval.rs`; `unreachable!` is truly unreachable.', { after: 300 })],
    }),
    verify: agent({
      type: 'general-purpose',
      description: 'Verify the findings',
      prompt: 'Verify the parser-kit review findings: is the lexer unwrap on "1..2" a real panic?',
      steps: [turn(read('src/lexer.rs'), { after: 500 }), report('Confirmed: `"1..2".parse::<f64>()` fails, so the lexer panics.', { after: 300 })],
    }),
  },
});
