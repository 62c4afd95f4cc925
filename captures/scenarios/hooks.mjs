import { agent, read, report, say, scenario, shell, spawn, turn, waitFor } from '../lib/dsl.mjs';

/** Why the hook blocks a publish. */
export const HOOK_REASON = 'Publishing is blocked in this workspace: releases go through CI.';

export default scenario({
  name: 'hooks',
  title: 'Calls blocked by a hook and refused by a rule',
  story: `The user keeps a PreToolUse hook that blocks \`cargo publish\` and a permission rule that
refuses reading \`.env\`. The main agent tries to publish (blocked by the hook), to read \`.env\`
(denied by the rule) and to read a changelog that does not exist (a command that fails on its
own); then a background agent tries the publish too and reports that it was blocked. The main
agent sums up.`,
  prompt: 'Check whether parser-kit is ready to release: try a dry-run publish, the environment file and the changelog.',
  setup: {
    hooks: [{ pattern: 'cargo publish', reason: HOOK_REASON }],
    deny: [{ read: '.env' }],
  },
  main: [
    turn(say('Trying a dry-run publish first.'), shell('cargo publish --dry-run', { description: 'Dry-run the publish' })),
    turn(say('Reading the environment file.'), read('.env')),
    turn(say('And the changelog.'), shell('cat CHANGELOG.md', { description: 'Read the changelog' })),
    turn(say('One agent to try the release steps on its own.'), spawn('release-check')),
    waitFor(['release-check']),
    report('## Summary\n\nNot ready: publishing is blocked here by a hook, `.env` may not be read, and there is no changelog.'),
  ],
  agents: {
    'release-check': agent({
      type: 'general-purpose',
      description: 'Try the release steps',
      prompt: 'Try the release steps of parser-kit in order and report which ones this workspace allows.',
      background: true,
      steps: [
        turn(shell('cargo publish --dry-run --allow-dirty', { description: 'Dry-run the publish' }), { after: 400 }),
        report('The publish step is blocked by a hook in this workspace; the other steps need CI.', { after: 300 }),
      ],
    }),
  },
});
