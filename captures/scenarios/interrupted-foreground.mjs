import { agent, read, report, say, scenario, spawn, turn, waitFor } from '../lib/dsl.mjs';

export default scenario({
  name: 'interrupted-foreground',
  title: 'A foreground subagent cut off by an interrupt',
  story: `The main agent launches one subagent in the foreground and waits on it. The subagent reads
a file, then starts a step the model takes a minute to answer. Two seconds after its first request
the turn is interrupted (SIGINT, or ACP's session/cancel for a client-driven CLI): the subagent never
reports. (The ACP adapter reports the cut-off foreground call failed, with Claude Code's
interrupt text.)`,
  prompt: 'Trace how the parser-kit evaluator handles division, with one helper in the foreground.',
  interrupt: { whileRunning: ['tracer'], after: 2000 },
  main: [
    turn(say('One helper, and I wait for it.'), spawn('tracer')),
    waitFor(['tracer']),
    report('## Summary\n\nNever reached: the turn is interrupted first.'),
  ],
  agents: {
    tracer: agent({
      type: 'general-purpose',
      description: 'Trace division',
      prompt: 'Trace how src/eval.rs of parser-kit divides, step by step.',
      background: false,
      steps: [
        turn(read('src/eval.rs'), { after: 300 }),
        turn(read('src/parser.rs'), { after: 60_000 }),
        report('## Summary\n\nNever reached.', { after: 300 }),
      ],
    }),
  },
});
