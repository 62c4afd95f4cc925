import { agent, read, report, say, scenario, spawn, turn, waitFor } from '../lib/dsl.mjs';

/** A 20,000-character line: 4,000 times "long " (trimmed at the end). */
const LONG_LINE = 'long '.repeat(4000).trimEnd();

export default scenario({
  name: 'reports',
  title: 'Reports that do not open with a heading and a sentence',
  story: `The main agent launches six subagents in one reply, each to check one thing of parser-kit.
Each reads one file and reports in a shape a viewer must still summarize in one line: a report
that opens with a code fence, one that opens with a table, a heading then a bold sentence, mixed
scripts (Latin, Japanese, Cyrillic, Arabic), one 20,000-character line, and markup meant to inject
script into the page. The main agent waits for all six and sums up.`,
  prompt: 'Check six things of parser-kit at once and report each in its own shape.',
  main: [
    turn(
      say('Six checks of parser-kit, in parallel.'),
      spawn('fence'), spawn('table'), spawn('bold'), spawn('scripts'), spawn('long'), spawn('inject'),
    ),
    waitFor(['fence', 'table', 'bold', 'scripts', 'long', 'inject']),
    report('## Summary\n\nAll six checks reported.'),
  ],
  agents: {
    fence: agent({
      type: 'general-purpose',
      description: 'Show the lexer error',
      prompt: 'Show the error the lexer gives for 1..2, as a code block first.',
      steps: [
        turn(read('src/lexer.rs'), { after: 400 }),
        report('```text\nparse error at 1:3: unexpected "."\n```\n\nThe lexer rejects `1..2`.', { after: 300 }),
      ],
    }),
    table: agent({
      type: 'general-purpose',
      description: 'Tabulate the evaluator results',
      prompt: 'Tabulate what the evaluator returns for three inputs, as a table first.',
      steps: [
        turn(read('src/eval.rs'), { after: 400 }),
        report('| input | result |\n|---|---|\n| `1+2` | 3 |\n| `2*3` | 6 |\n| `(1)` | 1 |', { after: 300 }),
      ],
    }),
    bold: agent({
      type: 'general-purpose',
      description: 'Find the panics',
      prompt: 'Find the panics of the parser and open with a heading and a bold finding.',
      steps: [
        turn(read('src/parser.rs'), { after: 400 }),
        report('## Findings\n\n**Two panics** remain in the lexer.\n\n- `unwrap` on numbers\n- `unreachable!` on operators', { after: 300 }),
      ],
    }),
    scripts: agent({
      type: 'general-purpose',
      description: 'Summarize in four scripts',
      prompt: 'Summarize the README in four scripts: Latin, Japanese, Cyrillic and Arabic.',
      steps: [
        turn(read('README.md'), { after: 400 }),
        report('Résumé: 解析器は正しい — парсер исправен — المحلل سليم\n\nNo change needed.', { after: 300 }),
      ],
    }),
    long: agent({
      type: 'general-purpose',
      description: 'Write one very long line',
      prompt: 'Report the test names as one very long line with no line break.',
      steps: [
        turn(read('tests/parser_test.rs'), { after: 400 }),
        report(LONG_LINE, { after: 300 }),
      ],
    }),
    inject: agent({
      type: 'general-purpose',
      description: 'Quote hostile markup',
      prompt: 'Quote the hostile markup from the security notes verbatim.',
      steps: [
        turn(read('src/lib.rs'), { after: 400 }),
        report('<img src=x onerror="window.__taskviewInjected=1">Markup meant to inject\n\n<script>window.__taskviewInjected=2</script>\n\n[click me](javascript:window.__taskviewInjected=3)', { after: 300 }),
      ],
    }),
  },
});

/** The one-line summary each report's card face shows, by docs/behaviour.md §3.1 item 6 from the script. */
export const EXPECTED_SUMMARIES = {
  'Show the lexer error': 'parse error at 1:3: unexpected "."',
  'Tabulate the evaluator results': '| input | result |',
  'Find the panics': 'Two panics remain in the lexer.',
  'Summarize in four scripts': 'Résumé: 解析器は正しい — парсер исправен — المحلل سليم',
  'Write one very long line': LONG_LINE,
  'Quote hostile markup': '<img src=x onerror="window.__taskviewInjected=1">Markup meant to inject',
};
