// taskview's page and kandev's client on the same server, session and frames,
// in one run (docs/behaviour.md §10): the live path of bench/live.mjs for
// both clients, once with the server joining a change's envelopes into one
// frame (taskview serve's default) and once with one frame per event (what
// kandev's own backend sends, `--frame-per-event`).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { session } from '../lib/sessions.mjs';
import { APPENDED, appendRun, BATCH, GrowingRecording, openTask, printStages } from './live.mjs';
import { printProfile } from './profile.mjs';

/** The two framings: the flags that make them. */
export const FRAMINGS = { joined: [], 'per event': ['--frame-per-event'] };

/** kandev's page of `task`, once it shows the recording's newest message. */
async function openKandev(newPage, peer, kandev, task, lastId) {
  const page = await newPage();
  await kandev.prepare(page.context());
  await page.goto(peer.taskUrl(task));
  await page.waitForFunction((id) => document.getElementById(`msg-${id}`), lastId, { timeout: 900000, polling: 200 });
  await page.waitForTimeout(1000);
  return page;
}

/**
 * The append run of a `size`-message task for taskview (roster open, a search
 * active) and, with `kandev` (the `KandevClient` class), for kandev's client,
 * under each framing. A first, uncounted run per client compiles its code.
 * Returns `[{framing, ours, theirs}]`, `theirs` null without kandev.
 */
export async function compareLive({ serve, newPage, size = 10000, kandev = null }) {
  const task = `rec-live-${size}-json`;
  const results = [];
  let warm = false;
  for (const [framing, flags] of Object.entries(FRAMINGS)) {
    const dir = mkdtempSync(path.join(tmpdir(), 'taskview-compare-'));
    try {
      const recording = new GrowingRecording(dir, `live-${size}.json`, session(size));
      const server = await serve(['--recordings', dir, '--poll-ms', '100', ...flags], 600000);
      const peer = kandev && await kandev.start(server.url);
      const ourRun = async () => {
        const page = await openTask(newPage, server, task, recording.parts.length, 'open');
        const run = await appendRun(page, recording);
        await page.context().close();
        return run;
      };
      const theirRun = async () => {
        const lastId = JSON.parse(recording.parts.at(-1)).id;
        const page = await openKandev(newPage, peer, kandev, task, lastId);
        const run = await appendRun(page, recording, 'kandev');
        await page.context().close();
        return run;
      };
      if (!warm) {
        await ourRun();
        if (peer) await theirRun();
        warm = true;
      }
      const ours = await ourRun();
      const theirs = peer ? await theirRun() : null;
      results.push({ framing, size, ours, theirs });
      const per = (run) => (run ? `${(run.taskMs / run.appended).toFixed(2)} ms` : 'not measured');
      console.log(`${framing.padEnd(9)} frames, ${size} messages: taskview ${per(ours)} per appended message ` +
        `(DOM ${ours.nodes}), kandev ${per(theirs)}${theirs ? ` (DOM ${theirs.nodes})` : ''}; ` +
        `load average ${ours.load.toFixed(1)}`);
      const batches = Math.ceil(APPENDED / BATCH);
      printStages(ours);
      if (ours.profile) printProfile('taskview', ours.profile, APPENDED, batches);
      if (theirs?.profile) printProfile('kandev', theirs.profile, APPENDED, batches);
      await peer?.stop();
      await server.stop();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return results;
}
