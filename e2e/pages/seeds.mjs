// The seeds' subagent patterns in a transcript (docs/behaviour.md §3.1, §3.5, §4, §8):
// spill chips, lossy-cut marks, provenance badges, the returned-tokens chip,
// what a parent received.

/** Selectors of the seeds' patterns, within `root` (a page or a locator). */
export class SeedPatterns {
  constructor(root) {
    this.spillChips = root.getByTestId('spill-chip');
    this.spillStored = root.getByTestId('spill-stored');
    this.truncatedMarkers = root.getByTestId('truncated-marker');
    this.provenance = root.getByTestId('conclusion-provenance');
    this.provenanceLinks = root.locator('[data-testid="conclusion-provenance"][href]');
    this.returned = root.getByTestId('subagent-meta-returned');
    this.received = root.getByTestId('subagent-received');
  }
}
