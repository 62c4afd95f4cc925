import { report, say, scenario, shell, turn, waitFor } from '../lib/dsl.mjs';

export default scenario({
  name: 'background-shell',
  title: 'A background shell command (not a subagent)',
  story: `The main agent starts a slow command in the background (a shell task, not a subagent),
runs a quick command in the foreground meanwhile, then waits for the background command's
notification and reports. No subagent is launched.`,
  prompt: 'Start a slow line count of parser-kit in the background, and meanwhile list the test files.',
  main: [
    turn(say('Starting the slow count in the background.'), shell('sleep 3; wc -l src/*.rs', { description: 'Count source lines slowly', background: true, key: 'count' })),
    turn(shell('ls tests', { description: 'List the test files' }), { after: 300 }),
    waitFor(['count'], { interim: 'The line count is still running.' }),
    report('## Summary\n\nThe sources have 134 lines in four files; the tests live in `tests/parser_test.rs`.'),
  ],
});
