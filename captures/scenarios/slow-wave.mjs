import { agent, read, report, say, scenario, shell, spawn, turn, waitFor } from '../lib/dsl.mjs';

/**
 * Four background agents with known lifetimes, launched 1.5 s apart so that
 * the number running goes 1, 2, 3, 4, 3, 2, 1, 0 with every change at least
 * 1.5 s from the next (starts at 0, 1.5, 3, 4.5 s; ends at 14, 6, 10, 7.5 s
 * after the first launch), room for a CLI's own overhead on a busy machine.
 */
const LIFETIMES = { a: 14_000, b: 4_500, c: 7_000, d: 3_000 };

/** A script lasting `ms`: a command (a read for a read-only agent), a read, and the report, a third each. */
function lasting(ms, file, summary, { readOnly = false } = {}) {
  const third = Math.round(ms / 3);
  return [
    turn(readOnly ? read('README.md') : shell(`wc -c ${file}`, { description: `Measure ${file}` }), { after: third }),
    turn(read(file), { after: third }),
    report(`## Summary\n\n${summary}`, { after: ms - 2 * third }),
  ];
}

export default scenario({
  name: 'slow-wave',
  title: 'A slow, staggered wave for live checks',
  story: `For watching a live board: the main agent launches four background agents 1.5 s apart,
each with a scripted lifetime (14 s, 4.5 s, 7 s and 3 s), so the running count steps 1, 2, 3,
4, 3, 2, 1, 0 with at least 1.5 s between changes. It waits for all four and sums up. The
manifest holds the scripted timeline and the one observed at the server.`,
  prompt: 'Take your time: measure each parser-kit source file with its own background agent.',
  main: [
    turn(say('Starting the first measurement.'), spawn('a')),
    turn(say('Second.'), spawn('b'), { after: 1500 }),
    turn(say('Third.'), spawn('c'), { after: 1500 }),
    turn(say('Fourth.'), spawn('d'), { after: 1500 }),
    waitFor(['a', 'b', 'c', 'd']),
    report('## Summary\n\nAll four files measured; the parser is the largest.'),
  ],
  agents: {
    a: agent({ type: 'general-purpose', description: 'Measure the parser', prompt: 'Measure src/parser.rs of parser-kit: size and shape.', steps: lasting(LIFETIMES.a, 'src/parser.rs', 'src/parser.rs is the largest file: four functions, one per grammar level.') }),
    b: agent({ type: 'Explore', description: 'Measure the lexer', prompt: 'Measure src/lexer.rs of parser-kit: size and shape.', steps: lasting(LIFETIMES.b, 'src/lexer.rs', 'src/lexer.rs: one enum and one function.', { readOnly: true }) }),
    c: agent({ type: 'Plan', description: 'Measure the evaluator', prompt: 'Measure src/eval.rs of parser-kit: size and shape.', steps: lasting(LIFETIMES.c, 'src/eval.rs', 'src/eval.rs: one recursive function.') }),
    d: agent({ type: 'code-reviewer', description: 'Measure the tests', prompt: 'Measure tests/parser_test.rs of parser-kit: size and shape.', steps: lasting(LIFETIMES.d, 'tests/parser_test.rs', 'tests/parser_test.rs: two tests.') }),
  },
});

export { LIFETIMES };
