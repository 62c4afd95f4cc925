import { agent, read, report, say, scenario, spawn, turn, waitFor } from '../lib/dsl.mjs';

export default scenario({
  name: 'custom-agents',
  title: 'Agents the user defined',
  story: `The user keeps two agent definitions of their own: \`doc-writer\` (may only read and search)
and \`test-planner\`. The main agent launches both in the background on the parser; each reads a
file and reports. It also asks for \`doc-writter\`, a name the user has no agent of: that launch
fails at once, runs nothing and writes no transcript. The main agent sums up.`,
  prompt: 'Have your doc writer and your test planner look at the parser-kit parser.',
  setup: {
    agentFiles: {
      'doc-writer': {
        description: 'Drafts doc comments for public functions; reads and searches code, never edits it.',
        tools: ['read', 'search'],
        body: 'You draft doc comments for the public functions you are pointed at. Read the code; never edit it.',
      },
      'test-planner': {
        description: 'Plans the tests a module is missing, ranked by risk.',
        body: 'You list the tests a module is missing, most risky first, each with the input it should use.',
      },
    },
  },
  main: [
    turn(say('Both of your agents, in parallel.'), spawn('docs'), spawn('test-plan'), spawn('misnamed')),
    waitFor(['docs', 'test-plan']),
    report('## Summary\n\nDoc comments drafted for `parse`; four error tests planned. There is no `doc-writter` agent.'),
  ],
  agents: {
    misnamed: agent({
      type: 'doc-writter',
      description: 'Draft the lexer doc comment',
      prompt: 'Draft doc comments for the public functions of src/lexer.rs.',
      background: true,
      launchFails: 'no agent of that type: the CLI refuses the launch',
      steps: [report('Never reached: the launch fails.')],
    }),
    docs: agent({
      type: 'doc-writer',
      description: 'Draft the parse doc comment',
      prompt: 'Draft doc comments for the public functions of src/parser.rs.',
      background: true,
      steps: [turn(read('src/parser.rs'), { after: 500 }), report('Drafted: `/// Parses text into an expression tree.`', { after: 300 })],
    }),
    'test-plan': agent({
      type: 'test-planner',
      description: 'Plan the parser tests',
      prompt: 'Plan the tests that src/parser.rs is missing.',
      background: true,
      steps: [turn(read('tests/parser_test.rs'), { after: 600 }), report('Four error tests are missing: empty input, a lone `)`, `1 +`, `((1)`.', { after: 300 })],
    }),
  },
});
