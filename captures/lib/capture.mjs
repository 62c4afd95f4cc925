// One capture: run a scenario with a CLI, copy what the CLI wrote into the
// capture folder, and write its manifest.
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { needsOf } from './dsl.mjs';
import { binOf, installDir, pinOf } from './install.mjs';
import { holds, listFiles, observedTimeline, scriptedTimeline, sentCalls, serverSummary, toolsOffered } from './manifest.mjs';
import { prepare, run } from './runner.mjs';

/** Where a CLI's runs happen unless a HOME is given: fixed paths, so reruns write the same paths into the files. */
const RUN_ROOT = join(tmpdir(), 'taskview-captures');

/** The capability a CLI lacks that the scenario needs, with the reason, or null. */
export function unsupported(cli, scenario) {
  for (const need of needsOf(scenario)) if (cli.unsupported?.[need]) return { need, reason: cli.unsupported[need] };
  return null;
}

/** Copies what the CLI wrote (its `collect` list, its stdout file, its task outputs) into `out`. */
function collect(cli, result, dirs, out) {
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  for (const { from, to } of cli.collect) {
    const src = join(dirs.home, from);
    if (existsSync(src)) cpSync(src, join(out, to), { recursive: true, verbatimSymlinks: true });
  }
  if (cli.stdoutFile) writeFileSync(join(out, cli.stdoutFile), result.stdout);
  if (result.transcript && cli.transcriptFile) writeFileSync(join(out, cli.transcriptFile), result.transcript);
  cli.afterRun?.({ bin: binOf(cli.name, cli.bin), stdout: result.stdout, dirs, out });
  const outputs = existsSync(dirs.tmp) ? listFiles(dirs.tmp).filter((f) => !f.link && /(^|\/)tasks\/[^/]+\.output$/.test(f.path)) : [];
  for (const { path } of outputs) {
    mkdirSync(dirname(join(out, 'tasks', path)), { recursive: true });
    cpSync(join(dirs.tmp, path), join(out, 'tasks', path));
  }
}

/** What went wrong in a run, if anything: exit status, unmatched requests, scripts not played to the end. */
function problemsOf(result, scenario, summary, observed, held) {
  const problems = [];
  // An interrupted CLI may exit as it likes (qwen-code dies of the signal).
  const interrupting = Boolean(scenario.interrupt);
  if (interrupting && result.interruptedAt == null) problems.push('the CLI finished before it could be interrupted');
  if (!interrupting && result.code !== 0) problems.push(`the CLI exited with ${result.code ?? result.signal}`);
  if (result.driveOutcome && result.driveOutcome !== 'done') problems.push(`the ACP client's turn ${result.driveOutcome}`);
  if (summary.unmatched) problems.push(`${summary.unmatched} request(s) matched no scenario agent`);
  if (summary.egressAttempts.length) problems.push(`egress attempts: ${summary.egressAttempts.join(', ')}`);
  const cancelled = new Set(held.cancelled);
  const neverRun = new Set([...held.refused, ...held.notLaunched]);
  const cut = new Set(interrupting ? ['main', ...scenario.interrupt.whileRunning] : []);
  for (const key of scenario.agents.keys()) {
    if (neverRun.has(key)) continue;
    if (cut.has(key)) {
      if (observed[key]?.ended != null) problems.push(`${key} was to be interrupted but reached the end of its script`);
    } else if (cancelled.has(key)) {
      if (observed[key]?.ended != null) problems.push(`${key} was to be stopped but reached the end of its script`);
    } else if (observed[key]?.ended == null) problems.push(`${key} did not reach the end of its script`);
  }
  return problems;
}

/**
 * Runs `scenario` with `cli` and, when `out` is given, writes the capture
 * there. `home` runs it with that HOME (its other folders in a temp folder).
 * Returns the manifest.
 */
