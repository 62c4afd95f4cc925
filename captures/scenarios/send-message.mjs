import { agent, read, report, say, scenario, send, shell, spawn, turn, waitFor } from '../lib/dsl.mjs';

export default scenario({
  name: 'send-message',
  title: 'A message sent to a running subagent',
  story: `The main agent launches a background researcher on division, then remembers a detail
and sends the running researcher a message ("also check division by zero"). The researcher,
still busy with its first command, reads the message on its next turn and covers it in its
report. The main agent waits for the report and sums up.`,
  prompt: 'Have a background agent research how parser-kit handles division; add any detail you think of later.',
  main: [
    turn(say('Launching a researcher on division.'), spawn('researcher')),
    turn(say('One more thing for the researcher.'), send('researcher', 'Also check what happens on division by zero, e.g. "1 / 0".'), { after: 800 }),
    waitFor(['researcher']),
    report(`## Summary

Division is plain \`f64\` division: \`1 / 0\` evaluates to \`inf\`, with no error.`),
  ],
  agents: {
    researcher: agent({
      type: 'general-purpose',
      description: 'Research division handling',
      prompt: 'Research how parser-kit lexes, parses and evaluates division, and report with file references.',
      steps: [
        turn(shell('grep -n "Slash" -r src', { description: 'Find division in the sources' }), { after: 3000 }),
        turn(say('The lead asked about division by zero too.'), read('src/eval.rs'), { after: 600 }),
        report(`## Summary

- \`/\` is lexed as \`Token::Slash\` (\`src/lexer.rs\`), parsed at product level (\`src/parser.rs\`).
- \`eval\` computes \`l / r\` on \`f64\` (\`src/eval.rs:15\`).
- **Division by zero** (asked for later): \`1 / 0\` gives \`inf\`, \`0 / 0\` gives \`NaN\`; no error is raised.`, { after: 500 }),
      ],
    }),
  },
});
