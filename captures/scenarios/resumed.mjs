import { agent, read, report, say, scenario, spawn, turn, waitFor } from '../lib/dsl.mjs';

/** The first run of the session: one reviewer in the background, summed up. */
export const firstRun = {
  prompt: 'Review the parser-kit lexer with one reviewer.',
  main: [
    turn(say('One reviewer for the lexer.'), spawn('lexer')),
    waitFor(['lexer']),
    report('## Summary\n\nThe lexer review is in: it unwraps number parsing.'),
  ],
};

/** The later runs that go on with it: a second wave resumed by id, then a continuation. */
export const resumeAndContinue = [
  {
    how: 'resume',
    prompt: 'Now review the parser-kit evaluator with a second reviewer.',
    main: [
      turn(say('A second reviewer for the evaluator.'), spawn('evaluator')),
      waitFor(['evaluator']),
      report('## Summary\n\nThe evaluator review is in: division by zero returns infinity.'),
    ],
  },
  {
    how: 'continue',
    prompt: 'Which of the two findings should be fixed first?',
    main: [report('Fix the lexer first: a panic is worse than a surprising value.')],
  },
];

/** The two reviewers, one per wave. */
export const reviewers = {
  lexer: agent({
    type: 'general-purpose',
    description: 'Review the lexer',
    prompt: 'Review src/lexer.rs of parser-kit for panics.',
    steps: [
      turn(read('src/lexer.rs'), { after: 400 }),
      report('## Summary\n\n`lex` unwraps `f64::from_str`: `1..2` panics.', { after: 300 }),
    ],
  }),
  evaluator: agent({
    type: 'general-purpose',
    description: 'Review the evaluator',
    prompt: 'Review src/eval.rs of parser-kit for wrong results.',
    steps: [
      turn(read('src/eval.rs'), { after: 400 }),
      report('## Summary\n\nDivision by zero returns `inf` instead of an error.', { after: 300 }),
    ],
  }),
};

export default scenario({
  name: 'resumed',
  title: 'One session over four runs: a wave, /compact, a resumed wave, a continuation',
  story: `The same session runs four times. Run 1 (a new session with a chosen id): the main agent
launches a reviewer in the background and sums up its report. Run 2: the user compacts the session
(/compact, headless). Run 3 resumes the session by id with a new prompt: a second reviewer, then a
summary. Run 4 continues the latest session with a last question, answered without tools.`,
  ...firstRun,
  then: [{ how: 'compact' }, ...resumeAndContinue],
  agents: reviewers,
});
