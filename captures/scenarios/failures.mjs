import { agent, fail, read, report, say, scenario, shell, spawn, stop, turn, waitFor } from '../lib/dsl.mjs';

export default scenario({
  name: 'failures',
  title: 'A tool error, two API errors and a stopped subagent',
  story: `Things go wrong. The main agent's own first command fails (a file that does not exist).
It then launches four background subagents: one hits a tool error (a missing file), recovers and
completes; one gets an HTTP 500 from the API on its second request and fails; one gets a stream
that ends in an "overloaded" error event and fails; one starts a long task that the main agent
stops once the other three have reported. The main agent reports what it could learn.`,
  prompt: 'Collect the release notes of parser-kit: changelog, version, open TODOs and a long benchmark.',
  main: [
    turn(shell('cat CHANGELOG.md', { description: 'Show the changelog' })),
    turn(say('There is no changelog; I will gather the pieces with four agents.'), spawn('recovers'), spawn('crashes'), spawn('overloaded'), spawn('stuck')),
    waitFor(['recovers', 'crashes', 'overloaded']),
    turn(say('The benchmark is taking too long; stopping it.'), stop('stuck')),
    waitFor(['stuck']),
    report(`## Summary

Partial release notes:

- **Version:** 0.3.1 (from \`Cargo.toml\`).
- **Changelog:** none in the repository.
- **TODOs and benchmark:** not collected — two agents failed on API errors and the benchmark was stopped.`),
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
      steps: [
        turn(shell('grep -rn "TODO\\|FIXME" src tests || true', { description: 'Search for TODO comments' }), { after: 500 }),
        fail.http(500, { message: 'Internal server error' }),
      ],
    }),
    overloaded: agent({
      type: 'Plan',
      description: 'Draft the release checklist',
      prompt: 'Draft a release checklist for parser-kit 0.3.2.',
      steps: [fail.stream({ type: 'overloaded_error', message: 'Overloaded', after: 600 })],
    }),
    stuck: agent({
      type: 'general-purpose',
      description: 'Run the long benchmark',
      prompt: 'Run a long benchmark of the parser-kit evaluator over a million random expressions.',
      steps: [
        turn(shell('sleep 1; echo warmed up', { description: 'Warm up the benchmark' }), { after: 300 }),
        report('## Summary\n\nThe benchmark finished (never reached: the main agent stops it first).', { after: 60_000 }),
      ],
    }),
  },
});