export async function capture({ cli, scenario, out = null, home = null, isolation, keepRequests = null, otlp = false, onLine = () => {}, now = () => new Date() }) {
  const { pkg, version } = pinOf(cli.name);
  const bundles = cli.bundled ? { bundles: cli.bundled(installDir(cli.name)) } : {};
  const base = { cli: { name: cli.name, package: pkg, version, ...bundles }, node: process.version, scenario: { name: scenario.name, title: scenario.title, story: scenario.story, prompt: scenario.prompt } };
  const gap = unsupported(cli, scenario);
  if (gap) {
    if (out) rmSync(out, { recursive: true, force: true });
    return { ...base, status: 'unsupported', unsupported: gap };
  }
  const git = Boolean(scenario.setup?.git);
  const dirs = home ? prepare(mkdtempSync(join(tmpdir(), 'taskview-captures-')), { home, git }) : prepare(join(RUN_ROOT, cli.name, scenario.name), { git });
  const startedAt = now().toISOString();
  const result = await run({ cli, scenario, bin: binOf(cli.name, cli.bin), dirs, keepRequests, otlp, onLine });
  if (out) collect(cli, result, dirs, out);
  if (out && otlp) collectTelemetry(result.telemetry, out);
  const isBackground = cli.isBackground;
  // A launch the scenario makes fail (`launchFails`) is refused by every CLI.
  const refuses = (def) => def.launchFails ?? cli.refuses?.(def) ?? null;
  const held = holds(scenario, { isBackground, typeOf: cli.dialect.typeOf, refuses, interruptWith: cli.interruptsWith });
  const summary = serverSummary(result.log);
  const observed = observedTimeline(result.log);
  const problems = problemsOf(result, scenario, summary, observed, held);
  const manifest = {
    ...base,
    status: problems.length ? 'incomplete' : 'captured',
    problems,
    startedAt,
    durationMs: result.ms,
    ...(result.interruptedAt != null ? { interruptedAt: result.interruptedAt } : {}),
    command: { cwd: dirs.work, argv: [cli.bin, ...result.command.args], env: result.command.env, alsoSet: ['TMPDIR', ...result.command.proxy], config: result.command.config, exit: result.code ?? result.signal, ...(result.command.later ? { later: result.command.later } : {}), ...(result.command.interruptWith ? { interruptWith: result.command.interruptWith } : {}) },
    isolation: { ...isolation, egressAttempts: summary.egressAttempts },
    paths: {
      home: dirs.home,
      cwd: dirs.work,
      normalised: false,
      note: home
        ? 'Files are kept byte for byte as the CLI wrote them. The HOME was given; the working directory is a fresh temp folder.'
        : 'Files are kept byte for byte as the CLI wrote them. Runs use fixed folders under the temp dir, so a rerun writes the same paths.',
    },
    needs: needsOf(scenario),
    holds: held,
    timeline: { unit: 'ms', origin: result.engine.start, scripted: scriptedTimeline(scenario, { isBackground }), observed },
    calls: sentCalls(result.log),
    server: summary,
    toolsOffered: toolsOffered(result.log, scenario, cli.dialect.typeOf),
    stderr: result.stderr.slice(-2000),
  };
  if (out) {
    manifest.files = listFiles(out).filter((f) => f.path !== 'manifest.json').map(({ path, bytes }) => ({ path, bytes }));
    writeFileSync(join(out, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  }
  if (home) rmSync(dirs.root, { recursive: true, force: true });
  return manifest;
}

/**
 * The telemetry the CLI posted, in arrival order: `otlp/<n>-<signal>.json`
 * (the body as sent) and `otlp/index.jsonl` (`{n, t, signal, contentType,
 * encoding, file}` per post; `t` in ms from the run's start), so a test can
 * replay the stream at its real pace.
 */
function collectTelemetry(posts, out) {
  const dir = join(out, 'otlp');
  mkdirSync(dir, { recursive: true });
  const index = posts.map(({ body, ...post }, i) => {
    const file = `${String(i + 1).padStart(4, '0')}-${post.signal}.json`;
    writeFileSync(join(dir, file), body);
    return JSON.stringify({ n: i + 1, ...post, file });
  });
  writeFileSync(join(dir, 'index.jsonl'), index.length ? `${index.join('\n')}\n` : '');
}

/** Adds or replaces one scenario's entry in a CLI version's own manifest (`<cli>-<version>/manifest.json`). */
export function recordInIndex(dir, manifest) {
  const path = join(dir, 'manifest.json');
  const index = existsSync(path) ? JSON.parse(readFileSync(path, 'utf8')) : { scenarios: {} };
  Object.assign(index, { cli: manifest.cli, node: manifest.node, isolation: manifest.isolation?.mode ?? index.isolation ?? null });
  index.scenarios[manifest.scenario.name] = {
    status: manifest.status,
    title: manifest.scenario.title,
    ...(manifest.unsupported ? { unsupported: manifest.unsupported } : {}),
    ...(manifest.problems?.length ? { problems: manifest.problems } : {}),
    ...(manifest.holds ? { subagents: manifest.holds.subagents } : {}),
  };
  mkdirSync(dir, { recursive: true });
  writeFileSync(path, `${JSON.stringify(index, null, 2)}\n`);
}
