import { agent, fail, read, report, say, scenario, shell, spawn, turn, waitFor } from '../lib/dsl.mjs';

export default scenario({
  name: 'failures',
  title: 'A tool error and two API errors',
  story: `Things go wrong. The main agent's own first command fails (a file that does not exist).
It then launches three subagents: one hits a tool error (a missing file), recovers and
completes; one gets an HTTP 500 from the API on its second request and fails; one gets a
stream that ends in an "overloaded" error event and fails. The main agent reports what it
could learn. (A CLI may retry the failed requests first; the manifest's server section lists
every failure it sent.)`,
  prompt: 'Collect the release notes of parser-kit: changelog, version, open TODOs and a release checklist.',
  main: [
    turn(shell('cat CHANGELOG.md', { description: 'Show the changelog' })),
    turn(say('There is no changelog; I will gather the pieces with three agents.'), spawn('recovers'), spawn('crashes'), spawn('overloaded')),
    waitFor(['recovers', 'crashes', 'overloaded']),
    report(`## Summary

Partial release notes:

- **Version:** 0.3.1 (from \`Cargo.toml\`).
- **Changelog:** none in the repository.
- **TODOs and checklist:** not collected — both agents failed on API errors.`),
  ],
  agents: {
    recovers: agent({
      type: 'general-purpose',
      description: 'Find the version',
      prompt: 'Find the current version of parser-kit, trying a VERSION file first.',
      steps: [
        turn(read('VERSION'), { after: 400 }),
        turn(say('No VERSION file; the manifest has it.'), read('Cargo.toml'), { after: 500 }),
        report(`## Summary

parser-kit is at **0.3.1** (\`Cargo.toml\`); there is no \`VERSION\` file.`, { after: 400 }),
      ],
    }),
    crashes: agent({
      type: 'Explore',
      description: 'List open TODOs',
      prompt: 'List every TODO and FIXME comment in parser-kit with file and line.',
      steps: [turn(read('src/lib.rs'), { after: 500 }), fail.http(500, { message: 'Internal server error' })],
    }),
    overloaded: agent({
      type: 'Plan',
      description: 'Draft the release checklist',
      prompt: 'Draft a release checklist for parser-kit 0.3.2.',
      steps: [fail.stream({ type: 'overloaded_error', message: 'Overloaded', after: 600 })],
    }),
  },
});
