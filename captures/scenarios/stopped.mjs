import { agent, read, report, say, scenario, shell, spawn, stop, turn, waitFor } from '../lib/dsl.mjs';

export default scenario({
  name: 'stopped',
  title: 'A subagent stopped by its parent',
  story: `The main agent launches two background subagents: a quick one that counts the tests,
and a long benchmark. Once the quick one has reported, the benchmark is still running, so the
main agent stops it, waits for the stop to be confirmed and reports without it.`,
  prompt: 'Count the parser-kit tests and benchmark the evaluator; do not wait long for the benchmark.',
  main: [
    turn(say('Counting tests and starting the benchmark.'), spawn('count'), spawn('benchmark')),
    waitFor(['count']),
    turn(say('The benchmark is taking too long; stopping it.'), stop('benchmark')),
    waitFor(['benchmark']),
    report('## Summary\n\nparser-kit has 2 tests. The benchmark was stopped before it finished.'),
  ],
  agents: {
    count: agent({
      type: 'Explore',
      description: 'Count the tests',
      prompt: 'Count the tests in parser-kit and name them.',
      steps: [turn(read('tests/parser_test.rs'), { after: 800 }), report('## Summary\n\n2 tests: `precedence` and `parentheses`.', { after: 500 })],
    }),
    benchmark: agent({
      type: 'general-purpose',
      description: 'Run the long benchmark',
      prompt: 'Run a long benchmark of the parser-kit evaluator over a million random expressions.',
      steps: [
        turn(shell('echo warming up the benchmark', { description: 'Warm up the benchmark' }), { after: 300 }),
        report('## Summary\n\nThe benchmark finished (never reached: the main agent stops it first).', { after: 300_000 }),
      ],
    }),
  },
});
