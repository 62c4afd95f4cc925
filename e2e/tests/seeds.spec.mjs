// The seeds' subagent patterns in the demo (docs/formats.md §4): a spilled output whose
// stored text opens inline, a provenance badge, the returned-tokens chip and
// the fork chip, on the release build served by `taskview serve`.
import { test, expect } from '../lib/fixtures.mjs';
import { TranscriptPage } from '../pages/transcript.mjs';
import { SeedPatterns } from '../pages/seeds.mjs';

test('the demo shows a spill chip, a provenance badge, a returned-tokens chip and a fork chip', async ({ page, app }) => {
  const task = await TranscriptPage.openTask(page, app, 'task-demo-seeds', { debug: false });
  const policy = task.card('sa-policy');
  await policy.root.waitFor();
  const seeds = new SeedPatterns(policy.root);
  await expect(seeds.returned).toHaveText('~28 tokens returned of 14.2k');
  await expect(task.subagentTypes.filter({ hasText: /^fork$/ })).not.toHaveCount(0);

  await policy.expand();
  await expect(seeds.provenance.first()).toHaveText('c-8812');
  await expect(seeds.provenanceLinks).toHaveAttribute('href', 'https://policies.example.com/freight/v7');
  await expect(seeds.received).toBeVisible();
  const chip = seeds.spillChips.first();
  await expect(chip).toHaveAttribute('data-spill-id', 'spill_5e1d7aa0-4c1b-5f7e-9a02-policy-v6');
  await chip.click();
  await expect(seeds.spillStored.first()).toContainText('superseded by v7');
  await expect(seeds.truncatedMarkers).toHaveCount(1);
});
