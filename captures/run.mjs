#!/usr/bin/env node
// The capture harness's command line (see README.md).
//
//   node captures/run.mjs [--cli NAME]... [--scenario NAME]... [--out DIR]
//   node captures/run.mjs --cli claude-code --scenario slow-wave --home DIR [--manifest FILE]
//   node captures/run.mjs install [NAME...]
//   node captures/run.mjs list
//
// Installs the pinned CLIs first (npm, outside any namespace), then runs the
// scenarios inside a loopback-only network namespace.
import { writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { capture, recordInIndex, unsupported } from './lib/capture.mjs';
import { CLIS, cliNamed } from './lib/clis/index.mjs';
import { ensureInstalled, pinOf } from './lib/install.mjs';
import { NOT_ISOLATED, insideNamespace, isolation, reexecIsolated } from './lib/isolate.mjs';
import { SCENARIOS, scenarioNamed } from './scenarios/index.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const DEFAULT_OUT = join(HERE, '..', 'tests', 'fixtures', 'captures');

const { values: opts, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    cli: { type: 'string', multiple: true },
    scenario: { type: 'string', multiple: true },
    out: { type: 'string' },
    home: { type: 'string' },
    manifest: { type: 'string' },
    'keep-requests': { type: 'string' },
    otlp: { type: 'boolean', default: false },
    quiet: { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
  },
});

const usage = `usage:
  node captures/run.mjs [--cli NAME]... [--scenario NAME]... [--out DIR]   capture (default: all, into tests/fixtures/captures)
  node captures/run.mjs --cli C --scenario S --home DIR [--manifest FILE]  run one scenario with that HOME, write nothing else
  node captures/run.mjs install [CLI...]                                    install the pinned CLIs into the cache
  node captures/run.mjs list                                                CLIs, pins and scenarios
options: --keep-requests DIR (store every request body, for debugging), --otlp (the CLI exports
  OpenTelemetry to the server, kept in <capture>/otlp/: index.jsonl and the bodies), --quiet`;

const say = (line) => process.stderr.write(`${line}\n`);

async function main() {
  if (opts.help) return say(usage);
  const command = positionals[0] ?? 'capture';
  const clis = opts.cli ? opts.cli.map(cliNamed) : CLIS;
  const scenarios = opts.scenario ? opts.scenario.map(scenarioNamed) : SCENARIOS;
  if (command === 'list') {
    for (const c of CLIS) {
      const { pkg, version } = pinOf(c.name);
      say(`${c.name}: ${pkg}@${version}`);
      for (const s of SCENARIOS) {
        const gap = unsupported(c, s);
        say(`  ${s.name}${gap ? ` (not supported: ${gap.need}: ${gap.reason})` : ''}`);
      }
    }
    return;
  }
  if (command === 'install') {
    for (const name of positionals.slice(1).length ? positionals.slice(1) : clis.map((c) => c.name)) say(ensureInstalled(cliNamed(name).name));
    return;
  }
  if (command !== 'capture') throw new Error(`unknown command "${command}"\n${usage}`);
  if (opts.home && (clis.length !== 1 || scenarios.length !== 1)) throw new Error('--home runs exactly one --cli and one --scenario');

  if (!insideNamespace()) {
    for (const c of clis) ensureInstalled(c.name, { log: say });
    const status = reexecIsolated(process.argv.slice(1));
    if (status !== null) process.exit(status);
    say(NOT_ISOLATED);
  }
  const where = isolation();
  if (where.mode !== 'netns' && insideNamespace()) say(NOT_ISOLATED);
  const outRoot = opts.home ? (opts.out ? resolve(opts.out) : null) : resolve(opts.out ?? DEFAULT_OUT);
  let bad = 0;
  for (const cli of clis) {
    const { version } = pinOf(cli.name);
    const versionDir = outRoot && join(outRoot, `${cli.name}-${version}`);
    for (const scenario of scenarios) {
      say(`== ${cli.name} ${version}: ${scenario.name}`);
      const started = Date.now();
      const out = versionDir && join(versionDir, scenario.name);
      const manifest = await capture({
        cli,
        scenario,
        out,
        home: opts.home ? resolve(opts.home) : null,
        isolation: where,
        keepRequests: opts['keep-requests'] && join(resolve(opts['keep-requests']), cli.name, scenario.name),
        otlp: Boolean(opts.otlp),
        onLine: opts.quiet ? () => {} : (line) => say(`   ${((Date.now() - started) / 1000).toFixed(2).padStart(6)}s ${line}`),
      });
      if (versionDir) recordInIndex(versionDir, manifest);
      if (opts.manifest) writeFileSync(resolve(opts.manifest), `${JSON.stringify(manifest, null, 2)}\n`);
      say(`== ${scenario.name}: ${manifest.status}${manifest.unsupported ? ` (${manifest.unsupported.need}: ${manifest.unsupported.reason})` : ''} ${manifest.problems?.length ? `\n   ${manifest.problems.join('\n   ')}` : ''}`);
      if (manifest.status === 'incomplete') bad++;
    }
  }
  if (bad) {
    say(`${bad} capture(s) incomplete`);
    process.exit(1);
  }
}

main().catch((err) => {
  say(String(err?.stack ?? err));
  process.exit(2);
});
