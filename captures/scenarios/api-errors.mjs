import { agent, fail, read, report, say, scenario, spawn, turn, waitFor } from '../lib/dsl.mjs';

export default scenario({
  name: 'api-errors',
  title: 'The model API overloaded, then recovered; a subagent that never recovers',
  story: `The model API is overloaded. The main agent's first request gets HTTP 529 "overloaded" twice
(retryable); the CLI retries and the third attempt goes through. The main agent then launches two
subagents: one reads the README and reports; the other gets 529 on every request, however often the
CLI retries, and fails. The main agent reports with what it has. (Claude Code retries a failing
request about 11 times over some 3 minutes; the scenario caps its retries at 3 with
CLAUDE_CODE_MAX_RETRIES. qwen-code retries in bursts with growing pauses, some 2 minutes.)`,
  prompt: 'Summarize parser-kit for a newcomer, even if the model service is busy.',
  maxRetries: 3,
  main: [
    fail.http(529, { retry: true, times: 2, after: 200 }),
    turn(say('The service answered; two agents will summarize parser-kit.'), spawn('steady'), spawn('doomed')),
    waitFor(['steady', 'doomed']),
    report('## Summary\n\nparser-kit evaluates arithmetic expressions. The usage examples could not be collected: that agent kept getting "overloaded".'),
  ],
  agents: {
    steady: agent({
      type: 'general-purpose',
      description: 'Summarize the README',
      prompt: 'Summarize the parser-kit README in two sentences.',
      steps: [
        turn(read('README.md'), { after: 400 }),
        report('## Summary\n\nparser-kit parses and evaluates arithmetic expressions.', { after: 300 }),
      ],
    }),
    doomed: agent({
      type: 'general-purpose',
      description: 'Collect usage examples',
      prompt: 'Collect three usage examples of parser-kit from its sources.',
      steps: [fail.http(529, { retry: true, after: 200 })],
    }),
  },
});
