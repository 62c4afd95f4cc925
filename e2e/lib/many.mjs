// A home of many agent sessions for the board's figures (docs/board.md,
// `make bench` and the DOM bound of e2e/tests/board-dom.spec.mjs): Claude
// Code sessions made from the captures' conversation records (the user and
// assistant records of each capture's main file, or only its first
// `records` of them), each with a fresh session id, in one of 40 projects
// (`/home/dev/project-<n>`), spread over the last two
// days by record times and file times, one in eight still at work (its
// newest record a tool call, written a minute ago). Cut to their first
// `records`, the others may end mid-turn too, long ago: interrupted, in
// Stopped (docs/board.md), not Done.
import { existsSync, mkdirSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from './files.mjs';
import { shiftTimes, newestTime } from './home.mjs';

const CLAUDE = path.join(ROOT, 'tests/fixtures/captures/claude-code-2.1.332');
const HOUR = 3_600_000;

/** Each Claude Code capture's main session: its id and conversation records. */
function conversations(records) {
  const out = [];
  for (const scenario of readdirSync(CLAUDE).sort()) {
    const projects = path.join(CLAUDE, scenario, 'projects');
    if (!existsSync(projects)) continue;
    for (const slug of readdirSync(projects)) {
      for (const file of readdirSync(path.join(projects, slug)).filter((f) => f.endsWith('.jsonl'))) {
        const lines = readFileSync(path.join(projects, slug, file), 'utf8').split('\n')
          .filter((l) => /^\{"(parentUuid|type)"/.test(l) && /"type":"(user|assistant)"/.test(l));
        out.push({ id: file.replace('.jsonl', ''), lines: records ? lines.slice(0, records) : lines });
      }
    }
  }
  return out;
}

/** A fresh session id for session `n`. */
const freshId = (n) => `${n.toString(16).padStart(8, '0')}-b0a2-4d5e-8f60-${(n * 7919).toString(16).padStart(12, '0')}`;

/** Writes `count` sessions under `dir`, as at `now`; returns `{dir, files, working}`. */
export function manySessions(dir, count, { records = 0, now = Date.now() } = {}) {
  const files = [];
  let working = 0;
  const sources = conversations(records);
  for (let n = 0; n < count; n++) {
    const source = sources[n % sources.length];
    const id = freshId(n);
    const file = path.join(dir, `-home-dev-project-${n % 40}`, `${id}.jsonl`);
    files.push(file);
    const atWork = n % 8 === 0;
    working += atWork;
    const newest = now - (atWork ? 60_000 : (n * 2593 * 1000) % (48 * HOUR) + 20 * 60_000);
    let lines = source.lines;
    if (atWork) {
      // Up to its first tool call: the agent is at work.
      const call = lines.findIndex((l) => l.includes('"type":"tool_use"'));
      if (call >= 0) lines = lines.slice(0, call + 1);
    }
    const text = lines.join('\n').replaceAll(source.id, id)
      .replace(/"cwd":"[^"]*"/g, `"cwd":"/home/dev/project-${n % 40}"`);
    const delta = newest - newestTime(text);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, `${shiftTimes(text, delta)}\n`);
    utimesSync(file, new Date(newest), new Date(newest));
  }
  return { dir, files, working };
}
