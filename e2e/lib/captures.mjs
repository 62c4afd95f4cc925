// The captures the harness wrote with the real CLIs
// (tests/fixtures/captures/<cli>-<version>/<scenario>/, captures/README.md):
// each scenario's manifest and the project folder the CLI wrote.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from './files.mjs';

const CAPTURES = path.join(ROOT, 'tests/fixtures/captures');

/**
 * The scenarios of `<cli>-<version>` its manifest calls captured, in name
 * order: `{name, manifest, project}`, `project` the folder the CLI wrote the
 * session in (`projects/<slug>`, or Copilot CLI's `session-state/<session>`),
 * `slug` its name, `dir` the scenario's own folder.
 */
export function captures(cli) {
  const root = path.join(CAPTURES, cli);
  const { scenarios } = JSON.parse(readFileSync(path.join(root, 'manifest.json'), 'utf8'));
  return Object.entries(scenarios)
    .filter(([, s]) => s.status === 'captured')
    .map(([name]) => name)
    .sort()
    .map((name) => {
      const dir = path.join(root, name);
      const projects = ['projects', 'session-state'].map((tree) => path.join(dir, tree)).find(existsSync) ?? path.join(dir, 'projects');
      // The first folder that is no CLI bookkeeping (Copilot's `.session-operation-locks/`).
      const slug = existsSync(projects) ? readdirSync(projects).find((n) => !n.startsWith('.')) : null;
      return {
        name,
        manifest: JSON.parse(readFileSync(path.join(dir, 'manifest.json'), 'utf8')),
        project: slug && path.join(projects, slug),
        slug,
        dir,
      };
    });
}

/**
 * The session `capture`'s last run ended in, as its CLI reported it
 * (`session_id` in result.json, one object or a list of them): of a forked
 * story, the fork.
 */
export function reportedSession(capture) {
  const result = JSON.parse(readFileSync(path.join(capture.dir, 'result.json'), 'utf8'));
  const session = [result].flat().find((r) => r.session_id)?.session_id;
  if (!session) throw new Error(`${capture.name}: its result.json names no session`);
  return session;
}

/** Text a transport wraps around an answer, never shown (docs/behaviour.md §1). */
export const WRAPPERS = [
  '[Subagent hand-back]', '<tools-used-before-summary>', '<task-notification>',
  'Async agent launched successfully', 'Background agent launched successfully',
  '<fork-boilerplate>', 'Fork started',
];

/** The count label of `n` tool calls, as a card face says it. */
export function toolCalls(n) {
  return n === 0 ? null : `${n} tool call${n === 1 ? '' : 's'}`;
}
