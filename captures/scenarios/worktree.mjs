import { agent, read, report, say, scenario, shell, spawn, turn, waitFor } from '../lib/dsl.mjs';

export default scenario({
  name: 'worktree',
  title: 'A subagent isolated in a git worktree',
  story: `The workspace is a git repository. The main agent launches a background agent isolated in
a git worktree of its own (\`isolation: "worktree"\`); it reads the lexer and looks at its checkout's
status there, writes a note into it (so the worktree is kept, with its changes), then reports. The
main agent sums up.`,
  prompt: 'Have an isolated agent look at the parser-kit lexer in a worktree of its own.',
  setup: { git: true },
  main: [
    turn(say('An isolated agent, in its own worktree.'), spawn('isolated')),
    waitFor(['isolated']),
    report('## Summary\n\nThe isolated agent read the lexer in its worktree and left a note there.'),
  ],
  agents: {
    isolated: agent({
      type: 'general-purpose',
      description: 'Read the lexer in a worktree',
      prompt: 'In your own worktree, read src/lexer.rs of parser-kit, check the checkout and leave a note there.',
      background: true,
      isolation: 'worktree',
      steps: [
        turn(read('src/lexer.rs'), { after: 400 }),
        turn(shell('git status --short', { description: 'Check the checkout' }), { after: 300 }),
        turn(shell('echo "lex unwraps number parsing" > LEXER-NOTES.md', { description: 'Write the note' }), { after: 300 }),
        report('Read `src/lexer.rs` in the worktree and left `LEXER-NOTES.md` there.', { after: 300 }),
      ],
    }),
  },
});
