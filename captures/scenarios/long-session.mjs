import { agent, read, report, say, scenario, shell, spawn, turn, waitFor } from '../lib/dsl.mjs';

const FILES = ['src/lib.rs', 'src/lexer.rs', 'src/parser.rs', 'src/eval.rs', 'tests/parser_test.rs', 'README.md', 'Cargo.toml', '.claude/agents/code-reviewer.md'];
// The lighter types: a general-purpose agent's files carry every tool's schema (about 75 KB each).
const TYPES = ['Explore', 'Plan', 'code-reviewer'];
const WAVES = [
  { topic: 'naming', verb: 'Check the names in' },
  { topic: 'docs', verb: 'Check the doc comments of' },
  { topic: 'errors', verb: 'Find the error paths of' },
  { topic: 'tests', verb: 'Find the untested code of' },
  { topic: 'style', verb: 'Check the formatting of' },
];

/**
 * One small agent per (wave, file): one tool call, then a short markdown
 * report. Waves 2 and 4 ask for the background explicitly
 * (`run_in_background: true`); the others leave it to the CLI's default.
 */
function waveAgent(wave, w, file, i) {
  const type = TYPES[(w + i) % TYPES.length];
  const tool = type === 'Explore' || i % 2 === 0 ? read(file) : shell(`wc -l ${file}`, { description: `Count the lines of ${file}` });
  return agent({
    type,
    description: `${wave.topic}: ${file}`,
    prompt: `${wave.verb} ${file} in parser-kit (wave ${w + 1}, ${wave.topic}); report in two or three lines.`,
    background: w % 2 === 1 ? true : undefined,
    steps: [
      turn(tool, { after: 100 + ((w * 8 + i) % 5) * 60 }),
      report(`## Summary\n\n${file}: no ${wave.topic} problems found.\n\n- checked by wave ${w + 1}, agent ${i + 1}`, { after: 100 + ((w + i) % 4) * 50 }),
    ],
  });
}

const agents = {};
const main = [];
WAVES.forEach((wave, w) => {
  const keys = FILES.map((file, i) => {
    const key = `w${w + 1}-${i + 1}`;
    agents[key] = waveAgent(wave, w, file, i);
    return key;
  });
  main.push(turn(say(`Wave ${w + 1} of ${WAVES.length}: ${wave.topic}, one agent per file.`), ...keys.map(spawn)));
  main.push(waitFor(keys));
});
main.push(report(`## Summary

Five waves of eight agents each (${WAVES.map((w) => w.topic).join(', ')}) checked every file of
parser-kit. No problems were reported.`));

export default scenario({
  name: 'long-session',
  title: 'A long session: 40 subagents in five waves',
  story: `A sweep of the whole crate. The main agent runs five waves (naming, docs, errors,
tests, style); each wave launches eight background agents of rotating types, one per file
(waves 2 and 4 ask for the background explicitly, the others take the default), and waits for
all eight before the next. Each agent makes one tool call and reports in a few
lines. 40 subagents in all, meant to stay modest in bytes.`,
  prompt: 'Sweep parser-kit file by file in five waves: naming, docs, errors, tests and style.',
  main,
  agents,
});
